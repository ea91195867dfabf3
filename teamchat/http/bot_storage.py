"""GET, PUT and DELETE /bot_storage."""

from __future__ import annotations

from teamchat.actions.people import bot_storage
from teamchat.http.params import Params, as_optional_str_list, as_str_dict
from teamchat.http.routing import delete, get, put
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@get("/bot_storage")
async def get_storage(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    keys = params.optional("keys", as_optional_str_list, None)
    return params.success(storage=await bot_storage.get_storage(rt, user, keys))


@put("/bot_storage")
async def update_storage(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    await bot_storage.do_update_storage(rt, user, params.required("storage", as_str_dict))
    return params.success()


@delete("/bot_storage")
async def remove_storage(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    keys = params.optional("keys", as_optional_str_list, None)
    await bot_storage.do_remove_storage(rt, user, keys)
    return params.success()

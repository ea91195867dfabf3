"""POST /users/me/status, POST /users/{user_id}/status (administrators), GET its status."""

from __future__ import annotations

from teamchat.actions.people import user_status
from teamchat.http.params import Params, as_bool, as_str
from teamchat.http.routing import get, post
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


def read_status(params: Params) -> user_status.StatusRequest:
    return user_status.StatusRequest(
        status_text=params.optional("status_text", as_str, None),
        emoji_name=params.optional("emoji_name", as_str, None),
        emoji_code=params.optional("emoji_code", as_str, None),
        reaction_type=params.optional("reaction_type", as_str, None),
    )


@post("/users/me/status")
async def update_status(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    away = params.optional("away", as_bool, None)
    await user_status.check_update_own_status(rt, user, read_status(params), away=away)
    return params.success()


@post("/users/{user_id:int}/status")
async def update_status_for_user(
    user_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await user_status.check_update_status_for_user(rt, user, user_id, read_status(params))
    return params.success()


@get("/users/{user_id:int}/status")
async def get_user_status(user_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    return params.success(status=await user_status.get_user_status(rt, user, user_id))

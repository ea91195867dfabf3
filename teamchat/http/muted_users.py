"""POST and DELETE /users/me/muted_users/{muted_user_id}."""

from __future__ import annotations

from teamchat.actions.people import muted_users
from teamchat.http.params import Params
from teamchat.http.routing import delete, post
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@post("/users/me/muted_users/{muted_user_id:int}")
async def mute_user(muted_user_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    await muted_users.check_mute_user(rt, user, muted_user_id)
    return params.success()


@delete("/users/me/muted_users/{muted_user_id:int}")
async def unmute_user(muted_user_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    await muted_users.check_unmute_user(rt, user, muted_user_id)
    return params.success()

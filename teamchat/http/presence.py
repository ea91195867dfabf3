"""POST /users/me/presence, GET /realm/presence, GET /users/{user_id_or_email}/presence."""

from __future__ import annotations

from teamchat.actions.people import presence
from teamchat.http.params import Params, as_bool, as_int, as_str
from teamchat.http.routing import get, post
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@post("/users/me/presence")
async def update_presence(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    status = params.required("status", as_str)
    # Zulip keeps usage statistics from new_user_input; this server keeps none.
    params.optional("new_user_input", as_bool, False)
    result = await presence.check_update_presence(
        rt,
        user,
        status,
        ping_only=params.optional("ping_only", as_bool, False),
        slim_presence=params.optional("slim_presence", as_bool, False),
        last_update_id=params.optional("last_update_id", as_int, None),
        history_limit_days=params.optional("history_limit_days", as_int, None),
    )
    return params.success(**result)


@get("/realm/presence")
async def get_presence(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    result = await presence.get_presence_response(rt, user, slim=False)
    result.pop("presence_last_update_id")
    return params.success(**result)


@get("/users/{user_id_or_email:str}/presence")
async def get_user_presence(
    user_id_or_email: str, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    slim = params.optional("slim_presence", as_bool, False)
    result = await presence.get_user_presence(rt, user, user_id_or_email, slim=slim)
    return params.success(presence=result)

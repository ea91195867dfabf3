"""POST /submessage (poll votes, to-do tasks)."""

from __future__ import annotations

from teamchat.actions.messages import submessages
from teamchat.http.params import Params, as_int, as_str
from teamchat.http.routing import post
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@post("/submessage")
async def add_submessage(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    message_id = params.required("message_id", as_int)
    msg_type = params.required("msg_type", as_str)
    content = params.required("content", as_str)
    await submessages.check_add_submessage(rt, user, message_id, msg_type, content)
    return params.success()

"""Default channels: POST and DELETE /default_streams (clients read them from /register).

zulip-compat: Zulip has no GET here (405 with allowed_methods); the list is the register
state's `realm_default_streams`.
"""

from __future__ import annotations

from teamchat.actions.channels import default_streams
from teamchat.http.params import Params, as_int
from teamchat.http.routing import delete, post
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@post("/default_streams")
async def add_default_stream(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    stream_id = params.required("stream_id", as_int)
    await default_streams.check_add_default_stream(rt, user, stream_id)
    return params.success()


@delete("/default_streams")
async def remove_default_stream(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    stream_id = params.required("stream_id", as_int)
    await default_streams.check_remove_default_stream(rt, user, stream_id)
    return params.success()

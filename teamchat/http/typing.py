"""POST /typing, POST /messages/{message_id}/typing (and its older name)."""

from __future__ import annotations

from teamchat.actions.messages import typing
from teamchat.errors import ZulipError
from teamchat.http.params import Params, as_int, as_int_list, as_str, one_of
from teamchat.http.routing import post
from teamchat.lib.api_types import JsonDict
from teamchat.lib.messages import normalize_topic
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@post("/typing")
async def set_typing_status(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    # zulip-compat: without `type` (zulip-terminal) a notification is for a direct message.
    kind = params.optional("type", one_of("direct", "private", "stream", "channel"), "direct")
    op = params.required("op", one_of("start", "stop"))
    if kind in ("stream", "channel"):
        stream_id = params.optional("stream_id", as_int, None)
        if stream_id is None:
            # zulip-compat: a plain JsonableError in Zulip's typing view (no var_name).
            raise ZulipError("Missing 'stream_id' argument")
        topic = params.optional("topic", as_str, None)
        if topic is None:
            raise ZulipError("Missing topic")
        await typing.check_send_stream_typing(rt, user, op, stream_id, normalize_topic(topic))
    else:
        to = params.optional("to", as_int_list, None)
        if to is None:
            raise ZulipError("Missing 'to' argument")
        if not to:
            raise ZulipError("Empty 'to' list")
        await typing.check_send_direct_typing(rt, user, op, to)
    return params.success()


@post("/messages/{message_id:int}/typing")
async def set_edit_typing_status(
    message_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    op = params.required("op", one_of("start", "stop"))
    await typing.check_send_edit_typing(rt, user, op, message_id)
    return params.success()


# zulip-compat: the endpoint's name before feature level 361, message_id in the body.
@post("/message_edit_typing")
async def set_edit_typing_status_legacy(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    message_id = params.required("message_id", as_int)
    op = params.required("op", one_of("start", "stop"))
    await typing.check_send_edit_typing(rt, user, op, message_id)
    return params.success()

"""POST /messages/flags, /messages/flags/narrow, /mark_all_as_read, /mark_stream_as_read,
/mark_topic_as_read."""

from __future__ import annotations

from teamchat.actions.messages import message_fetch, message_flags
from teamchat.http.messages import as_anchor, as_narrow
from teamchat.http.params import Params, as_bool, as_int, as_int_list, as_str, at_most
from teamchat.http.routing import post
from teamchat.lib import limits
from teamchat.lib.api_types import JsonDict
from teamchat.lib.narrow import NarrowTerm
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@post("/messages/flags")
async def update_message_flags(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    messages = params.required("messages", at_most(limits.MAX_MESSAGE_IDS_PER_REQUEST, as_int_list))
    op = params.required("op", as_str)
    flag = params.required("flag", as_str)
    await message_flags.check_update_message_flags(rt, user, op, flag, messages)
    # zulip-compat: the (deprecated) response echoes the requested ids.
    return params.success(messages=messages)


@post("/messages/flags/narrow")
async def update_message_flags_for_narrow(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    anchor = message_fetch.Anchor(
        value=params.required("anchor", as_anchor),
        num_before=params.required("num_before", as_int),
        num_after=params.required("num_after", as_int),
        include_anchor=params.optional("include_anchor", as_bool, True),
    )
    message_fetch.check_anchor_window(anchor)
    narrow: list[NarrowTerm] = params.required("narrow", as_narrow)
    op = params.required("op", as_str)
    flag = params.required("flag", as_str)
    result = await message_flags.check_update_flags_for_narrow(rt, user, narrow, anchor, op, flag)
    return params.success(**result)


@post("/mark_all_as_read")
async def mark_all_as_read(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    await message_flags.do_mark_all_as_read(rt, user)
    return params.success(complete=True)


@post("/mark_stream_as_read")
async def mark_stream_as_read(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    stream_id = params.required("stream_id", as_int)
    await message_flags.check_mark_stream_as_read(rt, user, stream_id, None)
    return params.success()


@post("/mark_topic_as_read")
async def mark_topic_as_read(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    stream_id = params.required("stream_id", as_int)
    topic = params.required("topic_name", as_str)
    await message_flags.check_mark_stream_as_read(rt, user, stream_id, topic)
    return params.success()

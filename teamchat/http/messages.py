"""POST /messages, GET /messages, GET /messages/{message_id}."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request

from teamchat.actions.messages import (
    message_common,
    message_fetch,
    message_send,
    message_state,
    reports,
)
from teamchat.actions.people import bot_defaults
from teamchat.errors import RequestVariableMissingError, ZulipError
from teamchat.http.auth import request_client
from teamchat.http.params import Params, as_bool, as_int, as_int_list, as_json, as_str
from teamchat.http.routing import get, post
from teamchat.http.urls import realm_url
from teamchat.lib.api_types import JsonDict
from teamchat.lib.integers import parse_int
from teamchat.lib.json_input import decode_json
from teamchat.lib.message_wire import ClientView
from teamchat.lib.messages import LARGER_THAN_MAX_MESSAGE_ID
from teamchat.lib.narrow import BadNarrowError, NarrowTerm, parse_narrow
from teamchat.records import UserRow
from teamchat.runtime import Runtime

__all__ = ["message_state"]  # imported for its register-state fetchers

MESSAGE_TYPES = {"stream": "stream", "channel": "stream", "private": "private", "direct": "private"}


def as_message_type(name: str, raw: str) -> str:
    value = raw.strip().strip('"')
    if value not in MESSAGE_TYPES:
        raise ZulipError("Invalid type")
    return MESSAGE_TYPES[value]


def as_stream_indicator(name: str, raw: str) -> str | int:
    """Zulip's extract_stream_indicator: a name (raw or JSON), an id, or a one-item list."""
    try:
        data = decode_json(raw)
    except msgspec.DecodeError:
        return raw
    if isinstance(data, list):
        if len(data) != 1:
            raise ZulipError("Expected exactly one channel")
        data = data[0]
    if isinstance(data, str) or (isinstance(data, int) and not isinstance(data, bool)):
        return data
    raise ZulipError("Invalid data type for channel")


def as_private_recipients(name: str, raw: str) -> list[str] | list[int]:
    """Zulip's extract_private_recipients: ids or emails, as JSON or comma-separated."""
    try:
        data: object = decode_json(raw)
    except msgspec.DecodeError:
        data = raw
    if isinstance(data, str):
        data = data.split(",")
    if not isinstance(data, list):
        raise ZulipError("Invalid data type for recipients")
    if not data:
        return []
    if all(isinstance(item, str) for item in data):
        return sorted({item.strip() for item in data if item.strip()})
    if all(isinstance(item, int) and not isinstance(item, bool) for item in data):
        return sorted(set(data))
    if isinstance(data[0], str | int):
        raise ZulipError("Recipient lists may contain emails or user IDs, but not both.")
    raise ZulipError("Invalid data type for recipients")


@post("/messages")
async def send_message(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    recipient_type = params.required("type", as_message_type)
    content = params.required("content", as_str)
    parse_to = as_stream_indicator if recipient_type == "stream" else as_private_recipients
    to = params.optional("to", parse_to, None)
    if to is None:
        if recipient_type == "stream":
            # zulip-compat: a bot's channel message without `to` goes to its default channel.
            to = await bot_defaults.sending_stream_id(rt, user)
            if to is None:
                raise ZulipError("Missing channel")
        else:
            to = []
    queue_id = params.optional("queue_id", as_str, None)
    local_id = params.optional("local_id", as_str, None)
    if (queue_id is None) != (local_id is None):
        raise RequestVariableMissingError("local_id" if local_id is None else "queue_id")
    sent = await message_send.check_send_message(
        rt,
        user,
        message_send.SendRequest(
            recipient_type=recipient_type,
            to=to,
            topic=params.first_of(("topic", "subject"), as_str, None),
            content=content,
            client=request_client(request, params.optional("client", as_str, None)),
            realm_url=realm_url(request, rt),
            queue_id=queue_id,
            local_id=local_id,
            read_by_sender=params.optional("read_by_sender", as_bool, None),
            widget_content=params.optional("widget_content", as_str, None),
        ),
    )
    if sent.automatic_new_visibility_policy is not None:
        return params.success(
            id=sent.id, automatic_new_visibility_policy=sent.automatic_new_visibility_policy
        )
    return params.success(id=sent.id)


def as_anchor(name: str, raw: str) -> int | str:
    """Zulip's parse_anchor_value (the special words may come JSON-quoted)."""
    value = raw.strip().strip('"')
    if value in ("newest", "oldest", "first_unread"):
        return value
    anchor = parse_int(value)
    if anchor is None:
        raise ZulipError("Invalid anchor")
    return min(max(anchor, 0), LARGER_THAN_MAX_MESSAGE_ID)


def as_narrow(name: str, raw: str) -> list[NarrowTerm]:
    try:
        return list(parse_narrow(as_json(name, raw)))
    except BadNarrowError as exc:
        raise ZulipError(str(exc)) from None


@get("/messages")
async def get_messages(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    view = ClientView(
        apply_markdown=params.optional("apply_markdown", as_bool, True),
        client_gravatar=params.optional("client_gravatar", as_bool, True),
        allow_empty_topic_name=params.optional("allow_empty_topic_name", as_bool, False),
    )
    narrow: list[NarrowTerm] = params.optional("narrow", as_narrow, [])
    message_ids = params.optional("message_ids", as_int_list, None)
    if message_ids is not None:
        if params.has("anchor"):
            raise ZulipError("Unsupported parameter combination: anchor, message_ids")
        result = await message_fetch.get_messages_by_id(rt, user, narrow, message_ids, view)
        return params.success(**result)
    anchor = params.optional("anchor", as_anchor, None)
    if params.optional("use_first_unread_anchor", as_bool, False):
        anchor = "first_unread"
    if anchor is None:
        raise ZulipError("Missing 'anchor' argument.")
    window = message_fetch.Anchor(
        value=anchor,
        num_before=params.optional("num_before", as_int, 0),
        num_after=params.optional("num_after", as_int, 0),
        include_anchor=params.optional("include_anchor", as_bool, True),
    )
    result = await message_fetch.get_messages(rt, user, narrow, window, view)
    return params.success(**result)


@get("/messages/{message_id:int}")
async def get_message(message_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    view = ClientView(
        apply_markdown=params.optional("apply_markdown", as_bool, True),
        client_gravatar=False,
        allow_empty_topic_name=params.optional("allow_empty_topic_name", as_bool, False),
    )
    raw_content, message = await message_fetch.get_message(rt, user, message_id, view)
    return params.success(raw_content=raw_content, message=message)


@post("/messages/render")
async def render_message(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    content = params.required("content", as_str)
    rendered = await message_common.render_preview(rt, user, content, realm_url(request, rt))
    return params.success(rendered=rendered)


@post("/messages/{message_id:int}/report")
async def report_message(
    message_id: int, request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    report_type = params.required("report_type", as_str)
    description = params.optional("description", as_str, "")
    await reports.check_report_message(
        rt, user, message_id, report_type, description, realm_url(request, rt)
    )
    return params.success()

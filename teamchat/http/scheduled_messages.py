"""GET/POST /scheduled_messages, PATCH/DELETE /scheduled_messages/{id};
GET/POST /reminders, DELETE /reminders/{id}."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request

from teamchat.actions.messages.message_send import SendRequest
from teamchat.actions.scheduling import reminders
from teamchat.actions.scheduling import scheduled_messages as sm
from teamchat.errors import ZulipError
from teamchat.http.auth import request_client
from teamchat.http.messages import as_message_type
from teamchat.http.params import Params, as_bool, as_int, as_str
from teamchat.http.routing import delete, get, patch, post
from teamchat.http.urls import realm_url
from teamchat.lib.api_types import JsonDict
from teamchat.lib.integers import parse_int
from teamchat.records import UserRow
from teamchat.runtime import Runtime


def as_channel_id(name: str, raw: str) -> int:
    """Zulip's extract_stream_id: one channel id."""
    value = parse_int(raw)
    if value is None:
        raise ZulipError("Invalid data type for channel ID")
    return value


def as_user_ids(name: str, raw: str) -> list[int]:
    """Zulip's extract_direct_message_recipient_ids: a JSON list of user ids."""
    try:
        value: object = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        value = raw
    if not isinstance(value, list):
        raise ZulipError("Invalid data type for recipients")
    if not all(isinstance(item, int) and not isinstance(item, bool) for item in value):
        raise ZulipError("Recipient list may only contain user IDs")
    return sorted(set(value))


def _client(params: Params, request: Request[Any, Any, Any]) -> str:
    return request_client(request, params.optional("client", as_str, None))


def as_channel_id_or_user_ids(name: str, raw: str) -> int | list[int]:
    """A new `to` without a new type: a channel id or user ids, as the message's type needs."""
    value = parse_int(raw)
    return as_user_ids(name, raw) if value is None else value


def _to(params: Params, kind: str | None, required: bool) -> int | list[int] | None:
    if kind is None:
        return params.optional("to", as_channel_id_or_user_ids, None)
    if kind == "stream":
        if required:
            return params.required("to", as_channel_id)
        return params.optional("to", as_channel_id, None)
    if required:
        return params.required("to", as_user_ids)
    return params.optional("to", as_user_ids, None)


@get("/scheduled_messages")
async def list_scheduled_messages(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    return params.success(scheduled_messages=await sm.get_scheduled_messages(rt, user))


@post("/scheduled_messages")
async def create_scheduled_message(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    kind = params.required("type", as_message_type)
    to = _to(params, kind, required=True)
    assert to is not None
    send = SendRequest(
        recipient_type=kind,
        to=to,
        topic=params.first_of(("topic", "subject"), as_str, None),
        content=params.required("content", as_str),
        client=_client(params, request),
        realm_url=realm_url(request, rt),
        read_by_sender=params.optional("read_by_sender", as_bool, None),
    )
    when = params.required("scheduled_delivery_timestamp", as_int)
    scheduled_id = await sm.check_schedule_message(rt, user, send, when)
    return params.success(scheduled_message_id=scheduled_id)


@patch("/scheduled_messages/{scheduled_message_id:int}")
async def edit_scheduled_message(
    scheduled_message_id: int,
    request: Request[Any, Any, Any],
    params: Params,
    user: UserRow,
    rt: Runtime,
) -> JsonDict:
    kind = params.optional("type", as_message_type, None)
    edit = sm.ScheduledEdit(
        recipient_type=kind,
        to=_to(params, kind, required=False),
        topic=params.first_of(("topic", "subject"), as_str, None),
        content=params.optional("content", as_str, None),
        when=params.optional("scheduled_delivery_timestamp", as_int, None),
        client=_client(params, request),
        realm_url=realm_url(request, rt),
    )
    await sm.check_edit_scheduled_message(rt, user, scheduled_message_id, edit)
    return params.success()


@delete("/scheduled_messages/{scheduled_message_id:int}")
async def delete_scheduled_message(
    scheduled_message_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await sm.do_delete_scheduled_message(rt, user, scheduled_message_id)
    return params.success()


@get("/reminders")
async def list_reminders(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    return params.success(reminders=await reminders.get_reminders(rt, user))


@post("/reminders")
async def create_reminder(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    reminder_id = await reminders.check_create_reminder(
        rt,
        user,
        params.required("message_id", as_int),
        params.required("scheduled_delivery_timestamp", as_int),
        params.optional("note", as_str, ""),
        client=_client(params, request),
        realm_url=realm_url(request, rt),
    )
    return params.success(reminder_id=reminder_id)


@delete("/reminders/{reminder_id:int}")
async def delete_reminder(reminder_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    await reminders.do_delete_reminder(rt, user, reminder_id)
    return params.success()

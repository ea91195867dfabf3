"""Scheduled messages ("send later"): GET/POST /scheduled_messages, PATCH/DELETE
/scheduled_messages/{id}, the `scheduled_messages` events and register state.

A message is checked like a send when it is scheduled (and when edited), stored rendered,
and checked again when `delivery` sends it. Events go to the sender only.
"""

from __future__ import annotations

import msgspec

from teamchat.actions.messages.message_deliver import Draft
from teamchat.actions.messages.message_send import SendRequest, check_message
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import ResourceNotFoundError, ZulipError
from teamchat.events.types_scheduled import (
    ScheduledMessageObject,
    ScheduledMessagesAddEvent,
    ScheduledMessagesRemoveEvent,
    ScheduledMessagesUpdateEvent,
)
from teamchat.records import ScheduledMessageRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import scheduled_messages as scheduled_store
from teamchat.store.db import Tx

SEND_LATER = "send_later"
NOT_FOUND = "Scheduled message does not exist"
NOT_IN_FUTURE = "Scheduled delivery time must be in the future."


def scheduled_object(row: ScheduledMessageRow) -> ScheduledMessageObject:
    if row.recipient_type == "stream":
        assert row.stream_id is not None
        return ScheduledMessageObject(
            scheduled_message_id=row.id, type="stream", to=row.stream_id, topic=row.topic,
            content=row.content, rendered_content=row.rendered_content,
            scheduled_delivery_timestamp=row.scheduled_timestamp, failed=row.failed,
        )  # fmt: skip
    return ScheduledMessageObject(
        scheduled_message_id=row.id, type="private", to=row.to_user_ids,
        content=row.content, rendered_content=row.rendered_content,
        scheduled_delivery_timestamp=row.scheduled_timestamp, failed=row.failed,
    )  # fmt: skip


@state_fetcher("scheduled_messages")
async def _scheduled_messages_state(ctx: StateContext) -> None:
    rows = await scheduled_store.list_for_sender(ctx.conn, ctx.user.id, SEND_LATER)
    ctx.state["scheduled_messages"] = [scheduled_object(row) for row in rows]


def check_delivery_time(rt: Runtime, timestamp: int) -> None:
    if timestamp <= rt.now():
        raise ZulipError(NOT_IN_FUTURE)


def recipients_of(sender: UserRow, draft: Draft) -> list[int]:
    """A direct message's `to`: everyone but the sender (the sender alone when to self)."""
    return [uid for uid in draft.participant_ids if uid != sender.id] or [sender.id]


def row_from_draft(
    sender: UserRow, draft: Draft, request: SendRequest, when: int, delivery_type: str
) -> ScheduledMessageRow:
    """What is stored for a checked message (its id is assigned on insert)."""
    stream = draft.stream
    return ScheduledMessageRow(
        id=0, sender_id=sender.id, delivery_type=delivery_type,
        recipient_type="stream" if stream is not None else "private",
        stream_id=stream.id if stream is not None else None,
        to_user_ids=[] if stream is not None else recipients_of(sender, draft),
        topic=draft.topic, content=draft.content, rendered_content=draft.rendered.html,
        scheduled_timestamp=when, read_by_sender=draft.read_by_sender, client=draft.client,
        failed=False, failure_message=None, reminder_target_message_id=None,
        reminder_note=None, realm_url=request.realm_url,
    )  # fmt: skip


def publish_update(rt: Runtime, tx: Tx, row: ScheduledMessageRow) -> None:
    event = ScheduledMessagesUpdateEvent(scheduled_message=scheduled_object(row))
    tx.after_commit(lambda: rt.broker.publish(event, [row.sender_id]))


def publish_remove(rt: Runtime, tx: Tx, row: ScheduledMessageRow) -> None:
    event = ScheduledMessagesRemoveEvent(scheduled_message_id=row.id)
    tx.after_commit(lambda: rt.broker.publish(event, [row.sender_id]))


async def get_scheduled_messages(rt: Runtime, user: UserRow) -> list[ScheduledMessageObject]:
    """The user's undelivered scheduled messages, soonest first."""
    async with rt.db.read() as conn:
        rows = await scheduled_store.list_for_sender(conn, user.id, SEND_LATER)
    return [scheduled_object(row) for row in rows]


async def check_schedule_message(
    rt: Runtime, sender: UserRow, request: SendRequest, when: int
) -> int:
    """Check the message as if sent now, store it for `when`; return its scheduled id."""
    check_delivery_time(rt, when)
    _, draft = await check_message(rt, sender, request)
    async with rt.db.write() as tx:
        row = await scheduled_store.insert(
            tx, row_from_draft(sender, draft, request, when, SEND_LATER)
        )
        event = ScheduledMessagesAddEvent(scheduled_messages=[scheduled_object(row)])
        tx.after_commit(lambda: rt.broker.publish(event, [sender.id]))
    return row.id


class ScheduledEdit(msgspec.Struct, kw_only=True):
    """PATCH /scheduled_messages/{id}: what changes (None: unchanged)."""

    recipient_type: str | None = None
    to: int | list[int] | None = None
    topic: str | None = None
    content: str | None = None
    when: int | None = None
    client: str
    realm_url: str


def _check_edit_request(edit: ScheduledEdit) -> None:
    values = (edit.recipient_type, edit.to, edit.topic, edit.content, edit.when)
    if all(value is None for value in values):
        raise ZulipError("Nothing to change")
    if edit.recipient_type is not None and edit.to is None:
        raise ZulipError("Recipient required when updating type of scheduled message.")
    if edit.recipient_type == "stream" and edit.topic is None:
        raise ZulipError("Topic required when updating scheduled message type to stream.")


async def _owned(rt: Runtime, user: UserRow, scheduled_id: int) -> ScheduledMessageRow:
    async with rt.db.read() as conn:
        row = await scheduled_store.get_for_sender(conn, user.id, scheduled_id, SEND_LATER)
    if row is None:
        raise ResourceNotFoundError(NOT_FOUND)
    return row


async def check_edit_scheduled_message(
    rt: Runtime, sender: UserRow, scheduled_id: int, edit: ScheduledEdit
) -> None:
    """Change a scheduled message, checking it again as a send; a failed one needs a new time."""
    _check_edit_request(edit)
    if edit.when is not None:
        check_delivery_time(rt, edit.when)
    row = await _owned(rt, sender, scheduled_id)
    if row.failed and edit.when is None:
        raise ZulipError(NOT_IN_FUTURE)
    kind = edit.recipient_type or row.recipient_type
    old_to: int | list[int] = row.stream_id if row.stream_id is not None else row.to_user_ids
    request = SendRequest(
        recipient_type=kind,
        to=edit.to if edit.to is not None else old_to,
        topic=edit.topic if edit.topic is not None else row.topic,
        content=edit.content if edit.content is not None else row.content,
        client=edit.client,
        realm_url=edit.realm_url,
        read_by_sender=row.read_by_sender,
    )
    _, draft = await check_message(rt, sender, request)
    changed = row_from_draft(sender, draft, request, edit.when or row.scheduled_timestamp,
                             SEND_LATER)  # fmt: skip
    changed = msgspec.structs.replace(changed, id=row.id)
    async with rt.db.write() as tx:
        if await scheduled_store.get_for_sender(tx, sender.id, row.id, SEND_LATER) is None:
            raise ResourceNotFoundError(NOT_FOUND)
        await scheduled_store.update(tx, changed)
        publish_update(rt, tx, changed)


async def do_delete_scheduled_message(rt: Runtime, sender: UserRow, scheduled_id: int) -> None:
    """Cancel a scheduled message."""
    async with rt.db.write() as tx:
        row = await scheduled_store.get_for_sender(tx, sender.id, scheduled_id, SEND_LATER)
        if row is None:
            raise ResourceNotFoundError(NOT_FOUND)
        await scheduled_store.delete(tx, row.id)
        publish_remove(rt, tx, row)

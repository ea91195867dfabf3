"""Reminders: POST /reminders, GET /reminders, DELETE /reminders/{id}, the `reminders`
events and register state. At its time the Notification Bot sends the user a direct message
quoting the message (see `delivery`).
"""

from __future__ import annotations

import msgspec

from teamchat.actions.messages.message_common import access_message
from teamchat.actions.messages.message_send import SendRequest, check_message
from teamchat.actions.messages.notice_text import mention, mention_list, message_url, unused_fence
from teamchat.actions.org.realm_state import MAX_REMINDER_NOTE_LENGTH
from teamchat.actions.scheduling.scheduled_messages import check_delivery_time, row_from_draft
from teamchat.actions.state import MAX_MESSAGE_LENGTH, StateContext, state_fetcher
from teamchat.errors import ResourceNotFoundError, ZulipError
from teamchat.events.types_scheduled import ReminderObject, RemindersAddEvent, RemindersRemoveEvent
from teamchat.lib.messages import truncate
from teamchat.records import MessageRow, ScheduledMessageRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import messages as message_store
from teamchat.store import scheduled_messages as scheduled_store
from teamchat.store import streams as stream_store
from teamchat.store import users as user_store
from teamchat.store.db import Conn, Tx

REMIND = "remind"
NOT_FOUND = "Reminder does not exist"


def reminder_object(row: ScheduledMessageRow) -> ReminderObject:
    assert row.reminder_target_message_id is not None
    return ReminderObject(
        reminder_id=row.id, scheduled_message_id=row.id, type="private", to=[row.sender_id],
        content=row.content,
        rendered_content=row.rendered_content, scheduled_delivery_timestamp=row.scheduled_timestamp,
        failed=row.failed, reminder_target_message_id=row.reminder_target_message_id,
    )  # fmt: skip


@state_fetcher("reminders")
async def _reminders_state(ctx: StateContext) -> None:
    rows = await scheduled_store.list_for_sender(ctx.conn, ctx.user.id, REMIND)
    ctx.state["reminders"] = [reminder_object(row) for row in rows]


def clean_note(note: str) -> str:
    note = note.rstrip().lstrip("\n")
    if len(note) > MAX_REMINDER_NOTE_LENGTH:
        raise ZulipError(f"Maximum reminder note length: {MAX_REMINDER_NOTE_LENGTH} characters")
    return note


async def reminder_content(
    conn: Conn, user: UserRow, message: MessageRow, note: str, realm_url: str
) -> str:
    """Zulip's reminder text: the note, who said it where (linked), and the message quoted."""
    sender = await user_store.get_user_by_id(conn, message.sender_id)
    assert sender is not None
    what = "message" if message.stream_id is not None else "direct message"
    content = f"You requested a reminder for the following {what}."
    if note:
        content = f"You requested a reminder for the following {what}. Note:\n > {note}"
    content += "\n\n"
    if message.stream_id is not None:
        stream = await stream_store.get_stream_by_id(conn, message.stream_id)
        assert stream is not None
        url = message_url(realm_url, message, stream.name, [])
        where = f"in #**{stream.name}>{message.topic}@{message.id}**"
    else:
        participants = (await message_store.dm_participants(conn, [message.recipient_id]))[
            message.recipient_id
        ]
        url = message_url(realm_url, message, None, participants)
        others = [uid for uid in participants if uid != sender.id] or [sender.id]
        where = "to " + mention_list(await user_store.list_users(conn, user_ids=others))
    widget = next((w for w in ("poll", "todo") if message.content.startswith(f"/{w}")), None)
    if widget is not None:
        name = "poll" if widget == "poll" else "todo list"
        return content + f"{mention(sender)} [sent]({url}) a {name} {where}."
    content += f"{mention(sender)} [said]({url}) {where}:\n"
    fence = unused_fence(content)
    room = MAX_MESSAGE_LENGTH - len(content) - len(f"{fence}quote\n\n{fence}")
    quoted = truncate(message.content, room, "\n[message truncated]")
    return content + f"{fence}quote\n{quoted}\n{fence}"


async def get_reminders(rt: Runtime, user: UserRow) -> list[ReminderObject]:
    async with rt.db.read() as conn:
        rows = await scheduled_store.list_for_sender(conn, user.id, REMIND)
    return [reminder_object(row) for row in rows]


async def check_create_reminder(
    rt: Runtime, user: UserRow, message_id: int, when: int, note: str, *, client: str,
    realm_url: str,
) -> int:  # fmt: skip
    """Schedule a reminder about a message the user can see; return its id."""
    check_delivery_time(rt, when)
    note = clean_note(note)
    async with rt.db.read() as conn:
        message, _ = await access_message(conn, user, message_id)
        content = await reminder_content(conn, user, message, note, realm_url)
    request = SendRequest(
        recipient_type="private", to=[user.id], topic=None, content=content, client=client,
        realm_url=realm_url,
    )  # fmt: skip
    _, draft = await check_message(rt, user, request)
    row = row_from_draft(user, draft, request, when, REMIND)
    row = msgspec.structs.replace(
        row, reminder_target_message_id=message.id, reminder_note=note or None
    )
    async with rt.db.write() as tx:
        row = await scheduled_store.insert(tx, row)
        event = RemindersAddEvent(reminders=[reminder_object(row)])
        tx.after_commit(lambda: rt.broker.publish(event, [user.id]))
    return row.id


def publish_remove(rt: Runtime, tx: Tx, row: ScheduledMessageRow) -> None:
    event = RemindersRemoveEvent(reminder_id=row.id)
    tx.after_commit(lambda: rt.broker.publish(event, [row.sender_id]))


async def do_delete_reminder(rt: Runtime, user: UserRow, reminder_id: int) -> None:
    async with rt.db.write() as tx:
        row = await scheduled_store.get_for_sender(tx, user.id, reminder_id, REMIND)
        if row is None:
            raise ResourceNotFoundError(NOT_FOUND)
        await scheduled_store.delete(tx, row.id)
        publish_remove(rt, tx, row)

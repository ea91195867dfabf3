"""Delivering scheduled messages and reminders when their time comes.

`run_scheduler` (a task of the server process) looks for due rows every
`scheduler_interval_secs`; rows that came due while the server was down are sent at its next
start. Each is checked again as a send by its sender (permissions may have changed), sent
through the normal send path, and leaves the queue in the message's own transaction. A
message that cannot be sent is marked `failed` and its sender told by the Notification Bot.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import msgspec

from teamchat.actions.messages.message_common import access_message
from teamchat.actions.messages.message_deliver import do_send_message
from teamchat.actions.messages.message_send import SendRequest, check_message, internal_request
from teamchat.actions.messages.notice_text import global_time
from teamchat.actions.org.system_bots import NOTIFICATION_BOT, ensure_system_bot
from teamchat.actions.scheduling import reminders
from teamchat.actions.scheduling import scheduled_messages as sm
from teamchat.errors import ZulipError
from teamchat.records import ScheduledMessageRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import scheduled_messages as scheduled_store
from teamchat.store import users as user_store
from teamchat.store.db import Tx

log = logging.getLogger("teamchat.scheduler")
BATCH = 50


class _Superseded(Exception):
    """The row was edited or cancelled while being sent: this send is rolled back."""


async def run_scheduler(rt: Runtime, interval_secs: float) -> None:
    """Deliver due rows forever (cancelled at shutdown)."""
    while True:
        try:
            while await deliver_due(rt) == BATCH:
                pass
        except Exception:
            log.exception("scheduled delivery failed")
        await asyncio.sleep(interval_secs)


async def deliver_due(rt: Runtime) -> int:
    """Try every row due now (up to BATCH); return how many were tried."""
    async with rt.db.read() as conn:
        ids = await scheduled_store.due_ids(conn, rt.now(), BATCH)
    for scheduled_id in ids:
        await deliver_one(rt, scheduled_id)
    return len(ids)


async def deliver_one(rt: Runtime, scheduled_id: int) -> None:
    async with rt.db.read() as conn:
        row = await scheduled_store.get(conn, scheduled_id)
        sender = await user_store.get_user_by_id(conn, row.sender_id) if row else None
    if row is None or row.failed or sender is None:
        return
    notify = sender.is_active and row.delivery_type == sm.SEND_LATER
    try:
        if not sender.is_active:
            raise ZulipError("Account is deactivated")
        if row.delivery_type == reminders.REMIND:
            await _send_reminder(rt, sender, row)
        else:
            await _send_later(rt, sender, row)
    except _Superseded:
        return
    except ZulipError as error:
        log.info("scheduled message %s failed: %s", row.id, error.msg)
        await _mark_failed(rt, sender, row, error.msg, notify=notify)
    except Exception:
        log.exception("unexpected error sending scheduled message %s", row.id)
        await _mark_failed(rt, sender, row, "Internal server error", notify=notify)


def _leave_queue(rt: Runtime, row: ScheduledMessageRow) -> Callable[[Tx], Awaitable[None]]:
    async def leave(tx: Tx) -> None:
        if await scheduled_store.get(tx, row.id) != row:
            raise _Superseded
        # Several server processes on one database all run the scheduler: whichever deletes
        # the row sends the message (the other waited for its row lock, then deletes nothing).
        if not await scheduled_store.delete(tx, row.id):
            raise _Superseded
        if row.delivery_type == reminders.REMIND:
            reminders.publish_remove(rt, tx, row)
        else:
            sm.publish_remove(rt, tx, row)

    return leave


async def _send_later(rt: Runtime, sender: UserRow, row: ScheduledMessageRow) -> None:
    request = SendRequest(
        recipient_type=row.recipient_type,
        to=row.stream_id if row.stream_id is not None else row.to_user_ids,
        topic=row.topic, content=row.content, client=row.client, realm_url=rt.external_url,
        read_by_sender=row.read_by_sender,
    )  # fmt: skip
    realm, draft = await check_message(rt, sender, request)
    draft = msgspec.structs.replace(draft, with_message=_leave_queue(rt, row))
    await do_send_message(rt, realm, sender, draft)


async def _send_reminder(rt: Runtime, user: UserRow, row: ScheduledMessageRow) -> None:
    """From the Notification Bot; the message re-read now, or as it was if now out of reach."""
    content = row.content
    assert row.reminder_target_message_id is not None
    async with rt.db.read() as conn:
        try:
            message, _ = await access_message(conn, user, row.reminder_target_message_id)
        except ZulipError:
            message = None
        if message is not None:
            note = row.reminder_note or ""
            content = await reminders.reminder_content(conn, user, message, note, rt.external_url)
    bot = await ensure_system_bot(rt, NOTIFICATION_BOT)
    request = _bot_dm(user, content, rt.external_url)
    realm, draft = await check_message(rt, bot, request)
    draft = msgspec.structs.replace(draft, with_message=_leave_queue(rt, row))
    await do_send_message(rt, realm, bot, draft)


def _bot_dm(user: UserRow, content: str, realm_url: str) -> SendRequest:
    return internal_request("private", [user.id], None, content, realm_url)


async def _mark_failed(
    rt: Runtime, sender: UserRow, row: ScheduledMessageRow, reason: str, *, notify: bool
) -> None:
    async with rt.db.write() as tx:
        current = await scheduled_store.get(tx, row.id)
        if current is None:
            return
        failed = msgspec.structs.replace(current, failed=True, failure_message=reason)
        await scheduled_store.update(tx, failed)
        if notify:
            sm.publish_update(rt, tx, failed)
    if not notify:
        return
    content = (
        f"The message you scheduled for {global_time(row.scheduled_timestamp)} was not sent"
        f" because of the following error:\n\n> {reason}\n\n"
        "[View scheduled messages](#scheduled)\n\n"
    )
    try:
        bot = await ensure_system_bot(rt, NOTIFICATION_BOT)
        realm, draft = await check_message(rt, bot, _bot_dm(sender, content, rt.external_url))
        await do_send_message(rt, realm, bot, draft)
    except ZulipError as error:
        log.info("could not tell user %s about a failed scheduled message: %s", sender.id, error)

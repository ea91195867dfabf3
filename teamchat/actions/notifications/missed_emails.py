"""Missed-message emails: a direct message, a mention (personal, or a wildcard for those who
want them) or an alert word that reaches someone with no client connected is queued; if it
is still unread after their `email_notifications_batching_period_seconds`, it is emailed to
them with its conversation, as Zulip does (`enable_offline_email_notifications`,
`message_content_in_email_notifications`). Nothing is queued when the server sends no mail.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from datetime import UTC, datetime

from teamchat import store
from teamchat.actions.messages.message_deliver import Delivered, send_hook
from teamchat.actions.messages.message_update import Edited, edit_hook
from teamchat.actions.messages.notice_text import message_link
from teamchat.actions.notifications import rules
from teamchat.actions.org.mail import mail_configured, send_email
from teamchat.actions.people.user_access import can_access_user
from teamchat.lib import flags as fl
from teamchat.lib import user_settings, wire
from teamchat.records import MessageRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import message_flags as flag_store
from teamchat.store import messages as message_store
from teamchat.store import missed_emails as queue_store
from teamchat.store.db import Conn, Tx

log = logging.getLogger("teamchat.missed_emails")
NO_CONTENT = (
    "This email does not include message content because you have disabled message content "
    "in email notifications."
)


async def _queue(rt: Runtime, tx: Tx, notice: rules.Notice, message_id: int, url: str) -> None:
    rows = []
    for user, why in await rules.to_notify(rt, tx, notice, "email"):
        period = user_settings.load(user.settings_json).email_notifications_batching_period_seconds
        rows.append((user.id, message_id, why, rt.now() + period, url))
    if rows:
        await queue_store.add(tx, rows)


@send_hook
async def _on_send(rt: Runtime, tx: Tx, sent: Delivered) -> None:
    if mail_configured(rt.settings):
        message_id = sent.message["id"]
        assert isinstance(message_id, int)
        await _queue(rt, tx, rules.notice_of(sent), message_id, rt.external_url)


@edit_hook
async def _on_edit(rt: Runtime, tx: Tx, edited: Edited) -> None:
    """An edit that newly mentions people queues their email as a new message would."""
    if mail_configured(rt.settings):
        notice = rules.Notice(
            sender_id=edited.message.sender_id, stream=edited.stream, topic=edited.topic,
            flags=edited.flags, mentions_only=True,
        )  # fmt: skip
        await _queue(rt, tx, notice, edited.message.id, rt.external_url)


async def run_missed_emails(rt: Runtime, interval_secs: float) -> None:
    """Send what came due, forever (cancelled at shutdown)."""
    while True:
        try:
            async with rt.db.read() as conn:
                due = await queue_store.users_due(conn, rt.now())
            for user_id in due:
                await send_missed_emails(rt, user_id)
        except Exception:
            log.exception("missed-message emails failed")
        await asyncio.sleep(interval_secs)


async def send_missed_emails(rt: Runtime, user_id: int) -> int:
    """Email the user's still-unread queued messages (one email per conversation); forget
    the queue. Return how many emails were sent."""
    async with rt.db.read() as conn:
        pending = await queue_store.pending_for(conn, user_id)
    # Taken off the queue before sending: when several server processes share the
    # database, each queued message is emailed by the one that took it.
    async with rt.db.write() as tx:
        claimed = await queue_store.claim(tx, user_id, [m for m, _, _ in pending])
    ids = [message_id for message_id, _, _ in pending if message_id in claimed]
    async with rt.db.read() as conn:
        user = await store.users.get_user_by_id(conn, user_id)
        flags = await flag_store.user_flags(conn, user_id, ids)
        messages = await message_store.list_messages(conn, ids)
        unread = [m for m in messages if m.id in flags and not flags[m.id] & fl.READ]
        # Links use our configured URL, whatever a row queued before it was pinned says.
        texts = await _emails(conn, user, unread, rt.external_url) if user else []
    sent = 0
    if user is not None and user.is_active:
        for subject, body in texts:
            sent += await send_email(
                rt.settings, to=user.delivery_email, subject=subject, body=body
            )
    return sent


async def _emails(
    conn: Conn, user: UserRow, unread: list[MessageRow], realm_url: str
) -> list[tuple[str, str]]:
    """(subject, body) per conversation of the unread messages."""
    conversations: dict[tuple[int, str], list[MessageRow]] = defaultdict(list)
    for message in unread:
        conversations[(message.recipient_id, message.topic.lower())].append(message)
    realm = await store.realm.get_realm(conn)
    assert realm is not None
    show = user_settings.load(user.settings_json).message_content_in_email_notifications
    emails = []
    for messages in conversations.values():
        subject, link = await _conversation(conn, user, messages[-1], realm_url)
        lines = [f"{realm.name}: you have new messages in {subject}.", ""]
        for message in messages:
            sender = await store.users.get_user_by_id(conn, message.sender_id)
            when = datetime.fromtimestamp(message.date_sent, UTC).strftime("%Y-%m-%d %H:%M UTC")
            name = sender.full_name if sender else "Someone"
            if sender is not None and not await can_access_user(conn, user, sender):
                name = wire.INACCESSIBLE_USER_NAME  # a limited guest, as its clients show it
            lines.append(f"{name} ({when}):")
            lines.append(f"  {message.content}" if show else f"  {NO_CONTENT}")
        lines += ["", f"Reply in {realm.name}: {link}",
                  f"Change which emails you get: {realm_url}/#settings/notifications"]  # fmt: skip
        emails.append((subject, "\n".join(lines) + "\n"))
    return emails


async def _conversation(
    conn: Conn, user: UserRow, last: MessageRow, realm_url: str
) -> tuple[str, str]:
    """(subject, link) of the conversation a message belongs to, named as Zulip names it."""
    if last.stream_id is not None:
        stream = await store.streams.get_stream_by_id(conn, last.stream_id)
        name = stream.name if stream else "?"
        link = message_link(realm_url, last.id, last.stream_id, name, last.topic, [])
        return f"#{name} > {last.topic}", link
    participants = (await message_store.dm_participants(conn, [last.recipient_id]))[
        last.recipient_id
    ]
    others = [
        u for u in await store.users.list_users(conn, user_ids=participants) if u.id != user.id
    ]
    names = ", ".join(u.full_name for u in others) or user.full_name
    link = message_link(realm_url, last.id, None, None, "", participants)
    kind = "DMs" if len(participants) <= 2 else "Group DMs"
    return f"{kind} with {names}", link

"""Notification Bot messages after a channel/topic move, as Zulip sends them.

Resolving or unresolving a topic posts "... has marked this topic as resolved/unresolved."
in it; any other move leaves breadcrumbs: in the new location by default
(`send_notification_to_new_thread`), in the old one on request
(`send_notification_to_old_thread`).
"""

from __future__ import annotations

from teamchat.actions.channels import channel_access as access
from teamchat.actions.messages.message_send import check_send_message, internal_request
from teamchat.actions.org.system_bots import NOTIFICATION_BOT, ensure_system_bot
from teamchat.records import MessageRow, StreamRow, UserRow
from teamchat.render.context import StreamTarget
from teamchat.render.stream_links import topic_url
from teamchat.runtime import Runtime
from teamchat.store import messages as message_store
from teamchat.store import subscriptions as sub_store
from teamchat.store.db import Conn


class Move:
    """One completed move: where from, where to, and how many messages went."""

    def __init__(
        self, message: MessageRow, old: StreamRow, new: StreamRow, new_topic: str, count: int
    ) -> None:
        self.message, self.old, self.new = message, old, new
        self.old_topic, self.new_topic, self.count = message.topic, new_topic, count


async def _visible_ids(conn: Conn, user: UserRow, stream: StreamRow, topic: str) -> list[int]:
    sub = await sub_store.get_subscription(conn, user.id, stream.id)
    history = access.can_access_history(user, stream, sub is not None and sub.active)
    visible_to = None if history else user.id
    return await message_store.topic_message_ids(
        conn, stream.recipient_id, topic, visible_to=visible_to
    )


def _location(stream: StreamRow, topic: str) -> str:
    return f"#**{stream.name}>{topic}**"


async def breadcrumb_texts(
    conn: Conn, user: UserRow, move: Move, realm_url: str
) -> tuple[str, str]:
    """(old-thread text, new-thread text) with Zulip's wording, read after the move."""
    mention = f"@_**{user.full_name}|{user.id}**"
    remaining = await _visible_ids(conn, user, move.old, move.old_topic)
    in_target = await _visible_ids(conn, user, move.new, move.new_topic)
    moved_all = not remaining
    new_loc, old_loc, n = (
        _location(move.new, move.new_topic),
        _location(move.old, move.old_topic),
        move.count,
    )
    if moved_all:
        old_text = f"This topic was moved to {new_loc} by {mention}."
    elif n == 1:
        old_text = f"A message was moved from this topic to {new_loc} by {mention}."
    else:
        old_text = f"{n} messages were moved from this topic to {new_loc} by {mention}."
    if moved_all and len(in_target) <= n:
        new_text = f"This topic was moved here from {old_loc} by {mention}."
    elif n == 1:
        target = StreamTarget(stream_id=move.new.id, name=move.new.name)
        link = f"{realm_url}{topic_url(target, move.new_topic)}/near/{move.message.id}"
        new_text = f"[A message]({link}) was moved here from {old_loc} by {mention}."
    else:
        new_text = f"{n} messages were moved here from {old_loc} by {mention}."
    return old_text, new_text


async def send_move_notifications(
    rt: Runtime,
    user: UserRow,
    move: Move,
    *,
    resolved: bool,
    unresolved: bool,
    notify_old: bool,
    notify_new: bool,
    realm_url: str,
) -> None:
    """Send the resolve notice and/or the breadcrumbs for a completed move."""
    mention = f"@_**{user.full_name}|{user.id}**"
    sends: list[tuple[StreamRow, str, str]] = []
    if resolved or unresolved:
        state = "resolved" if resolved else "unresolved"
        text = f"{mention} has marked this topic as {state}."
        sends.append((move.new, move.new_topic, text))
    if move.new.id != move.old.id or not (resolved or unresolved):
        async with rt.db.read() as conn:
            old_text, new_text = await breadcrumb_texts(conn, user, move, realm_url)
        if notify_new:
            sends.append((move.new, move.new_topic, new_text))
        if notify_old:
            sends.append((move.old, move.old_topic, old_text))
    if not sends:
        return
    bot = await ensure_system_bot(rt, NOTIFICATION_BOT)
    for stream, topic, content in sends:
        request = internal_request("stream", stream.id, topic, content, realm_url)
        await check_send_message(rt, bot, request)

"""Which service bots a new message calls: Zulip's get_service_bot_events. A bot is called when
@-mentioned in a channel, or when it is in a direct message; messages sent by bots never
call bots (no loops)."""

from __future__ import annotations

from collections.abc import Sequence

from teamchat.records import StreamRow, UserRow
from teamchat.store import users as user_store
from teamchat.store.db import Conn


async def triggered_bots(
    conn: Conn, sender: UserRow, stream: StreamRow | None, mentioned: Sequence[int],
    participants: Sequence[int], bot_type: int,
) -> list[tuple[UserRow, str]]:  # fmt: skip
    """(bot, trigger) for each active bot of `bot_type` the message calls; trigger is
    "mention" or "direct_message"."""
    if sender.is_bot:
        return []
    candidates = sorted(set(mentioned) if stream is not None else set(participants))
    if not candidates:
        return []  # most channel messages mention nobody: no query on the send path
    trigger = "mention" if stream is not None else "direct_message"
    return [
        (user, trigger)
        for user in await user_store.list_users(conn, user_ids=candidates)
        if user.is_bot and user.is_active and user.bot_type == bot_type
    ]

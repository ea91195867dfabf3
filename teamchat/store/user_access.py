"""Queries on who shares a channel or a direct-message conversation with whom.

These decide which people a guest may see when the realm limits guests' access to users
(Zulip's get_accessible_user_ids). Bots are never returned: everyone may see them.
"""

from __future__ import annotations

from collections.abc import Iterable

from teamchat.records import Role
from teamchat.store.db import Conn

_GUEST = int(Role.GUEST)

# Human subscribers of the channels `?` is actively subscribed to (the first `?`: 1 to
# count deactivated ones too).
_SHARED_CHANNELS = (
    "SELECT other.user_id FROM subscription AS mine"
    " JOIN subscription AS other ON other.stream_id = mine.stream_id AND other.active = 1"
    " JOIN users AS u ON u.id = other.user_id AND u.is_bot = 0 AND (u.is_active = 1 OR ?)"
    " WHERE mine.user_id = ? AND mine.active = 1"
)
# Human participants of the direct-message conversations `?` is in (likewise).
_SHARED_CONVERSATIONS = (
    "SELECT other.user_id FROM direct_message_member AS mine"
    " JOIN direct_message_member AS other ON other.recipient_id = mine.recipient_id"
    " JOIN users AS u ON u.id = other.user_id AND u.is_bot = 0 AND (u.is_active = 1 OR ?)"
    " WHERE mine.user_id = ?"
)


async def shared_user_ids(conn: Conn, user_id: int, *, include_deactivated: bool) -> set[int]:
    """People sharing a channel subscription or a conversation with `user_id`, and itself.

    With `include_deactivated` (what a guest's state shows), deactivated people still count
    through channels too, unlike Zulip's get_accessible_user_ids: the guest was told of the
    deactivation (realm_user/update), so its state keeps the person as deactivated.
    """
    flag = int(include_deactivated)
    rows = await conn.fetchall(
        f"{_SHARED_CHANNELS} UNION {_SHARED_CONVERSATIONS}", (flag, user_id, flag, user_id)
    )
    return {user_id, *(int(row[0]) for row in rows)}


async def active_guest_ids(conn: Conn, among: Iterable[int] | None = None) -> list[int]:
    """Active guests, optionally only those in `among`."""
    rows = await conn.fetchall(
        "SELECT id FROM users WHERE role = ? AND is_active = 1 AND is_bot = 0 ORDER BY id",
        (_GUEST,),
    )
    ids = [int(row[0]) for row in rows]
    if among is None:
        return ids
    wanted = set(among)
    return [uid for uid in ids if uid in wanted]


async def active_guest_subscriber_ids(conn: Conn, stream_ids: Iterable[int]) -> list[int]:
    """Active guests actively subscribed to any of `stream_ids`."""
    ids = ",".join(str(int(s)) for s in stream_ids) or "NULL"
    rows = await conn.fetchall(
        "SELECT DISTINCT s.user_id FROM subscription AS s"
        " JOIN users AS u ON u.id = s.user_id AND u.role = ? AND u.is_active = 1"
        f" WHERE s.active = 1 AND s.stream_id IN ({ids})",
        (_GUEST,),
    )
    return sorted(int(row[0]) for row in rows)


async def active_non_guest_ids(conn: Conn) -> list[int]:
    """Active users (bots included) who are not guests."""
    rows = await conn.fetchall("SELECT id FROM users WHERE is_active = 1 AND role != ?", (_GUEST,))
    return [int(row[0]) for row in rows]


async def human_user_ids(conn: Conn) -> set[int]:
    """Every person, active or not (everyone a guest sees when access is not limited)."""
    rows = await conn.fetchall("SELECT id FROM users WHERE is_bot = 0")
    return {int(row[0]) for row in rows}

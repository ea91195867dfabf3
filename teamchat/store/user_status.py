"""Queries on user status (status text and emoji), one row per user who ever set one."""

from __future__ import annotations

from teamchat.records import UserStatusRow
from teamchat.store.db import Conn, Tx

_COLUMNS = "s.user_id, s.timestamp, s.status_text, s.emoji_name, s.emoji_code, s.reaction_type"


async def get_status(conn: Conn, user_id: int) -> UserStatusRow | None:
    """A user's status row, or None if they never set one."""
    row = await conn.fetchone(f"SELECT {_COLUMNS} FROM user_status s WHERE user_id = ?", (user_id,))
    return UserStatusRow(**dict(row)) if row else None


async def list_statuses(conn: Conn) -> list[UserStatusRow]:
    """Status rows of active users."""
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM user_status s JOIN users u ON u.id = s.user_id"
        " WHERE u.is_active = 1 ORDER BY s.user_id"
    )
    return [UserStatusRow(**dict(row)) for row in rows]


async def upsert(
    tx: Tx,
    user_id: int,
    *,
    timestamp: int,
    status_text: str | None = None,
    emoji: tuple[str, str, str] | None = None,
) -> None:
    """Create or update a status; None leaves that part unchanged (a new row: empty)."""
    await tx.execute(
        "INSERT INTO user_status (user_id, timestamp) VALUES (?, ?)"
        " ON CONFLICT (user_id) DO UPDATE SET timestamp = excluded.timestamp",
        (user_id, timestamp),
    )
    if status_text is not None:
        await tx.execute(
            "UPDATE user_status SET status_text = ? WHERE user_id = ?", (status_text, user_id)
        )
    if emoji is not None:
        await tx.execute(
            "UPDATE user_status SET emoji_name = ?, emoji_code = ?, reaction_type = ?"
            " WHERE user_id = ?",
            (*emoji, user_id),
        )

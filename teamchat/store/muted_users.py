"""Queries on muted users (one user hiding another's messages and notifications)."""

from __future__ import annotations

from teamchat.records import MutedUserRow
from teamchat.store.db import Conn, Tx


async def list_muted(conn: Conn, user_id: int) -> list[MutedUserRow]:
    """The users `user_id` muted, oldest mute first."""
    rows = await conn.fetchall(
        "SELECT user_id, muted_user_id, date_muted FROM muted_user WHERE user_id = ?"
        " ORDER BY date_muted, muted_user_id",
        (user_id,),
    )
    return [MutedUserRow(**dict(row)) for row in rows]


async def insert(tx: Tx, user_id: int, muted_user_id: int, date_muted: int) -> None:
    """Mute; raises IntegrityError if already muted."""
    await tx.execute(
        "INSERT INTO muted_user (user_id, muted_user_id, date_muted) VALUES (?, ?, ?)",
        (user_id, muted_user_id, date_muted),
    )


async def delete(tx: Tx, user_id: int, muted_user_id: int) -> bool:
    """Unmute; whether there was a mute."""
    count = await tx.execute_rowcount(
        "DELETE FROM muted_user WHERE user_id = ? AND muted_user_id = ?", (user_id, muted_user_id)
    )
    return count > 0


async def unread_ids_from(conn: Conn, user_id: int, sender_id: int) -> list[int]:
    """The user's unread messages sent by `sender_id`."""
    rows = await conn.fetchall(
        "SELECT um.message_id FROM user_message um JOIN message m ON m.id = um.message_id"
        " WHERE um.user_id = ? AND (um.flags & 1) = 0 AND m.sender_id = ?"
        " ORDER BY um.message_id",
        (user_id, sender_id),
    )
    return [int(row[0]) for row in rows]

"""Queries on pending email changes."""

from __future__ import annotations

from teamchat.store.db import Conn, Tx


async def replace_pending(tx: Tx, user_id: int, key: str, new_email: str, now: int) -> None:
    """Record a change, revoking the user's earlier pending ones."""
    await tx.execute("DELETE FROM email_change WHERE user_id = ?", (user_id,))
    await tx.execute(
        "INSERT INTO email_change (confirmation_key, user_id, new_email, created)"
        " VALUES (?, ?, ?, ?)",
        (key, user_id, new_email, now),
    )


async def get(conn: Conn, key: str) -> tuple[int, str, int] | None:
    """(user id, new email, created) of a pending change, or None."""
    row = await conn.fetchone(
        "SELECT user_id, new_email, created FROM email_change WHERE confirmation_key = ?", (key,)
    )
    return (int(row[0]), str(row[1]), int(row[2])) if row is not None else None


async def delete(tx: Tx, key: str) -> None:
    await tx.execute("DELETE FROM email_change WHERE confirmation_key = ?", (key,))

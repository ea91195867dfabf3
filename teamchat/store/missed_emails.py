"""Queries on pending missed-message emails."""

from __future__ import annotations

from collections.abc import Sequence

from teamchat.store.db import Conn, Tx


async def add(tx: Tx, rows: Sequence[tuple[int, int, str, int, str]]) -> None:
    """(user id, message id, trigger, due, realm URL) rows; a message is queued once per user."""
    await tx.executemany(
        "INSERT OR IGNORE INTO missed_message_email (user_id, message_id, trigger, due,"
        " realm_url) VALUES (?, ?, ?, ?, ?)",
        list(rows),
    )


async def users_due(conn: Conn, now: int) -> list[int]:
    rows = await conn.fetchall(
        "SELECT DISTINCT user_id FROM missed_message_email WHERE due <= ? ORDER BY user_id",
        (now,),
    )
    return [int(row[0]) for row in rows]


async def pending_for(conn: Conn, user_id: int) -> list[tuple[int, str, str]]:
    """(message id, trigger, realm URL) of what is queued for the user, oldest first."""
    rows = await conn.fetchall(
        "SELECT message_id, trigger, realm_url FROM missed_message_email WHERE user_id = ?"
        " ORDER BY message_id",
        (user_id,),
    )
    return [(int(row[0]), str(row[1]), str(row[2])) for row in rows]


async def claim(tx: Tx, user_id: int, message_ids: Sequence[int]) -> set[int]:
    """Forget the user's queued rows of `message_ids`; the ids this call removed (another
    server process on the same database may have taken some already)."""
    claimed: set[int] = set()
    ids = list(message_ids)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        rows = await tx.fetchall(
            f"DELETE FROM missed_message_email WHERE user_id = ? AND message_id IN ({marks})"
            " RETURNING message_id",
            (user_id, *chunk),
        )
        claimed.update(int(row[0]) for row in rows)
    return claimed

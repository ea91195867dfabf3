"""Queries on users' alert words (words that flag a message for them, `has_alert_word`)."""

from __future__ import annotations

from teamchat.store.db import Conn, Tx


async def list_words(conn: Conn, user_id: int) -> list[str]:
    """A user's alert words in the order they were added."""
    rows = await conn.fetchall(
        "SELECT word FROM alert_word WHERE user_id = ? ORDER BY id", (user_id,)
    )
    return [str(row[0]) for row in rows]


async def words_by_user(conn: Conn, user_ids: list[int] | None = None) -> dict[int, list[str]]:
    """Alert words of active users (or of `user_ids`), for rendering messages."""
    sql = "SELECT a.user_id, a.word FROM alert_word a JOIN users u ON u.id = a.user_id"
    params: tuple[object, ...] = ()
    if user_ids is not None:
        sql += f" WHERE a.user_id IN ({','.join('?' * len(user_ids))})"
        params = tuple(user_ids)
    else:
        sql += " WHERE u.is_active = 1"
    rows = await conn.fetchall(sql + " ORDER BY a.id", params)
    result: dict[int, list[str]] = {}
    for row in rows:
        result.setdefault(int(row[0]), []).append(str(row[1]))
    return result


async def add_words(tx: Tx, user_id: int, words: list[str]) -> None:
    """Insert words (exact duplicates are skipped)."""
    await tx.executemany(
        "INSERT OR IGNORE INTO alert_word (user_id, word) VALUES (?, ?)",
        [(user_id, word) for word in words],
    )


async def delete_words(tx: Tx, user_id: int, words: list[str]) -> None:
    """Delete exactly these words of the user."""
    await tx.executemany(
        "DELETE FROM alert_word WHERE user_id = ? AND word = ?", [(user_id, w) for w in words]
    )

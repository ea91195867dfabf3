"""Queries on bot storage: one user's string key-value pairs."""

from __future__ import annotations

from teamchat.store.db import Conn, Tx


async def get_entries(conn: Conn, user_id: int, keys: list[str] | None = None) -> dict[str, str]:
    """The user's entries (only `keys` when given; missing keys are simply absent)."""
    sql = "SELECT key, value FROM bot_storage WHERE user_id = ?"
    params: tuple[object, ...] = (user_id,)
    if keys is not None:
        sql += f" AND key IN ({','.join('?' * len(keys))})"
        params = (user_id, *keys)
    rows = await conn.fetchall(sql + " ORDER BY key", params)
    return {str(row[0]): str(row[1]) for row in rows}


async def total_size(conn: Conn, user_id: int) -> int:
    """Characters used by the user's keys and values together."""
    row = await conn.fetchone(
        "SELECT COALESCE(SUM(LENGTH(key) + LENGTH(value)), 0) FROM bot_storage WHERE user_id = ?",
        (user_id,),
    )
    return int(row[0]) if row is not None else 0


async def put_entries(tx: Tx, user_id: int, entries: dict[str, str]) -> None:
    """Insert or replace entries."""
    await tx.executemany(
        "INSERT INTO bot_storage (user_id, key, value) VALUES (?, ?, ?)"
        " ON CONFLICT (user_id, key) DO UPDATE SET value = excluded.value",
        [(user_id, key, value) for key, value in entries.items()],
    )


async def delete_entries(tx: Tx, user_id: int, keys: list[str] | None) -> None:
    """Delete `keys` (all of the user's entries when None)."""
    if keys is None:
        await tx.execute("DELETE FROM bot_storage WHERE user_id = ?", (user_id,))
        return
    await tx.executemany(
        "DELETE FROM bot_storage WHERE user_id = ? AND key = ?", [(user_id, k) for k in keys]
    )

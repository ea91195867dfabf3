"""Queries on the realm's default channels."""

from __future__ import annotations

from teamchat.store.db import Conn, Tx


async def list_default_stream_ids(conn: Conn, *, include_archived: bool = False) -> list[int]:
    """Default channel ids, sorted (archived channels left out unless asked for)."""
    archived = "" if include_archived else " WHERE s.is_archived = 0"
    rows = await conn.fetchall(
        "SELECT d.stream_id FROM default_stream d JOIN stream s ON s.id = d.stream_id"
        f"{archived} ORDER BY d.stream_id"
    )
    return [int(row[0]) for row in rows]


async def add_default_stream(tx: Tx, stream_id: int) -> None:
    """Make a channel a default channel (already default: no change)."""
    await tx.execute("INSERT OR IGNORE INTO default_stream (stream_id) VALUES (?)", (stream_id,))


async def remove_default_stream(tx: Tx, stream_id: int) -> None:
    """Stop a channel being a default channel."""
    await tx.execute("DELETE FROM default_stream WHERE stream_id = ?", (stream_id,))

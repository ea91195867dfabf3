"""Queries on custom emoji (realm_emoji) and their images (realm_emoji_image)."""

from __future__ import annotations

from teamchat.records import RealmEmojiRow
from teamchat.store.db import Conn, Row, Tx

_SELECT = (
    "SELECT e.id, e.name, e.file_name, e.content_type, e.author_id, e.date_created,"
    " e.deactivated, i.still IS NOT NULL AS has_still"
    " FROM realm_emoji e JOIN realm_emoji_image i ON i.emoji_id = e.id"
)


def _row(row: Row) -> RealmEmojiRow:
    data = dict(row)
    data["deactivated"] = bool(data["deactivated"])
    data["has_still"] = bool(data["has_still"])
    return RealmEmojiRow(**data)


async def insert(
    tx: Tx,
    *,
    name: str,
    file_name: str,
    content_type: str,
    author_id: int,
    date_created: int,
    data: bytes,
    still: bytes | None,
) -> int:
    """Insert an active emoji and its image; IntegrityError if an active one has `name`."""
    emoji_id = await tx.execute(
        "INSERT INTO realm_emoji (name, file_name, content_type, author_id, date_created)"
        " VALUES (?, ?, ?, ?, ?)",
        (name, file_name, content_type, author_id, date_created),
    )
    await tx.execute(
        "INSERT INTO realm_emoji_image (emoji_id, data, still) VALUES (?, ?, ?)",
        (emoji_id, data, still),
    )
    return emoji_id


async def get_realm_emoji_by_id(conn: Conn, emoji_id: int) -> RealmEmojiRow | None:
    """Return the emoji with this id, active or deactivated, or None."""
    row = await conn.fetchone(f"{_SELECT} WHERE e.id = ?", (emoji_id,))
    return _row(row) if row else None


async def get_active_realm_emoji_by_name(conn: Conn, name: str) -> RealmEmojiRow | None:
    """Return the active emoji called `name`, or None."""
    row = await conn.fetchone(f"{_SELECT} WHERE e.name = ? AND e.deactivated = 0", (name,))
    return _row(row) if row else None


async def get_realm_emoji_by_file_name(conn: Conn, file_name: str) -> RealmEmojiRow | None:
    """Return the emoji whose image is called `file_name`, or None."""
    row = await conn.fetchone(f"{_SELECT} WHERE e.file_name = ?", (file_name,))
    return _row(row) if row else None


async def list_realm_emoji(conn: Conn) -> list[RealmEmojiRow]:
    """Return every emoji, deactivated ones included, by id."""
    rows = await conn.fetchall(f"{_SELECT} ORDER BY e.id")
    return [_row(row) for row in rows]


async def deactivate(tx: Tx, emoji_id: int) -> bool:
    """Deactivate an active emoji; return False if it was not active."""
    count = await tx.execute_rowcount(
        "UPDATE realm_emoji SET deactivated = 1 WHERE id = ? AND deactivated = 0", (emoji_id,)
    )
    return count > 0


async def get_image(conn: Conn, emoji_id: int, *, still: bool) -> bytes | None:
    """Return the emoji's image bytes (or its still), or None if there is none."""
    column = "still" if still else "data"
    row = await conn.fetchone(
        f"SELECT {column} FROM realm_emoji_image WHERE emoji_id = ?", (emoji_id,)
    )
    return bytes(row[0]) if row and row[0] is not None else None

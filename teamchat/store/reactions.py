"""Queries on emoji reactions to messages."""

from __future__ import annotations

from collections.abc import Iterable

from teamchat.records import ReactionRow
from teamchat.store.db import Conn, Row, Tx

_COLUMNS = "message_id, user_id, emoji_name, emoji_code, reaction_type"


def _row(row: Row) -> ReactionRow:
    return ReactionRow(**dict(row))


async def list_reactions(conn: Conn, message_ids: Iterable[int]) -> dict[int, list[ReactionRow]]:
    """message id -> its reactions, oldest first."""
    ids = ",".join(str(int(m)) for m in message_ids) or "NULL"
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM reaction WHERE message_id IN ({ids}) ORDER BY id"
    )
    result: dict[int, list[ReactionRow]] = {}
    for row in rows:
        reaction = _row(row)
        result.setdefault(reaction.message_id, []).append(reaction)
    return result


async def find_reaction(
    conn: Conn, message_id: int, user_id: int, reaction_type: str, emoji_code: str
) -> ReactionRow | None:
    """The user's reaction with this emoji code on the message, or None."""
    row = await conn.fetchone(
        f"SELECT {_COLUMNS} FROM reaction WHERE message_id = ? AND user_id = ?"
        " AND reaction_type = ? AND emoji_code = ?",
        (message_id, user_id, reaction_type, emoji_code),
    )
    return _row(row) if row else None


async def find_any_reaction(
    conn: Conn, message_id: int, reaction_type: str, emoji_code: str
) -> ReactionRow | None:
    """Someone's reaction with this emoji (to reuse its name when others join in)."""
    row = await conn.fetchone(
        f"SELECT {_COLUMNS} FROM reaction WHERE message_id = ? AND reaction_type = ?"
        " AND emoji_code = ? ORDER BY id LIMIT 1",
        (message_id, reaction_type, emoji_code),
    )
    return _row(row) if row else None


async def insert(tx: Tx, reaction: ReactionRow) -> None:
    """Insert a reaction (the UNIQUE constraints refuse duplicates)."""
    await tx.execute(
        f"INSERT INTO reaction ({_COLUMNS}) VALUES (?, ?, ?, ?, ?)",
        (
            reaction.message_id,
            reaction.user_id,
            reaction.emoji_name,
            reaction.emoji_code,
            reaction.reaction_type,
        ),
    )


async def delete(tx: Tx, reaction: ReactionRow) -> None:
    """Delete a reaction."""
    await tx.execute(
        "DELETE FROM reaction WHERE message_id = ? AND user_id = ? AND reaction_type = ?"
        " AND emoji_code = ?",
        (reaction.message_id, reaction.user_id, reaction.reaction_type, reaction.emoji_code),
    )

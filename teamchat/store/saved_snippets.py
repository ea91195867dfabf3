"""Queries on saved snippets."""

from __future__ import annotations

from teamchat.records import SavedSnippetRow
from teamchat.store.db import Conn, Row, Tx

_COLUMNS = "id, user_id, title, content, date_created"


def _row(row: Row) -> SavedSnippetRow:
    return SavedSnippetRow(
        id=int(row[0]),
        user_id=int(row[1]),
        title=str(row[2]),
        content=str(row[3]),
        date_created=int(row[4]),
    )


async def list_snippets(conn: Conn, user_id: int) -> list[SavedSnippetRow]:
    """A user's snippets, oldest first."""
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM saved_snippet WHERE user_id = ? ORDER BY id", (user_id,)
    )
    return [_row(row) for row in rows]


async def get_snippet(conn: Conn, user_id: int, snippet_id: int) -> SavedSnippetRow | None:
    """One of the user's snippets, or None (other users' snippets are invisible)."""
    row = await conn.fetchone(
        f"SELECT {_COLUMNS} FROM saved_snippet WHERE id = ? AND user_id = ?",
        (snippet_id, user_id),
    )
    return _row(row) if row is not None else None


async def insert(tx: Tx, user_id: int, title: str, content: str, now: int) -> SavedSnippetRow:
    """Store a new snippet."""
    snippet_id = await tx.execute(
        "INSERT INTO saved_snippet (user_id, title, content, date_created) VALUES (?, ?, ?, ?)",
        (user_id, title, content, now),
    )
    return SavedSnippetRow(
        id=snippet_id, user_id=user_id, title=title, content=content, date_created=now
    )


async def update(tx: Tx, snippet: SavedSnippetRow) -> None:
    """Write a snippet's title and content."""
    await tx.execute(
        "UPDATE saved_snippet SET title = ?, content = ? WHERE id = ?",
        (snippet.title, snippet.content, snippet.id),
    )


async def delete(tx: Tx, snippet_id: int) -> None:
    """Delete a snippet."""
    await tx.execute("DELETE FROM saved_snippet WHERE id = ?", (snippet_id,))

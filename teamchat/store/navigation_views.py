"""Queries on navigation views (a user's left-sidebar view settings)."""

from __future__ import annotations

from teamchat.records import NavigationViewRow
from teamchat.store.db import Conn, Row, Tx

_COLUMNS = "user_id, fragment, is_pinned, name"


def _row(row: Row) -> NavigationViewRow:
    return NavigationViewRow(
        user_id=int(row[0]),
        fragment=str(row[1]),
        is_pinned=bool(row[2]),
        name=None if row[3] is None else str(row[3]),
    )


async def list_views(conn: Conn, user_id: int) -> list[NavigationViewRow]:
    """A user's navigation views, in the order they were added."""
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM navigation_view WHERE user_id = ? ORDER BY id", (user_id,)
    )
    return [_row(row) for row in rows]


async def get_view(conn: Conn, user_id: int, fragment: str) -> NavigationViewRow | None:
    """One of the user's views by fragment, or None."""
    row = await conn.fetchone(
        f"SELECT {_COLUMNS} FROM navigation_view WHERE user_id = ? AND fragment = ?",
        (user_id, fragment),
    )
    return _row(row) if row is not None else None


async def name_taken(conn: Conn, user_id: int, name: str) -> bool:
    """Whether another of the user's views already has this name."""
    row = await conn.fetchone(
        "SELECT 1 FROM navigation_view WHERE user_id = ? AND name = ?", (user_id, name)
    )
    return row is not None


async def insert(tx: Tx, view: NavigationViewRow) -> None:
    """Store a new view."""
    await tx.execute(
        "INSERT INTO navigation_view (user_id, fragment, is_pinned, name) VALUES (?, ?, ?, ?)",
        (view.user_id, view.fragment, int(view.is_pinned), view.name),
    )


async def update(tx: Tx, view: NavigationViewRow) -> None:
    """Write a view's pinned state and name."""
    await tx.execute(
        "UPDATE navigation_view SET is_pinned = ?, name = ? WHERE user_id = ? AND fragment = ?",
        (int(view.is_pinned), view.name, view.user_id, view.fragment),
    )


async def delete(tx: Tx, user_id: int, fragment: str) -> None:
    """Delete a view."""
    await tx.execute(
        "DELETE FROM navigation_view WHERE user_id = ? AND fragment = ?", (user_id, fragment)
    )

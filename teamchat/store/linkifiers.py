"""Queries on linkifiers (ordered) and code playgrounds."""

from __future__ import annotations

from teamchat.records import LinkifierRow, PlaygroundRow
from teamchat.store.db import Conn, Tx


async def list_linkifiers(conn: Conn) -> list[LinkifierRow]:
    """Linkifiers in the order they apply."""
    return list(await conn.memo("linkifier", "linkifiers", _read_linkifiers))


async def _read_linkifiers(conn: Conn) -> tuple[LinkifierRow, ...]:
    rows = await conn.fetchall(
        'SELECT id, pattern, url_template, "order" FROM linkifier ORDER BY "order", id'
    )
    return tuple(LinkifierRow(**dict(row)) for row in rows)


async def get_linkifier(conn: Conn, linkifier_id: int) -> LinkifierRow | None:
    """A linkifier by id, or None."""
    row = await conn.fetchone(
        'SELECT id, pattern, url_template, "order" FROM linkifier WHERE id = ?', (linkifier_id,)
    )
    return LinkifierRow(**dict(row)) if row else None


async def insert_linkifier(tx: Tx, *, pattern: str, url_template: str) -> int:
    """Add a linkifier after every existing one."""
    return await tx.execute(
        'INSERT INTO linkifier (pattern, url_template, "order") VALUES (?, ?,'
        ' (SELECT coalesce(max("order"), -1) + 1 FROM linkifier))',
        (pattern, url_template),
    )


async def update_linkifier(tx: Tx, linkifier_id: int, *, pattern: str, url_template: str) -> None:
    """Replace a linkifier's pattern and URL template (its position stays)."""
    await tx.execute(
        "UPDATE linkifier SET pattern = ?, url_template = ? WHERE id = ?",
        (pattern, url_template, linkifier_id),
    )


async def delete_linkifier(tx: Tx, linkifier_id: int) -> int:
    """Delete one linkifier; return how many rows went (0 or 1)."""
    return await tx.execute_rowcount("DELETE FROM linkifier WHERE id = ?", (linkifier_id,))


async def set_linkifier_order(tx: Tx, linkifier_ids: list[int]) -> None:
    """Number the linkifiers 0, 1, ... in the order of `linkifier_ids`."""
    await tx.executemany(
        'UPDATE linkifier SET "order" = ? WHERE id = ?',
        [(position, linkifier_id) for position, linkifier_id in enumerate(linkifier_ids)],
    )


async def list_playgrounds(conn: Conn) -> list[PlaygroundRow]:
    """Code playgrounds by id."""
    rows = await conn.fetchall(
        "SELECT id, name, pygments_language, url_template FROM playground ORDER BY id"
    )
    return [PlaygroundRow(**dict(row)) for row in rows]


async def get_playground(conn: Conn, playground_id: int) -> PlaygroundRow | None:
    """A code playground by id, or None."""
    row = await conn.fetchone(
        "SELECT id, name, pygments_language, url_template FROM playground WHERE id = ?",
        (playground_id,),
    )
    return PlaygroundRow(**dict(row)) if row else None


async def insert_playground(tx: Tx, *, name: str, pygments_language: str, url_template: str) -> int:
    """Add a code playground; a duplicate (language, name) raises IntegrityError."""
    return await tx.execute(
        "INSERT INTO playground (name, pygments_language, url_template) VALUES (?, ?, ?)",
        (name, pygments_language, url_template),
    )


async def delete_playground(tx: Tx, playground_id: int) -> None:
    """Delete a code playground."""
    await tx.execute("DELETE FROM playground WHERE id = ?", (playground_id,))

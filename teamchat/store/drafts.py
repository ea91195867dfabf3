"""Queries on drafts."""

from __future__ import annotations

import msgspec

from teamchat.records import DraftRow
from teamchat.store.db import Conn, Row, Tx

_COLUMNS = "id, user_id, type, to_ids, topic, content, timestamp"


def _row(row: Row) -> DraftRow:
    return DraftRow(
        id=int(row[0]),
        user_id=int(row[1]),
        type=str(row[2]),
        to=msgspec.json.decode(row[3], type=list[int]),
        topic=str(row[4]),
        content=str(row[5]),
        timestamp=int(row[6]),
    )


async def list_drafts(conn: Conn, user_id: int) -> list[DraftRow]:
    """A user's drafts, least recently edited first."""
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM draft WHERE user_id = ? ORDER BY timestamp, id", (user_id,)
    )
    return [_row(row) for row in rows]


async def get_draft(conn: Conn, user_id: int, draft_id: int) -> DraftRow | None:
    row = await conn.fetchone(
        f"SELECT {_COLUMNS} FROM draft WHERE id = ? AND user_id = ?", (draft_id, user_id)
    )
    return _row(row) if row is not None else None


def _values(draft: DraftRow) -> tuple[object, ...]:
    to = msgspec.json.encode(draft.to).decode()
    return (draft.type, to, draft.topic, draft.content, draft.timestamp)


async def insert(tx: Tx, draft: DraftRow) -> DraftRow:
    draft_id = await tx.execute(
        "INSERT INTO draft (user_id, type, to_ids, topic, content, timestamp)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (draft.user_id, *_values(draft)),
    )
    return msgspec.structs.replace(draft, id=draft_id)


async def update(tx: Tx, draft: DraftRow) -> None:
    await tx.execute(
        "UPDATE draft SET type = ?, to_ids = ?, topic = ?, content = ?, timestamp = ? WHERE id = ?",
        (*_values(draft), draft.id),
    )


async def delete(tx: Tx, draft_id: int) -> None:
    await tx.execute("DELETE FROM draft WHERE id = ?", (draft_id,))

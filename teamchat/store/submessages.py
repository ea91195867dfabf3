"""Queries on submessages (widget data attached to messages)."""

from __future__ import annotations

from collections.abc import Sequence

from teamchat.records import SubmessageRow
from teamchat.store.db import Conn, Row, Tx
from teamchat.store.messages import ids_sql

_COLUMNS = "id, message_id, sender_id, msg_type, content"


def _row(row: Row) -> SubmessageRow:
    return SubmessageRow(
        id=int(row[0]),
        message_id=int(row[1]),
        sender_id=int(row[2]),
        msg_type=str(row[3]),
        content=str(row[4]),
    )


async def for_messages(conn: Conn, message_ids: Sequence[int]) -> dict[int, list[SubmessageRow]]:
    """message id -> its submessages in the order they were added (messages without: absent)."""
    if not message_ids:
        return {}
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM submessage WHERE message_id IN ({ids_sql(message_ids)})"
        " ORDER BY id"
    )
    result: dict[int, list[SubmessageRow]] = {}
    for row in rows:
        submessage = _row(row)
        result.setdefault(submessage.message_id, []).append(submessage)
    return result


async def first_widget(conn: Conn, message_id: int) -> SubmessageRow | None:
    """The message's first `widget` submessage (the one that made it a widget), or None."""
    row = await conn.fetchone(
        f"SELECT {_COLUMNS} FROM submessage WHERE message_id = ? AND msg_type = 'widget'"
        " ORDER BY id LIMIT 1",
        (message_id,),
    )
    return _row(row) if row is not None else None


async def has_from(conn: Conn, message_id: int, sender_id: int) -> bool:
    """Whether `sender_id` has attached a submessage to the message."""
    row = await conn.fetchone(
        "SELECT 1 FROM submessage WHERE message_id = ? AND sender_id = ? LIMIT 1",
        (message_id, sender_id),
    )
    return row is not None


async def insert(
    tx: Tx, message_id: int, sender_id: int, msg_type: str, content: str
) -> SubmessageRow:
    """Attach a submessage to a message."""
    submessage_id = await tx.execute(
        "INSERT INTO submessage (message_id, sender_id, msg_type, content) VALUES (?, ?, ?, ?)",
        (message_id, sender_id, msg_type, content),
    )
    return SubmessageRow(
        id=submessage_id,
        message_id=message_id,
        sender_id=sender_id,
        msg_type=msg_type,
        content=content,
    )

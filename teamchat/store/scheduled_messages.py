"""Queries on scheduled messages and reminders (rows waiting for their delivery time)."""

from __future__ import annotations

import msgspec

from teamchat.records import ScheduledMessageRow
from teamchat.store.db import Conn, Row, Tx

_COLUMNS = (
    "id, sender_id, delivery_type, recipient_type, stream_id, to_user_ids, topic, content,"
    " rendered_content, scheduled_timestamp, read_by_sender, client, failed, failure_message,"
    " reminder_target_message_id, reminder_note, realm_url"
)
_INSERTED = _COLUMNS.removeprefix("id, ")


def _row(row: Row) -> ScheduledMessageRow:
    return ScheduledMessageRow(
        id=int(row[0]),
        sender_id=int(row[1]),
        delivery_type=str(row[2]),
        recipient_type=str(row[3]),
        stream_id=None if row[4] is None else int(row[4]),
        to_user_ids=msgspec.json.decode(row[5], type=list[int]) if row[5] else [],
        topic=str(row[6]),
        content=str(row[7]),
        rendered_content=str(row[8]),
        scheduled_timestamp=int(row[9]),
        read_by_sender=bool(row[10]),
        client=str(row[11]),
        failed=bool(row[12]),
        failure_message=None if row[13] is None else str(row[13]),
        reminder_target_message_id=None if row[14] is None else int(row[14]),
        reminder_note=None if row[15] is None else str(row[15]),
        realm_url=str(row[16]),
    )


def _values(s: ScheduledMessageRow) -> tuple[object, ...]:
    to_ids = msgspec.json.encode(s.to_user_ids).decode() if s.recipient_type == "private" else None
    return (
        s.sender_id, s.delivery_type, s.recipient_type, s.stream_id, to_ids, s.topic, s.content,
        s.rendered_content, s.scheduled_timestamp, int(s.read_by_sender), s.client,
        int(s.failed), s.failure_message, s.reminder_target_message_id, s.reminder_note,
        s.realm_url,
    )  # fmt: skip


async def list_for_sender(
    conn: Conn, sender_id: int, delivery_type: str
) -> list[ScheduledMessageRow]:
    """A user's undelivered scheduled messages (or reminders), soonest first."""
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM scheduled_message WHERE sender_id = ? AND delivery_type = ?"
        " ORDER BY scheduled_timestamp, id",
        (sender_id, delivery_type),
    )
    return [_row(row) for row in rows]


async def get_for_sender(
    conn: Conn, sender_id: int, scheduled_id: int, delivery_type: str
) -> ScheduledMessageRow | None:
    """One of the user's scheduled messages (or reminders), or None."""
    row = await conn.fetchone(
        f"SELECT {_COLUMNS} FROM scheduled_message"
        " WHERE id = ? AND sender_id = ? AND delivery_type = ?",
        (scheduled_id, sender_id, delivery_type),
    )
    return _row(row) if row is not None else None


async def get(conn: Conn, scheduled_id: int) -> ScheduledMessageRow | None:
    row = await conn.fetchone(
        f"SELECT {_COLUMNS} FROM scheduled_message WHERE id = ?", (scheduled_id,)
    )
    return _row(row) if row is not None else None


async def due_ids(conn: Conn, now: int, limit: int) -> list[int]:
    """Ids of rows due for delivery (not failed), oldest first."""
    rows = await conn.fetchall(
        "SELECT id FROM scheduled_message WHERE failed = 0 AND scheduled_timestamp <= ?"
        " ORDER BY scheduled_timestamp, id LIMIT ?",
        (now, limit),
    )
    return [int(row[0]) for row in rows]


async def insert(tx: Tx, scheduled: ScheduledMessageRow) -> ScheduledMessageRow:
    placeholders = ", ".join("?" * len(_INSERTED.split(",")))
    new_id = await tx.execute(
        f"INSERT INTO scheduled_message ({_INSERTED}) VALUES ({placeholders})", _values(scheduled)
    )
    return msgspec.structs.replace(scheduled, id=new_id)


async def update(tx: Tx, scheduled: ScheduledMessageRow) -> None:
    assignments = ", ".join(f"{name.strip()} = ?" for name in _INSERTED.split(","))
    await tx.execute(
        f"UPDATE scheduled_message SET {assignments} WHERE id = ?",
        (*_values(scheduled), scheduled.id),
    )


async def delete(tx: Tx, scheduled_id: int) -> bool:
    """Delete the row; False when it was gone already (another server process sent it)."""
    sql = "DELETE FROM scheduled_message WHERE id = ?"
    return await tx.execute_rowcount(sql, (scheduled_id,)) > 0

"""Queries for message retention: which messages are past their keeping period, and which
uploads only they linked."""

from __future__ import annotations

from collections.abc import Sequence

from teamchat.records import MessageRow
from teamchat.store.db import Conn, Tx
from teamchat.store.messages import ids_sql, list_messages


async def expired_in_recipient(
    conn: Conn, recipient_id: int, cutoff: int, limit: int
) -> list[MessageRow]:
    """Up to `limit` of a channel's or conversation's messages sent before `cutoff`."""
    rows = await conn.fetchall(
        "SELECT id FROM message WHERE recipient_id = ? AND date_sent < ? ORDER BY id LIMIT ?",
        (recipient_id, cutoff, limit),
    )
    return await list_messages(conn, [int(row[0]) for row in rows])


async def direct_recipients_with_messages_before(conn: Conn, cutoff: int) -> list[int]:
    """Direct-message conversations that have a message sent before `cutoff`."""
    rows = await conn.fetchall(
        "SELECT DISTINCT recipient_id FROM message WHERE stream_id IS NULL AND date_sent < ?",
        (cutoff,),
    )
    return [int(row[0]) for row in rows]


async def uploads_only_linked_by(conn: Conn, message_ids: Sequence[int]) -> list[tuple[int, int]]:
    """(attachment id, owner id) of uploads linked by these messages and by no other."""
    ids = ids_sql(message_ids)
    rows = await conn.fetchall(
        "SELECT a.id, a.owner_id FROM attachment a WHERE a.id IN"
        f" (SELECT attachment_id FROM attachment_message WHERE message_id IN ({ids}))"
        " AND NOT EXISTS (SELECT 1 FROM attachment_message o WHERE o.attachment_id = a.id"
        f" AND o.message_id NOT IN ({ids}))"
    )
    return [(int(row[0]), int(row[1])) for row in rows]


async def unlink_messages(tx: Tx, message_ids: Sequence[int]) -> None:
    """Forget which uploads deleted messages linked."""
    await tx.execute(f"DELETE FROM attachment_message WHERE message_id IN ({ids_sql(message_ids)})")

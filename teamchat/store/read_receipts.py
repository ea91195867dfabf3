"""Queries for read receipts: who has read a message."""

from __future__ import annotations

from teamchat.store.db import Conn


async def readers(conn: Conn, message_id: int, sender_id: int, viewer_id: int) -> list[int]:
    """Active users who read the message and share read receipts, except its sender and
    anyone muting the viewer or muted by them (Zulip's read_receipts query)."""
    rows = await conn.fetchall(
        "SELECT um.user_id FROM user_message um JOIN users u ON u.id = um.user_id"
        " WHERE um.message_id = ? AND (um.flags & 1) = 1 AND u.is_active = 1"
        " AND um.user_id != ?"
        " AND COALESCE(json_extract(u.settings_json, '$.send_read_receipts'), 1) != 0"
        " AND NOT EXISTS (SELECT 1 FROM muted_user m"
        "  WHERE m.user_id = um.user_id AND m.muted_user_id = ?)"
        " AND NOT EXISTS (SELECT 1 FROM muted_user m"
        "  WHERE m.user_id = ? AND m.muted_user_id = um.user_id)"
        " ORDER BY um.user_id",
        (message_id, sender_id, viewer_id, viewer_id),
    )
    return [int(row[0]) for row in rows]

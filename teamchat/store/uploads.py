"""Queries on uploaded files (attachments and their chunks) and uploaded avatars."""

from __future__ import annotations

from teamchat.records import AttachmentRow
from teamchat.store.db import Conn, Tx

_COLUMNS = "id, path_id, file_name, content_type, size, owner_id, create_time"


async def insert_attachment(
    tx: Tx,
    *,
    path_id: str,
    file_name: str,
    content_type: str,
    size: int,
    owner_id: int,
    create_time: int,
) -> int:
    return await tx.execute(
        "INSERT INTO attachment (path_id, file_name, content_type, size, owner_id, create_time)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (path_id, file_name, content_type, size, owner_id, create_time),
    )


async def insert_chunk(tx: Tx, attachment_id: int, seq: int, data: bytes) -> None:
    await tx.execute(
        "INSERT INTO attachment_chunk (attachment_id, seq, data) VALUES (?, ?, ?)",
        (attachment_id, seq, data),
    )


async def get_attachment_by_id(conn: Conn, attachment_id: int) -> AttachmentRow | None:
    row = await conn.fetchone(f"SELECT {_COLUMNS} FROM attachment WHERE id = ?", (attachment_id,))
    return AttachmentRow(**dict(row)) if row else None


async def get_attachment_by_path(conn: Conn, path_id: str) -> AttachmentRow | None:
    row = await conn.fetchone(f"SELECT {_COLUMNS} FROM attachment WHERE path_id = ?", (path_id,))
    return AttachmentRow(**dict(row)) if row else None


async def list_attachments(conn: Conn, owner_id: int) -> list[AttachmentRow]:
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM attachment WHERE owner_id = ? ORDER BY id", (owner_id,)
    )
    return [AttachmentRow(**dict(row)) for row in rows]


async def messages_by_attachment(
    conn: Conn, attachment_ids: list[int]
) -> dict[int, list[tuple[int, int]]]:
    """attachment id -> (message id, date sent) of the messages that link it."""
    if not attachment_ids:
        return {}
    marks = ",".join("?" * len(attachment_ids))
    rows = await conn.fetchall(
        "SELECT attachment_id, message_id, date_sent FROM attachment_message"
        f" WHERE attachment_id IN ({marks}) ORDER BY message_id",
        tuple(attachment_ids),
    )
    result: dict[int, list[tuple[int, int]]] = {}
    for row in rows:
        result.setdefault(int(row[0]), []).append((int(row[1]), int(row[2])))
    return result


async def upload_space_used(conn: Conn) -> int:
    row = await conn.fetchone("SELECT coalesce(sum(size), 0) FROM attachment")
    return int(row[0]) if row else 0


async def delete_attachment(tx: Tx, attachment_id: int) -> None:
    await tx.execute("DELETE FROM attachment WHERE id = ?", (attachment_id,))


async def get_chunk(conn: Conn, attachment_id: int, seq: int) -> bytes | None:
    row = await conn.fetchone(
        "SELECT data FROM attachment_chunk WHERE attachment_id = ? AND seq = ?",
        (attachment_id, seq),
    )
    return bytes(row[0]) if row else None


async def get_secret(conn: Conn, name: str) -> str | None:
    row = await conn.fetchone("SELECT value FROM server_secret WHERE name = ?", (name,))
    return str(row[0]) if row else None


async def insert_secret(tx: Tx, name: str, value: str) -> None:
    await tx.execute(
        "INSERT OR IGNORE INTO server_secret (name, value) VALUES (?, ?)", (name, value)
    )


async def get_avatar(conn: Conn, user_id: int) -> tuple[str, bytes] | None:
    row = await conn.fetchone(
        "SELECT content_type, data FROM user_avatar WHERE user_id = ?", (user_id,)
    )
    return (str(row[0]), bytes(row[1])) if row else None


async def set_avatar(tx: Tx, user_id: int, content_type: str, data: bytes) -> None:
    await tx.execute(
        "INSERT INTO user_avatar (user_id, content_type, data) VALUES (?, ?, ?)"
        " ON CONFLICT (user_id) DO UPDATE SET content_type = excluded.content_type,"
        " data = excluded.data",
        (user_id, content_type, data),
    )


async def delete_avatar(tx: Tx, user_id: int) -> None:
    await tx.execute("DELETE FROM user_avatar WHERE user_id = ?", (user_id,))


async def link_message(tx: Tx, attachment_id: int, message_id: int, date_sent: int) -> None:
    await tx.execute(
        "INSERT OR IGNORE INTO attachment_message (attachment_id, message_id, date_sent)"
        " VALUES (?, ?, ?)",
        (attachment_id, message_id, date_sent),
    )


async def user_received_linking_message(conn: Conn, attachment_id: int, user_id: int) -> bool:
    """Whether `user_id` has a message that links the upload (sent to or by them)."""
    row = await conn.fetchone(
        "SELECT EXISTS (SELECT 1 FROM attachment_message a JOIN user_message u"
        " ON u.message_id = a.message_id WHERE a.attachment_id = ? AND u.user_id = ?)",
        (attachment_id, user_id),
    )
    return bool(row and row[0])


async def linked_in_public_channel(conn: Conn, attachment_id: int) -> bool:
    """Whether a message in a public channel links the upload (its members may read it)."""
    row = await conn.fetchone(
        "SELECT EXISTS (SELECT 1 FROM attachment_message a JOIN message m ON m.id = a.message_id"
        " JOIN stream s ON s.id = m.stream_id WHERE a.attachment_id = ? AND s.invite_only = 0)",
        (attachment_id,),
    )
    return bool(row and row[0])

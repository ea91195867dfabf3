"""Queries that find upload bytes still kept in the database and empty them once they were
copied to the blob store (`teamchat admin move-uploads`). Metadata rows are never touched."""

from __future__ import annotations

from teamchat.store.db import Conn, Tx


async def attachments_with_chunks(
    conn: Conn, after_id: int, limit: int
) -> list[tuple[int, str, str]]:
    """(id, path_id, content type) of uploads whose bytes are in attachment_chunk, by id,
    after `after_id`."""
    rows = await conn.fetchall(
        "SELECT a.id, a.path_id, a.content_type FROM attachment a WHERE a.id > ? AND EXISTS"
        " (SELECT 1 FROM attachment_chunk c WHERE c.attachment_id = a.id)"
        " ORDER BY a.id LIMIT ?",
        (after_id, limit),
    )
    return [(int(row[0]), str(row[1]), str(row[2])) for row in rows]


async def drop_attachment_chunks(tx: Tx, attachment_id: int) -> None:
    await tx.execute("DELETE FROM attachment_chunk WHERE attachment_id = ?", (attachment_id,))


async def thumbnails_in_database(conn: Conn, limit: int) -> list[tuple[int, str, str, str]]:
    """(attachment id, upload path_id, format name, content type) of stored thumbnails."""
    rows = await conn.fetchall(
        "SELECT t.attachment_id, a.path_id, t.name, t.content_type FROM image_thumbnail t"
        " JOIN attachment a ON a.id = t.attachment_id WHERE length(t.data) > 0"
        " ORDER BY t.attachment_id, t.name LIMIT ?",
        (limit,),
    )
    return [(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]


async def thumbnail_bytes(conn: Conn, attachment_id: int, name: str) -> bytes:
    row = await conn.fetchone(
        "SELECT data FROM image_thumbnail WHERE attachment_id = ? AND name = ?",
        (attachment_id, name),
    )
    return bytes(row[0]) if row else b""


async def empty_thumbnail(tx: Tx, attachment_id: int, name: str) -> None:
    await tx.execute(
        "UPDATE image_thumbnail SET data = ? WHERE attachment_id = ? AND name = ?",
        (b"", attachment_id, name),
    )


async def avatars_in_database(conn: Conn) -> list[tuple[int, str]]:
    """(user id, content type) of uploaded avatars whose bytes are in user_avatar."""
    rows = await conn.fetchall(
        "SELECT user_id, content_type FROM user_avatar WHERE length(data) > 0 ORDER BY user_id"
    )
    return [(int(row[0]), str(row[1])) for row in rows]


async def empty_avatar(tx: Tx, user_id: int, data: bytes) -> bool:
    """Empty the avatar's bytes if they still are `data` (not replaced meanwhile)."""
    changed = await tx.execute_rowcount(
        "UPDATE user_avatar SET data = ? WHERE user_id = ? AND data = ?", (b"", user_id, data)
    )
    return changed == 1


async def emoji_in_database(conn: Conn) -> list[tuple[int, str, str]]:
    """(emoji id, file name, content type) of custom emoji whose images are in the database."""
    rows = await conn.fetchall(
        "SELECT e.id, e.file_name, e.content_type FROM realm_emoji e"
        " JOIN realm_emoji_image i ON i.emoji_id = e.id WHERE length(i.data) > 0 ORDER BY e.id"
    )
    return [(int(row[0]), str(row[1]), str(row[2])) for row in rows]


async def empty_emoji(tx: Tx, emoji_id: int) -> None:
    """Empty an emoji's image and still (a still stays non-NULL: it exists, in the store)."""
    await tx.execute(
        "UPDATE realm_emoji_image SET data = ?,"
        " still = CASE WHEN still IS NULL THEN still ELSE ? END WHERE emoji_id = ?",
        (b"", b"", emoji_id),
    )


async def exports_with_chunks(conn: Conn) -> list[tuple[int, str, str]]:
    """(id, secret, file name) of finished exports whose tarball is in the database."""
    rows = await conn.fetchall(
        "SELECT e.id, e.secret, e.file_name FROM realm_export e WHERE e.file_name IS NOT NULL"
        " AND EXISTS (SELECT 1 FROM realm_export_chunk c WHERE c.export_id = e.id) ORDER BY e.id"
    )
    return [(int(row[0]), str(row[1]), str(row[2])) for row in rows]


async def drop_export_chunks(tx: Tx, export_id: int) -> None:
    await tx.execute("DELETE FROM realm_export_chunk WHERE export_id = ?", (export_id,))

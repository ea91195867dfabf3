"""Queries on uploaded images (image_attachment) and their thumbnails (image_thumbnail)."""

from __future__ import annotations

from teamchat.records import ImageAttachmentRow
from teamchat.store.db import Conn, Tx

_COLUMNS = (
    "i.attachment_id, a.path_id, i.content_type, i.width, i.height, i.frames, i.state,"
    " (SELECT group_concat(t.name, ' ') FROM image_thumbnail t"
    "  WHERE t.attachment_id = i.attachment_id) AS names"
)
_FROM = "image_attachment i JOIN attachment a ON a.id = i.attachment_id"


def _row(row: object) -> ImageAttachmentRow:
    values = dict(row)  # type: ignore[call-overload]
    names = values.pop("names") or ""
    return ImageAttachmentRow(**values, thumbnail_names=tuple(sorted(names.split())))


async def insert_image(
    tx: Tx, attachment_id: int, *, content_type: str, width: int, height: int, frames: int
) -> None:
    await tx.execute(
        "INSERT INTO image_attachment (attachment_id, content_type, width, height, frames)"
        " VALUES (?, ?, ?, ?, ?)",
        (attachment_id, content_type, width, height, frames),
    )


async def get_image(conn: Conn, attachment_id: int) -> ImageAttachmentRow | None:
    row = await conn.fetchone(
        f"SELECT {_COLUMNS} FROM {_FROM} WHERE i.attachment_id = ?", (attachment_id,)
    )
    return _row(row) if row else None


async def images_by_path(conn: Conn, path_ids: list[str]) -> dict[str, ImageAttachmentRow]:
    """path_id -> image, for the uploads among `path_ids` that are images."""
    if not path_ids:
        return {}
    marks = ",".join("?" * len(path_ids))
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM {_FROM} WHERE a.path_id IN ({marks})", tuple(path_ids)
    )
    return {image.path_id: image for image in map(_row, rows)}


async def list_pending(conn: Conn) -> list[int]:
    """Ids of the images whose thumbnails are still to be made (after a restart)."""
    rows = await conn.fetchall(
        "SELECT attachment_id FROM image_attachment WHERE state = 'pending' ORDER BY attachment_id"
    )
    return [int(row[0]) for row in rows]


async def insert_thumbnail(
    tx: Tx, attachment_id: int, *, name: str, content_type: str, width: int, height: int,
    data: bytes,
) -> None:  # fmt: skip
    await tx.execute(
        "INSERT INTO image_thumbnail"
        " (attachment_id, name, content_type, width, height, data) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (attachment_id, name) DO UPDATE SET content_type = excluded.content_type,"
        " width = excluded.width, height = excluded.height, data = excluded.data",
        (attachment_id, name, content_type, width, height, data),
    )


async def set_state(tx: Tx, attachment_id: int, state: str) -> None:
    await tx.execute(
        "UPDATE image_attachment SET state = ? WHERE attachment_id = ?", (state, attachment_id)
    )


async def get_thumbnail(conn: Conn, attachment_id: int, name: str) -> tuple[str, bytes] | None:
    """(content type, bytes) of one thumbnail."""
    row = await conn.fetchone(
        "SELECT content_type, data FROM image_thumbnail WHERE attachment_id = ? AND name = ?",
        (attachment_id, name),
    )
    return (str(row[0]), bytes(row[1])) if row else None


async def linking_message_ids(conn: Conn, attachment_id: int) -> list[int]:
    """Ids of the messages that link the upload."""
    rows = await conn.fetchall(
        "SELECT message_id FROM attachment_message WHERE attachment_id = ? ORDER BY message_id",
        (attachment_id,),
    )
    return [int(row[0]) for row in rows]


async def list_backfill(conn: Conn, limit: int) -> list[int]:
    """Uploads from before thumbnails that were not looked at yet, oldest first."""
    rows = await conn.fetchall(
        "SELECT attachment_id FROM image_backfill ORDER BY attachment_id LIMIT ?", (limit,)
    )
    return [int(row[0]) for row in rows]


async def delete_backfill(tx: Tx, attachment_id: int) -> bool:
    """Take the upload off the backfill list; False when another process took it first."""
    deleted = await tx.execute_rowcount(
        "DELETE FROM image_backfill WHERE attachment_id = ?", (attachment_id,)
    )
    return deleted > 0

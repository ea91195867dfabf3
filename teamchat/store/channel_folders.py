"""Queries on channel folders (the order channels are grouped in, in the left sidebar)."""

from __future__ import annotations

from teamchat.records import ChannelFolderRow
from teamchat.store.db import Conn, Row, Tx

_COLUMNS = (
    'id, name, description, rendered_description, "order", date_created, creator_id, is_archived'
)


def _row(row: Row) -> ChannelFolderRow:
    data = dict(row)
    data["is_archived"] = bool(data["is_archived"])
    return ChannelFolderRow(**data)


async def get_channel_folder(conn: Conn, folder_id: int) -> ChannelFolderRow | None:
    """A channel folder by id, or None."""
    row = await conn.fetchone(f"SELECT {_COLUMNS} FROM channel_folder WHERE id = ?", (folder_id,))
    return _row(row) if row else None


async def get_channel_folder_by_name(conn: Conn, name: str) -> ChannelFolderRow | None:
    """A folder whose name equals `name` ignoring case."""
    row = await conn.fetchone(
        f"SELECT {_COLUMNS} FROM channel_folder WHERE name = ? COLLATE NOCASE", (name,)
    )
    return _row(row) if row else None


async def list_channel_folders(
    conn: Conn, *, include_archived: bool = True
) -> list[ChannelFolderRow]:
    """Folders in their display order (then by id)."""
    where = "" if include_archived else "WHERE is_archived = 0"
    rows = await conn.fetchall(
        f'SELECT {_COLUMNS} FROM channel_folder {where} ORDER BY "order", id'
    )
    return [_row(row) for row in rows]


async def insert(
    tx: Tx,
    *,
    name: str,
    description: str,
    rendered_description: str,
    date_created: int,
    creator_id: int | None,
) -> int:
    """Add a folder after every existing one."""
    return await tx.execute(
        'INSERT INTO channel_folder (name, description, rendered_description, "order",'
        " date_created, creator_id) VALUES (?, ?, ?,"
        ' (SELECT coalesce(max("order"), -1) + 1 FROM channel_folder), ?, ?)',
        (name, description, rendered_description, date_created, creator_id),
    )


async def update(tx: Tx, folder_id: int, **fields: object) -> None:
    """Set name, description, rendered_description or is_archived of one folder."""
    allowed = {"name", "description", "rendered_description", "is_archived"}
    assert fields and set(fields) <= allowed, fields
    assignments = ", ".join(f"{name} = ?" for name in fields)
    await tx.execute(
        f"UPDATE channel_folder SET {assignments} WHERE id = ?", (*fields.values(), folder_id)
    )


async def set_order(tx: Tx, folder_ids: list[int]) -> None:
    """Number the folders 0, 1, ... in the order of `folder_ids`."""
    await tx.executemany(
        'UPDATE channel_folder SET "order" = ? WHERE id = ?',
        [(position, folder_id) for position, folder_id in enumerate(folder_ids)],
    )

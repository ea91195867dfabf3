"""Queries on API-requested organization exports (realm_export) and their tarballs' bytes."""

from __future__ import annotations

from teamchat.records import EmailVisibility, RealmExportRow, Role
from teamchat.store.db import Conn, Row, Tx

_COLUMNS = (
    "id, acting_user_id, export_type, status, date_requested, date_succeeded, date_failed, "
    "date_deleted, realm_url, secret, file_name, size"
)
# Zulip's RealmExport.status values.
REQUESTED, STARTED, SUCCEEDED, FAILED, DELETED = 1, 2, 3, 4, 5


def _row(row: Row) -> RealmExportRow:
    return RealmExportRow(**dict(zip(_COLUMNS.split(", "), row, strict=True)))


async def insert(
    tx: Tx, *, acting_user_id: int, export_type: int, now: int, realm_url: str, secret: str
) -> int:
    """Record a requested export; return its id."""
    return await tx.execute(
        "INSERT INTO realm_export (acting_user_id, export_type, status, date_requested,"
        " realm_url, secret) VALUES (?, ?, ?, ?, ?, ?)",
        (acting_user_id, export_type, REQUESTED, now, realm_url, secret),
    )


async def get(conn: Conn, export_id: int) -> RealmExportRow | None:
    """One export, or None."""
    row = await conn.fetchone(f"SELECT {_COLUMNS} FROM realm_export WHERE id = ?", (export_id,))
    return None if row is None else _row(row)


async def get_by_secret(conn: Conn, secret: str) -> RealmExportRow | None:
    """The export served under `secret`, or None."""
    row = await conn.fetchone(f"SELECT {_COLUMNS} FROM realm_export WHERE secret = ?", (secret,))
    return None if row is None else _row(row)


async def list_all(conn: Conn) -> list[RealmExportRow]:
    """Every export, oldest first."""
    rows = await conn.fetchall(f"SELECT {_COLUMNS} FROM realm_export ORDER BY id")
    return [_row(row) for row in rows]


async def count_requested_since(conn: Conn, since: int) -> int:
    """How many exports were requested at or after `since`."""
    row = await conn.fetchone(
        "SELECT COUNT(*) FROM realm_export WHERE date_requested >= ?", (since,)
    )
    return int(row[0]) if row else 0


async def update_status(tx: Tx, export_id: int, status: int) -> None:
    """Set the status of an export."""
    await tx.execute("UPDATE realm_export SET status = ? WHERE id = ?", (status, export_id))


async def mark_succeeded(tx: Tx, export_id: int, *, now: int, file_name: str, size: int) -> None:
    """An export's tarball is stored."""
    await tx.execute(
        "UPDATE realm_export SET status = ?, date_succeeded = ?, file_name = ?, size = ?"
        " WHERE id = ?",
        (SUCCEEDED, now, file_name, size, export_id),
    )


async def mark_failed(tx: Tx, export_id: int, now: int) -> None:
    """An export could not be made (any part of its tarball stored is dropped)."""
    await tx.execute("DELETE FROM realm_export_chunk WHERE export_id = ?", (export_id,))
    await tx.execute(
        "UPDATE realm_export SET status = ?, date_failed = ? WHERE id = ?",
        (FAILED, now, export_id),
    )


async def fail_unfinished(tx: Tx, now: int) -> int:
    """Mark every requested or started export failed; return how many there were."""
    await tx.execute(
        "DELETE FROM realm_export_chunk WHERE export_id IN"
        " (SELECT id FROM realm_export WHERE status IN (?, ?))",
        (REQUESTED, STARTED),
    )
    return await tx.execute_rowcount(
        "UPDATE realm_export SET status = ?, date_failed = ? WHERE status IN (?, ?)",
        (FAILED, now, REQUESTED, STARTED),
    )


async def mark_deleted(tx: Tx, export_id: int, now: int) -> None:
    """Drop an export's tarball and mark it deleted."""
    await tx.execute("DELETE FROM realm_export_chunk WHERE export_id = ?", (export_id,))
    await tx.execute(
        "UPDATE realm_export SET status = ?, date_deleted = ? WHERE id = ?",
        (DELETED, now, export_id),
    )


async def insert_chunk(tx: Tx, export_id: int, seq: int, data: bytes) -> None:
    """Store one piece of an export's tarball."""
    await tx.execute(
        "INSERT INTO realm_export_chunk (export_id, seq, data) VALUES (?, ?, ?)",
        (export_id, seq, data),
    )


async def get_chunk(conn: Conn, export_id: int, seq: int) -> bytes | None:
    """Piece `seq` of an export's tarball, or None past the end."""
    row = await conn.fetchone(
        "SELECT data FROM realm_export_chunk WHERE export_id = ? AND seq = ?", (export_id, seq)
    )
    return bytes(row[0]) if row else None


async def human_admin_ids(conn: Conn) -> list[int]:
    """Active administrators and owners who are not bots: who hears about exports."""
    rows = await conn.fetchall(
        "SELECT id FROM users WHERE role IN (?, ?) AND is_active = 1 AND is_bot = 0 ORDER BY id",
        (int(Role.OWNER), int(Role.ADMINISTRATOR)),
    )
    return [int(row[0]) for row in rows]


async def export_consents(conn: Conn) -> list[tuple[int, bool]]:
    """(user id, allow_private_data_export) of every active human user."""
    rows = await conn.fetchall(
        "SELECT id, coalesce(json_extract(settings_json, '$.allow_private_data_export'), 0)"
        " FROM users WHERE is_active = 1 AND is_bot = 0 ORDER BY id"
    )
    return [(int(row[0]), bool(row[1])) for row in rows]


async def owners_for_exports(conn: Conn) -> tuple[int, int]:
    """(owners consenting to private data exports, owners whose email administrators see)
    among active human owners."""
    row = await conn.fetchone(
        "SELECT coalesce(sum(CASE WHEN coalesce(json_extract(settings_json,"
        " '$.allow_private_data_export'), 0) != 0 THEN 1 ELSE 0 END), 0),"
        " coalesce(sum(CASE WHEN email_address_visibility != ? THEN 1 ELSE 0 END), 0)"
        " FROM users WHERE role = ? AND is_active = 1 AND is_bot = 0",
        (int(EmailVisibility.NOBODY), int(Role.OWNER)),
    )
    return (int(row[0]), int(row[1])) if row else (0, 0)

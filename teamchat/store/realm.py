"""Queries on the realm table: the one organization this database holds."""

from __future__ import annotations

from teamchat.records import RealmRow
from teamchat.store.db import Conn, Row, Tx

_COLUMNS = (
    "id, string_id, name, description, rendered_description, host, date_created, settings_json,"
    " deactivated"
)


def _row(row: Row) -> RealmRow:
    data = dict(row)
    data["deactivated"] = bool(data["deactivated"])
    return RealmRow(**data)


async def is_deactivated(conn: Conn) -> bool:
    """Whether the organization is deactivated (a fresh database's is not)."""
    realm = await get_realm(conn)
    return realm is not None and realm.deactivated


async def set_deactivated(tx: Tx, realm_id: int, deactivated: bool) -> None:
    await tx.execute("UPDATE realm SET deactivated = ? WHERE id = ?", (int(deactivated), realm_id))


async def get_realm(conn: Conn) -> RealmRow | None:
    """The organization, or None in a fresh database."""
    return await conn.memo("realm", "realm", _read_realm)


async def _read_realm(conn: Conn) -> RealmRow | None:
    row = await conn.fetchone(f"SELECT {_COLUMNS} FROM realm ORDER BY id LIMIT 1")
    return _row(row) if row else None


async def insert(tx: Tx, *, name: str, description: str, host: str, date_created: int) -> int:
    return await tx.execute(
        "INSERT INTO realm (name, description, host, date_created) VALUES (?, ?, ?, ?)",
        (name, description, host, date_created),
    )


async def update_settings_json(tx: Tx, realm_id: int, settings_json: str) -> None:
    await tx.execute("UPDATE realm SET settings_json = ? WHERE id = ?", (settings_json, realm_id))


async def update_name_description(
    tx: Tx, realm_id: int, *, name: str, description: str, rendered_description: str
) -> None:
    await tx.execute(
        "UPDATE realm SET name = ?, description = ?, rendered_description = ? WHERE id = ?",
        (name, description, rendered_description, realm_id),
    )

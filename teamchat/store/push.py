"""Queries on client devices (with their E2EE push registration) and legacy push tokens."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from teamchat.records import ClientDeviceRow, LegacyPushTokenRow
from teamchat.store.db import Conn, Row, Tx
from teamchat.store.messages import ids_sql

_DEVICE_COLUMNS = (
    "id, user_id, date_created, push_key_id, push_key, token_kind, token_id,"
    " bouncer_public_key, encrypted_push_registration, push_updated"
)


def _device(row: Row) -> ClientDeviceRow:
    return ClientDeviceRow(**dict(row))


async def insert_device(tx: Tx, user_id: int, now: int) -> int:
    """Register a client device for `user_id`; return its id."""
    return await tx.execute(
        "INSERT INTO client_device (user_id, date_created) VALUES (?, ?)", (user_id, now)
    )


async def get_device(conn: Conn, user_id: int, device_id: int) -> ClientDeviceRow | None:
    """`user_id`'s device `device_id` (another user's device is not found)."""
    row = await conn.fetchone(
        f"SELECT {_DEVICE_COLUMNS} FROM client_device WHERE id = ? AND user_id = ?",
        (device_id, user_id),
    )
    return _device(row) if row else None


async def list_devices(conn: Conn, user_id: int) -> list[ClientDeviceRow]:
    """A user's client devices by id."""
    rows = await conn.fetchall(
        f"SELECT {_DEVICE_COLUMNS} FROM client_device WHERE user_id = ? ORDER BY id", (user_id,)
    )
    return [_device(row) for row in rows]


async def update_push_key(
    tx: Tx, device_id: int, *, push_key_id: int, push_key: bytes, now: int
) -> None:
    """Store a device's E2EE push key."""
    await tx.execute(
        "UPDATE client_device SET push_key_id = ?, push_key = ?, push_updated = ? WHERE id = ?",
        (push_key_id, push_key, now, device_id),
    )


async def update_token(
    tx: Tx,
    device_id: int,
    *,
    token_kind: str,
    token_id: bytes,
    bouncer_public_key: str,
    encrypted_push_registration: str,
    now: int,
) -> None:
    """Store a device's push token registration (encrypted for the push service)."""
    await tx.execute(
        "UPDATE client_device SET token_kind = ?, token_id = ?, bouncer_public_key = ?,"
        " encrypted_push_registration = ?, push_updated = ? WHERE id = ?",
        (token_kind, token_id, bouncer_public_key, encrypted_push_registration, now, device_id),
    )


async def list_legacy_tokens(conn: Conn, user_id: int) -> list[LegacyPushTokenRow]:
    """A user's legacy (non-E2EE) push tokens."""
    rows = await conn.fetchall(
        "SELECT id, user_id, kind, token, ios_app_id, date_created FROM push_token"
        " WHERE user_id = ? ORDER BY id",
        (user_id,),
    )
    return [LegacyPushTokenRow(**dict(row)) for row in rows]


async def upsert_legacy_token(
    tx: Tx, user_id: int, kind: str, token: str, ios_app_id: str | None, now: int
) -> None:
    """Add a legacy push token (re-registering one updates its app id)."""
    await tx.execute(
        "INSERT INTO push_token (user_id, kind, token, ios_app_id, date_created)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, kind, token)"
        " DO UPDATE SET ios_app_id = excluded.ios_app_id",
        (user_id, kind, token, ios_app_id, now),
    )


async def delete_legacy_token(tx: Tx, user_id: int, kind: str, token: str) -> int:
    """Remove one legacy token; return how many rows went (0 or 1)."""
    return await tx.execute_rowcount(
        "DELETE FROM push_token WHERE user_id = ? AND kind = ? AND token = ?",
        (user_id, kind, token),
    )


async def delete_legacy_tokens_by_id(tx: Tx, token_row_ids: list[int]) -> None:
    """Remove legacy push tokens by row id."""
    await tx.executemany(
        "DELETE FROM push_token WHERE id = ?", [(row_id,) for row_id in token_row_ids]
    )


async def clear_push_registrations(tx: Tx, device_ids: list[int]) -> None:
    """Forget the push key and token of devices the push service no longer reaches."""
    await tx.executemany(
        "UPDATE client_device SET push_key_id = NULL, push_key = NULL, token_kind = NULL,"
        " token_id = NULL, bouncer_public_key = NULL, encrypted_push_registration = NULL"
        " WHERE id = ?",
        [(device_id,) for device_id in device_ids],
    )


async def add_active_notifications(tx: Tx, rows: Sequence[tuple[int, int, str]]) -> None:
    """(user id, message id, realm URL): a notification about the message is showing."""
    await tx.executemany(
        "INSERT OR IGNORE INTO active_push_notification (user_id, message_id, realm_url)"
        " VALUES (?, ?, ?)",
        list(rows),
    )


async def pop_active_notifications(
    tx: Tx, message_ids: Sequence[int], user_id: int | None = None
) -> dict[tuple[int, str], list[int]]:
    """Forget the showing notifications about these messages (only `user_id`'s when given);
    return their message ids by (user id, the realm URL they named). Only those this
    statement removed: another transaction that removed them first (a second process
    deleting the same message) sends the notices, not this one."""
    params: tuple[int, ...]
    where, params = "", ()
    if user_id is not None:
        where, params = " AND user_id = ?", (user_id,)
    rows = await tx.fetchall(
        "DELETE FROM active_push_notification"
        f" WHERE message_id IN ({ids_sql(message_ids)}){where}"
        " RETURNING user_id, message_id, realm_url",
        params,
    )
    found: dict[tuple[int, str], list[int]] = {}
    for row in sorted(rows, key=lambda row: (int(row[0]), int(row[1]))):
        found.setdefault((int(row[0]), str(row[2])), []).append(int(row[1]))
    return found


async def users_with_push_devices(conn: Conn, user_ids: Iterable[int]) -> set[int]:
    """Those of the users with at least one device whose push key and token are registered."""
    rows = await conn.fetchall(
        "SELECT DISTINCT user_id FROM client_device WHERE push_key IS NOT NULL"
        f" AND token_id IS NOT NULL AND user_id IN ({ids_sql(user_ids)})"
    )
    return {int(row[0]) for row in rows}

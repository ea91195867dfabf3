"""Queries on user presence: one row per user and a realm-wide, strictly increasing update id."""

from __future__ import annotations

from teamchat.records import PresenceRow
from teamchat.store.db import Conn, Tx

_COLUMNS = "p.user_id, p.last_active_time, p.last_connected_time, p.last_update_id"


async def get_presence(conn: Conn, user_id: int) -> PresenceRow | None:
    """A user's presence row, or None if they never reported any."""
    row = await conn.fetchone(
        f"SELECT {_COLUMNS} FROM user_presence p WHERE user_id = ?", (user_id,)
    )
    return PresenceRow(**dict(row)) if row else None


async def next_update_id(tx: Tx) -> int:
    """Take the next presence update id (Zulip's PresenceSequence)."""
    await tx.execute(
        "UPDATE presence_sequence SET last_update_id = last_update_id + 1 WHERE id = 1"
    )
    row = await tx.fetchone("SELECT last_update_id FROM presence_sequence WHERE id = 1")
    assert row is not None
    return int(row[0])


async def upsert(
    tx: Tx,
    user_id: int,
    *,
    last_active_time: int | None,
    last_connected_time: int | None,
    last_update_id: int,
) -> None:
    """Create or replace a user's presence row."""
    await tx.execute(
        "INSERT INTO user_presence (user_id, last_active_time, last_connected_time,"
        " last_update_id) VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET"
        " last_active_time = excluded.last_active_time,"
        " last_connected_time = excluded.last_connected_time,"
        " last_update_id = excluded.last_update_id",
        (user_id, last_active_time, last_connected_time, last_update_id),
    )


async def list_presences(
    conn: Conn, *, connected_since: int | None, after_update_id: int | None
) -> list[PresenceRow]:
    """Presence of active human users, newer than `after_update_id` and/or connected since."""
    clauses = ["u.is_active = 1", "u.is_bot = 0"]
    params: list[object] = []
    if after_update_id is not None:
        clauses.append("p.last_update_id > ?")
        params.append(after_update_id)
    if connected_since is not None:
        clauses.append("p.last_connected_time >= ?")
        params.append(connected_since)
    rows = await conn.fetchall_tuples(
        f"SELECT {_COLUMNS} FROM user_presence p JOIN users u ON u.id = p.user_id"
        f" WHERE {' AND '.join(clauses)} ORDER BY p.user_id",
        tuple(params),
    )
    return [
        PresenceRow(
            user_id=row[0], last_active_time=row[1], last_connected_time=row[2],
            last_update_id=row[3],
        )
        for row in rows
    ]  # fmt: skip

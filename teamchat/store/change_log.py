"""The change log: events that processes without live queues (the CLI) leave for the
running server processes, each of which publishes the rows after its own cursor. Rows are
dropped by age only (several processes may read them). Rows, not meaning: the store does not
know what an event is.
"""

from __future__ import annotations

from teamchat.records import ChangeLogRow
from teamchat.store.db import Conn, Row, Tx

_COLUMNS = "id, kind, payload_json, audience_json, created_at"
# Rows are dropped after this long (every running server has published them by then).
STALE_AFTER_SECS = 3600.0


def _row(row: Row) -> ChangeLogRow:
    return ChangeLogRow(
        id=int(row[0]),
        kind=str(row[1]),
        payload_json=str(row[2]),
        audience_json=str(row[3]),
        created_at=float(row[4]),
    )


async def append(tx: Tx, entries: list[tuple[str, str, str]], now: float) -> None:
    """Append (kind, payload_json, audience_json) entries; drop stale rows."""
    await tx.execute("DELETE FROM change_log WHERE created_at < ?", (now - STALE_AFTER_SECS,))
    await tx.executemany(
        "INSERT INTO change_log (kind, payload_json, audience_json, created_at) "
        "VALUES (?, ?, ?, ?)",
        [(kind, payload, audience, now) for kind, payload, audience in entries],
    )


async def list_after(conn: Conn, after_id: int, limit: int = 1000) -> list[ChangeLogRow]:
    """Rows with an id above `after_id`, oldest first."""
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM change_log WHERE id > ? ORDER BY id LIMIT ?", (after_id, limit)
    )
    return [_row(row) for row in rows]


async def last_id(conn: Conn) -> int:
    """The newest row's id (0 when empty)."""
    row = await conn.fetchone("SELECT coalesce(max(id), 0) FROM change_log")
    return int(row[0]) if row is not None else 0

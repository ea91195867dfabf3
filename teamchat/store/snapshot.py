"""One consistent, read-only view of a whole database, for copies that take a while (a move
to the other backend, a backup of a PostgreSQL database, an export): SQLite's read
transaction on a read-only connection (one WAL snapshot), PostgreSQL's REPEATABLE READ
READ ONLY transaction. Opened without migrating anything: a copy reads the database as it is,
and says so when its schema is not this version's.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from teamchat.lib.db_url import is_database_url, redact
from teamchat.store.conn import Conn
from teamchat.store.db import BUSY_TIMEOUT_MS, SqliteConn
from teamchat.store.migrations import APPLICATION_ID, NotOurDatabaseError, check_application_id


@dataclass(frozen=True)
class Snapshot:
    conn: Conn  # every read through it sees the same committed state
    version: int  # the schema version (the last migration step applied)
    where: str  # the file, or the URL without its password
    backend: str  # "sqlite" or "postgresql"


def _pg_snapshots() -> Any:
    from teamchat.store.backends import MissingDriverError

    try:
        from teamchat.store.pg import snapshot
    except ImportError as exc:
        raise MissingDriverError(
            f"PostgreSQL needs the optional driver: pip install 'teamchat[postgresql]' ({exc})"
        ) from None
    return snapshot


async def other_connections(url: str) -> int:
    """How many other sessions use the PostgreSQL database `url` (running servers hold some)."""
    return int(await _pg_snapshots().other_sessions(url))


@asynccontextmanager
async def open_snapshot(target: str | Path) -> AsyncIterator[Snapshot]:
    """A snapshot of the database `target` names (a file or a postgresql:// URL); raises
    NotOurDatabaseError for something that is not a teamchat database, MissingDriverError
    (store.backends) without the PostgreSQL driver, the store's errors when unreachable."""
    if is_database_url(target):
        async with _pg_snapshots().open_pg_snapshot(str(target)) as (conn, version):
            yield Snapshot(conn, version, redact(str(target)), "postgresql")
        return
    path = Path(target)
    if not path.is_file() or path.stat().st_size == 0:
        raise NotOurDatabaseError(f"no teamchat database at {path}")
    check_application_id(path)
    sqlite = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
    try:
        try:
            sqlite.row_factory = sqlite3.Row
            sqlite.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            sqlite.execute("BEGIN")
            # The snapshot starts at the first read, not at BEGIN: read now.
            app_id, version = sqlite.execute(
                "SELECT a.application_id, v.user_version"
                " FROM pragma_application_id a, pragma_user_version v"
            ).fetchone()
        except sqlite3.Error as exc:
            raise NotOurDatabaseError(f"{path} cannot be read: {exc}") from None
        if app_id != APPLICATION_ID:
            raise NotOurDatabaseError(f"{path} is not a teamchat database")
        yield Snapshot(SqliteConn(sqlite), int(version), str(path), "sqlite")
    finally:
        if sqlite.in_transaction:
            sqlite.execute("COMMIT")
        sqlite.close()


__all__ = ["Snapshot", "open_snapshot", "other_connections"]

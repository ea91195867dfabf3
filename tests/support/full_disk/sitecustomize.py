"""Loaded by a test server (PYTHONPATH): database writes fail as on a full disk while the
file named by TEAMCHAT_TEST_DISK_FULL_FLAG exists.

SQLite: the failure is raised where SQLite raises SQLITE_FULL (a statement that needs a new
page), with SQLite's own message. PostgreSQL: the driver raises what the server sends when
it cannot extend a file (SQLSTATE 53100, disk_full), with the server's message. Reads keep
working, as they do on a real full disk.
"""

from __future__ import annotations

import os
import sqlite3
from typing import Any

_FLAG = os.environ.get("TEAMCHAT_TEST_DISK_FULL_FLAG", "")
_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "PRAGMA USER_VERSION =")
_connect = sqlite3.connect


def _full(sql: str) -> bool:
    return bool(_FLAG) and os.path.exists(_FLAG) and sql.lstrip().upper().startswith(_WRITES)


class FullDiskConnection(sqlite3.Connection):
    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        if _full(sql):
            raise sqlite3.OperationalError("database or disk is full")
        return super().execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        if _full(sql):
            raise sqlite3.OperationalError("database or disk is full")
        return super().executemany(sql, *args)


def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
    kwargs.setdefault("factory", FullDiskConnection)
    return _connect(*args, **kwargs)


sqlite3.connect = connect  # type: ignore[assignment]


def _fail_postgresql_writes() -> None:
    try:
        import asyncpg  # type: ignore[import-untyped]
        from asyncpg.connection import Connection
    except ImportError:  # the PostgreSQL extra is not installed: SQLite only
        return

    def failing(name: str) -> Any:
        method = getattr(Connection, name)

        async def call(self: Any, query: str, *args: Any, **kwargs: Any) -> Any:
            if _full(query):
                raise asyncpg.DiskFullError(
                    'could not extend file "base/16384/16402": No space left on device'
                )
            return await method(self, query, *args, **kwargs)

        return call

    for name in ("execute", "executemany", "fetch", "fetchrow", "fetchval"):
        setattr(Connection, name, failing(name))


_fail_postgresql_writes()

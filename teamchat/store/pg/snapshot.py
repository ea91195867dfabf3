"""A consistent read-only view of a PostgreSQL database (see `store/snapshot.py`): one
connection of its own in a REPEATABLE READ READ ONLY transaction, opened without migrating."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import asyncpg  # type: ignore[import-untyped]

from teamchat.lib.db_url import redact
from teamchat.store.conn import DatabaseError
from teamchat.store.migrations import APPLICATION_ID, SCHEMA_VERSION, NotOurDatabaseError
from teamchat.store.pg.conn import PgConn
from teamchat.store.pg.dialect import PgDialect

CONNECT_TIMEOUT_SECS = 10


def _bool_text(value: object) -> str:
    return "t" if value else "f"


async def connect(url: str) -> Any:
    """A connection set up as the store's are (truth values as SQLite's 0/1), or the store's
    DatabaseError naming the URL (without its password) when it cannot be made."""
    try:
        conn = await asyncpg.connect(url, timeout=CONNECT_TIMEOUT_SECS)
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        raise DatabaseError(f"cannot connect to {redact(url)}: {exc}") from None
    except ValueError as exc:  # a URL asyncpg cannot parse
        raise DatabaseError(f"{redact(url)} is not a usable PostgreSQL URL: {exc}") from None
    await conn.set_type_codec(
        "bool", schema="pg_catalog", format="text", encoder=_bool_text,
        decoder=lambda text: text == "t",
    )  # fmt: skip
    return conn


async def schema_version(conn: Any, url: str) -> int:
    """The teamchat schema version of the database, refusing what is not teamchat's."""
    if not await conn.fetchval("SELECT to_regclass('teamchat_schema') IS NOT NULL"):
        tables = await conn.fetchval(
            "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"
        )
        what = "holds tables, but not a teamchat schema" if tables else "is empty"
        raise NotOurDatabaseError(f"the PostgreSQL database {redact(url)} {what}")
    row = await conn.fetchrow("SELECT version, application_id FROM teamchat_schema")
    if row is None or int(row[1]) != APPLICATION_ID:
        raise NotOurDatabaseError(f"the PostgreSQL database {redact(url)} is not teamchat's")
    version = int(row[0])
    if version > SCHEMA_VERSION:
        raise NotOurDatabaseError(
            f"{redact(url)} has schema version {version}; this teamchat knows up to"
            f" {SCHEMA_VERSION}"
        )
    return version


@asynccontextmanager
async def open_pg_snapshot(url: str) -> AsyncIterator[tuple[PgConn, int]]:
    """A read-only REPEATABLE READ transaction on `url`, and the schema version it holds."""
    conn = await connect(url)
    try:
        await conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        version = await schema_version(conn, url)
        yield PgConn(conn, PgDialect(frozenset())), version
    finally:
        with suppress(Exception):
            await conn.execute("ROLLBACK")
        await conn.close()


async def other_sessions(url: str) -> int:
    """How many other sessions are connected to the database (a running server holds some)."""
    conn = await connect(url)
    try:
        return int(
            await conn.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
            )
        )
    finally:
        await conn.close()


__all__ = ["connect", "open_pg_snapshot", "other_sessions", "schema_version"]

"""One SQL statement on a test server's database, whichever it is: the SQLite file, or the
PostgreSQL database of a `postgresql://` URL (`ServerProcess.db` names either).

For the few tests that set up a state no API reaches (a message sent days ago, an expired
link, a row stored by an older version) or look at one no API shows. The statement is
written as the store writes its SQL: `?` placeholders and SQLite's spelling, translated for
PostgreSQL by the store's own dialect (`teamchat/store/pg/dialect.py`). Each call is its own
committed transaction; running servers see it as they see any other process's commit.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]

from teamchat.store.pg.dialect import PgDialect

Row = tuple[Any, ...]


def is_postgresql(db: Path | str) -> bool:
    return str(db).startswith(("postgresql://", "postgres://"))


def query(db: Path | str, sql: str, params: tuple[object, ...] = ()) -> list[Row]:
    """Run `sql` with `params` on `db` and commit; the rows it answers (none for most writes;
    an INSERT answers the new id with `RETURNING id`)."""
    if is_postgresql(db):
        return asyncio.run(_pg_query(str(db), sql, params))
    conn = sqlite3.connect(db, timeout=30)
    try:
        with conn:
            return [tuple(row) for row in conn.execute(sql, params).fetchall()]
    finally:
        conn.close()


def one(db: Path | str, sql: str, params: tuple[object, ...] = ()) -> Row | None:
    """The first row `sql` answers, or None."""
    rows = query(db, sql, params)
    return rows[0] if rows else None


def value(db: Path | str, sql: str, params: tuple[object, ...] = ()) -> Any:
    """The first column of the one row `sql` answers (a count, an id...)."""
    row = one(db, sql, params)
    assert row is not None, f"no row for {sql}"
    return row[0]


def schema_version(db: Path | str) -> int:
    """The schema step the database is at."""
    return int(value(db, "PRAGMA user_version"))


def set_schema_version(db: Path | str, version: int) -> None:
    """Make the database claim schema step `version` (to test the checks of an old schema)."""
    if is_postgresql(db):
        query(db, "UPDATE teamchat_schema SET version = ?", (version,))
    else:
        query(db, f"PRAGMA user_version={int(version)}")


async def _pg_query(url: str, sql: str, params: tuple[object, ...]) -> list[Row]:
    conn = await asyncpg.connect(url)
    try:
        async with conn.transaction():
            rows = await conn.fetch(PgDialect(frozenset()).sql(sql), *params)
        return [tuple(row) for row in rows]
    finally:
        await conn.close()

"""Statements on one asyncpg connection, as the store's contract has them (`PgConn` in a
read snapshot, `PgTx` in a write transaction body), with the driver's errors turned into the
store's (`translate_error`). `database.py` owns the connections and the transactions.
"""

from __future__ import annotations

import asyncio
import errno
import re
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Any, TypeVar

import asyncpg  # type: ignore[import-untyped]

from teamchat.store.conn import Conn, DatabaseError, IntegrityError, Params, Row, Tx
from teamchat.store.memos import Memos
from teamchat.store.pg.dialect import PgDialect, rowcount

T = TypeVar("T")
_OUT_OF_RANGE = re.compile(r"out of int\d+ range")


def translate_error(exc: BaseException, sql: str = "") -> BaseException:
    """The store's exception for a driver's (naming the statement: no values, only SQL)."""
    where = f" (in: {sql})" if sql else ""
    if isinstance(exc, asyncpg.DataError) and _OUT_OF_RANGE.search(str(exc)):
        return OverflowError(str(exc))  # as SQLite's driver raises for an int beyond 64 bits
    if isinstance(exc, asyncpg.CharacterNotInRepertoireError):
        # A NUL character in a text parameter: PostgreSQL's text cannot hold one (SQLite's
        # can). Input no parser refused; the app answers it as malformed (400), not as a 500.
        return UnicodeDecodeError("utf-8", b"\x00", 0, 1, "PostgreSQL text cannot hold NUL")
    if isinstance(exc, asyncpg.DiskFullError):
        # The database server's disk is full: what SQLite's store raises for its own file,
        # so the app answers 503 DISK_FULL and GET /health says so.
        return OSError(errno.ENOSPC, f"{exc}{where}")
    if isinstance(exc, asyncpg.IntegrityConstraintViolationError):
        return IntegrityError(f"{exc}{where}")
    if isinstance(exc, asyncpg.PostgresError | asyncpg.InterfaceError):
        return DatabaseError(f"{exc}{where}")
    return exc


async def finish(work: Awaitable[T]) -> T:
    """Await `work` to its end even if the caller is cancelled meanwhile (then re-raise): a
    statement cut off half-way would leave the connection busy, and the ROLLBACK that must
    follow a cancelled body could not run (SQLite's statements cannot be cut off either)."""
    task = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        with suppress(Exception):
            await task
        raise


class PgConn(Conn):
    """An asyncpg connection inside one transaction or snapshot."""

    backend = "postgresql"

    def __init__(self, conn: Any, dialect: PgDialect, memos: Memos | None = None) -> None:
        self._conn = conn
        self._dialect = dialect
        self._memos = memos

    async def _run(self, sql: str, call: Callable[[], Awaitable[T]]) -> T:
        """Run one statement (`call`), its errors as the store's."""
        try:
            return await finish(call())
        except (asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise translate_error(exc, sql) from exc

    async def execute(self, sql: str, params: Params = ()) -> int:
        if isinstance(params, dict):
            raise TypeError("the PostgreSQL store takes positional (?) parameters only")
        returning = self._dialect.insert_returning_id(sql)
        if returning is not None:
            value = await self._run(sql, lambda: self._conn.fetchval(returning, *params))
            return int(value) if value is not None else 0
        await self._run(sql, lambda: self._conn.execute(self._dialect.sql(sql), *params))
        return 0

    async def execute_rowcount(self, sql: str, params: tuple[object, ...] = ()) -> int:
        status = await self._run(sql, lambda: self._conn.execute(self._dialect.sql(sql), *params))
        return rowcount(status)

    async def executemany(self, sql: str, rows: list[tuple[object, ...]]) -> None:
        if rows:
            await self._run(sql, lambda: self._conn.executemany(self._dialect.sql(sql), rows))

    async def fetchone(self, sql: str, params: tuple[object, ...] = ()) -> Row | None:
        row: Row | None = await self._run(
            sql, lambda: self._conn.fetchrow(self._dialect.sql(sql), *params)
        )
        return row

    async def fetchall(self, sql: str, params: tuple[object, ...] = ()) -> list[Row]:
        rows: list[Row] = await self._run(
            sql, lambda: self._conn.fetch(self._dialect.sql(sql), *params)
        )
        return rows

    async def fetchall_tuples(
        self, sql: str, params: tuple[object, ...] = ()
    ) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in await self.fetchall(sql, params)]

    async def advance_id_sequences(self, tables: tuple[str, ...]) -> None:
        for table in tables:
            if table not in self._dialect.id_tables or not table.isidentifier():
                continue
            sql = (
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                f" COALESCE((SELECT max(id) FROM {table}), 0) + 1, false)"
            )
            await self._run(sql, lambda: self._conn.execute(sql))  # noqa: B023 (awaited here)


class PgTx(PgConn, Tx):
    """One write transaction body on this process's writer connection.

    A failed statement aborts a PostgreSQL transaction, where SQLite undoes only that
    statement; bodies may catch an IntegrityError and go on (or return normally). So a
    refused change leaves the transaction as SQLite would: before the body's first write
    the body's own SAVEPOINT is that state (nothing of the body's to keep), after it each
    write statement runs in a SAVEPOINT of its own. That costs one more round trip a write:
    the previous statement's savepoint is released in the same one (`RELEASE s; SAVEPOINT
    s`), and the body's own RELEASE releases the last."""

    def __init__(self, conn: Any, dialect: PgDialect, savepoint: str) -> None:
        super().__init__(conn, dialect)
        self._after_commit = []
        self._savepoint = savepoint
        self.wrote = False
        # Whether a statement changed a row: one that changed none writes nothing to the
        # log, so it commits even on a full disk and proves nothing about space.
        self.changed_rows = False
        self._statement_open = False  # the savepoint of the last write is still open

    async def _run(self, sql: str, call: Callable[[], Awaitable[T]]) -> T:
        if sql.lstrip()[:6].upper() == "SELECT":
            return await super()._run(sql, call)  # a read cannot break a constraint
        result = await self._write(sql, call)
        self.changed_rows = self.changed_rows or _changed_rows(result)
        return result

    async def _write(self, sql: str, call: Callable[[], Awaitable[T]]) -> T:
        """Run a write statement so that its failure undoes only itself (see the class)."""
        if not self.wrote:
            try:
                result = await super()._run(sql, call)
            except IntegrityError:
                await finish(self._conn.execute(f"ROLLBACK TO {self._savepoint}"))
                raise
            self.wrote = True
            return result
        begin = (
            "RELEASE statement; SAVEPOINT statement"
            if self._statement_open
            else ("SAVEPOINT statement")
        )
        await finish(self._conn.execute(begin))
        self._statement_open = True
        try:
            result = await super()._run(sql, call)
        except IntegrityError:
            await finish(self._conn.execute("ROLLBACK TO statement; RELEASE statement"))
            self._statement_open = False
            raise
        return result


def _changed_rows(result: object) -> bool:
    """Whether a write statement's result says it changed a row: a command status ('UPDATE
    0'), the rows of a RETURNING, an id from an INSERT; executemany tells nothing (True)."""
    if isinstance(result, str):
        return rowcount(result) > 0
    if isinstance(result, list):
        return bool(result)
    return True


__all__ = ["PgConn", "PgTx", "finish", "translate_error"]

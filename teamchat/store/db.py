"""Database: one writer connection behind a lock, a small pool of read-only connections.

Owns connection set-up, transactions and migrations at open. Must not know about actions,
events or HTTP: it runs SQL and calls back `after_commit` hooks, nothing more.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TypeVar

import aiosqlite

from teamchat.store.migrations import (
    APPLICATION_ID,
    NotOurDatabaseError,
    check_application_id,
    migrate,
)

BUSY_TIMEOUT_MS = 5000
T = TypeVar("T")


class Conn:
    """A connection inside one transaction or snapshot; store queries take this."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn

    async def execute(self, sql: str, params: tuple[object, ...] | dict[str, object] = ()) -> int:
        """Run one statement; return lastrowid (for INSERT)."""
        cursor = await self.conn.execute(sql, params)
        rowid = cursor.lastrowid or 0
        await cursor.close()
        return rowid

    async def execute_rowcount(self, sql: str, params: tuple[object, ...] = ()) -> int:
        cursor = await self.conn.execute(sql, params)
        count = cursor.rowcount
        await cursor.close()
        return count

    async def executemany(self, sql: str, rows: list[tuple[object, ...]]) -> None:
        await self.conn.executemany(sql, rows)

    async def fetchone(self, sql: str, params: tuple[object, ...] = ()) -> sqlite3.Row | None:
        async with self.conn.execute(sql, params) as cursor:
            return await cursor.fetchone()

    async def fetchall(self, sql: str, params: tuple[object, ...] = ()) -> list[sqlite3.Row]:
        async with self.conn.execute(sql, params) as cursor:
            return list(await cursor.fetchall())


class Tx(Conn):
    """One write transaction: statements run on the writer; hooks run after COMMIT."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        super().__init__(conn)
        self._after_commit: list[Callable[[], None]] = []

    def after_commit(self, hook: Callable[[], None]) -> None:
        """Run `hook` after COMMIT, still under the writer lock; dropped on rollback."""
        self._after_commit.append(hook)

    def run_after_commit(self) -> None:
        hooks, self._after_commit = self._after_commit, []
        for hook in hooks:
            hook()


async def _configure(conn: aiosqlite.Connection, *, read_only: bool) -> None:
    conn.row_factory = sqlite3.Row
    await conn.execute("PRAGMA journal_mode=WAL")
    await conn.execute("PRAGMA foreign_keys=ON")
    await conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    await conn.execute("PRAGMA synchronous=NORMAL")
    if read_only:
        await conn.execute("PRAGMA query_only=ON")


class Database:
    """The one SQLite file: `write()` for transactions, `read()` for snapshots."""

    def __init__(self, path: Path, readers: int = 4) -> None:
        self.path = path
        self._reader_count = readers
        self._writer: aiosqlite.Connection | None = None
        self._write_lock = asyncio.Lock()
        self._readers: asyncio.Queue[aiosqlite.Connection] = asyncio.Queue()
        self._all_readers: list[aiosqlite.Connection] = []

    async def open(self) -> None:
        """Open connections, refuse a foreign database, apply pending migrations."""
        check_application_id(self.path)
        writer = await aiosqlite.connect(self.path, isolation_level=None)
        try:
            await _configure(writer, read_only=False)
            await migrate(writer)
        except BaseException:
            await writer.close()
            raise
        self._writer = writer
        for _ in range(self._reader_count):
            reader = await aiosqlite.connect(self.path, isolation_level=None)
            await _configure(reader, read_only=True)
            self._all_readers.append(reader)
            self._readers.put_nowait(reader)

    async def close(self) -> None:
        for reader in self._all_readers:
            await reader.close()
        self._all_readers.clear()
        if self._writer is not None:
            await self._writer.close()
            self._writer = None

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Tx]:
        """One IMMEDIATE transaction on the writer; after-commit hooks run under the lock.

        Bodies only issue statements on the Tx and register hooks, so a later group-commit
        writer can run many bodies in one transaction, each in its own SAVEPOINT.
        """
        writer = self._writer
        assert writer is not None, "database is not open"
        async with self._write_lock:
            await _begin(writer, "BEGIN IMMEDIATE")
            tx = Tx(writer)
            try:
                yield tx
            except BaseException:
                await _complete(writer.execute("ROLLBACK"))
                raise
            try:
                await _complete(writer.execute("COMMIT"))
            finally:
                tx.run_after_commit()  # committed: publish even if the request went away

    @asynccontextmanager
    async def writes_paused(self) -> AsyncIterator[None]:
        """Hold the writer lock: no transaction commits (and no event publishes) meanwhile."""
        async with self._write_lock:
            yield

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Conn]:
        """A read-only connection in one snapshot (BEGIN ... COMMIT)."""
        conn = await self._readers.get()
        try:
            await _begin(conn, "BEGIN")
            try:
                yield Conn(conn)
            finally:
                await _complete(conn.execute("COMMIT"))
        finally:
            self._readers.put_nowait(conn)


async def _complete(statement: Awaitable[T]) -> T:
    """Run a transaction-control statement to the end even if our task is cancelled.

    A cancelled BEGIN/COMMIT still runs on the connection's thread; returning the connection
    half-way would leave it inside a transaction for its next user.
    """
    task = asyncio.ensure_future(statement)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        await task
        raise


async def _begin(conn: aiosqlite.Connection, sql: str) -> None:
    """Start a transaction, recovering a connection left inside a stale one."""
    try:
        await _complete(conn.execute(sql))
    except sqlite3.OperationalError as exc:
        if "within a transaction" not in str(exc):
            raise
        await _complete(conn.execute("ROLLBACK"))
        await _complete(conn.execute(sql))
    except asyncio.CancelledError:
        await _complete(conn.execute("ROLLBACK"))
        raise


__all__ = ["APPLICATION_ID", "Conn", "Database", "NotOurDatabaseError", "Tx"]

"""Database: one writer connection with group commit, a small pool of read-only connections.

Owns connection set-up, transactions and migrations at open. Must not know about actions,
events or HTTP: it runs SQL and calls back `after_commit` hooks, nothing more.

Statements run synchronously on the event loop's thread (SQLite answers our indexed
statements in microseconds: a hop to another thread per statement cost more than the
statement). What waits goes to the connection's own thread, once per transaction: a BEGIN
IMMEDIATE that finds another process writing, and the COMMIT, which with
`synchronous=FULL` waits for the disk. Commits are grouped: the bodies of the write
transactions waiting for the writer run one after another in one transaction, each in its
own SAVEPOINT (a body that fails rolls back only itself), then one COMMIT makes them all
durable, and each caller resumes, hooks run in commit order, only after that COMMIT.

Caches above the store ask `version(table)`: a number that grows after every COMMIT that
changed one of the WATCHED tables (temporary triggers on the writer tell which) and after
another process committed anything (`PRAGMA data_version` of the writer, which only other
processes change: read by `version` calls at most once a millisecond). While the
writer's thread holds the connection (a COMMIT, a BEGIN waiting for another process) that
cannot be read: during our own COMMIT nothing else can commit (we hold SQLite's write
lock), so the versions stand; during a BEGIN waiting for another process `version` is None,
and callers read the database instead of trusting a cached value. A cached value read at
version v is good while the version is still v. Store queries on such tables memoize
through `Conn.memo` (read snapshots only: a write transaction always reads the table).
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

from teamchat.store.checkpoints import Checkpointer
from teamchat.store.conn import (
    WATCHED_TABLES,
    BaseDatabase,
    ChangeWatcher,
    Conn,
    IntegrityError,
    Params,
    Row,
    Tx,
)
from teamchat.store.memos import Memos
from teamchat.store.migrations import (
    APPLICATION_ID,
    NotOurDatabaseError,
    check_application_id,
    migrate,
)

BUSY_TIMEOUT_MS = 5000
# The writer's page cache, at most (it fills only with pages that are used). A message to a
# channel of N active people inserts a row into each person's pages of user_message and of
# its unread index: with SQLite's default 2 MiB those pages were read again for every
# message once N passed a few hundred (scripts/bench_recipients.py: 1,000 recipients, 15 ms
# of statements a message with 2 MiB, 11.5 ms with 64 MiB). Readers keep SQLite's default:
# a reader's cache is dropped whenever another connection has committed.
WRITER_CACHE_KIB = 64 * 1024
# How long a look at the writer's data_version stands for (see `Database.versions`): polls
# and requests a millisecond apart share one look, a change by another process shows in
# requests that start a millisecond after its commit.
OTHER_WRITERS_LOOK_SECS = 0.001
T = TypeVar("T")


class SqliteConn(Conn):
    """A SQLite connection inside one transaction or snapshot."""

    def __init__(self, conn: sqlite3.Connection, memos: Memos | None = None) -> None:
        self.conn = conn
        self._memos = memos

    async def execute(self, sql: str, params: Params = ()) -> int:
        try:
            return self.conn.execute(sql, params).lastrowid or 0
        except sqlite3.IntegrityError as exc:
            raise IntegrityError(str(exc)) from exc

    async def execute_rowcount(self, sql: str, params: tuple[object, ...] = ()) -> int:
        try:
            return self.conn.execute(sql, params).rowcount
        except sqlite3.IntegrityError as exc:
            raise IntegrityError(str(exc)) from exc

    async def executemany(self, sql: str, rows: list[tuple[object, ...]]) -> None:
        try:
            self.conn.executemany(sql, rows)
        except sqlite3.IntegrityError as exc:
            raise IntegrityError(str(exc)) from exc

    async def fetchone(self, sql: str, params: tuple[object, ...] = ()) -> Row | None:
        try:
            row: sqlite3.Row | None = self.conn.execute(sql, params).fetchone()
        except sqlite3.IntegrityError as exc:  # INSERT ... RETURNING
            raise IntegrityError(str(exc)) from exc
        return row

    async def fetchall(self, sql: str, params: tuple[object, ...] = ()) -> list[Row]:
        try:
            return self.conn.execute(sql, params).fetchall()
        except sqlite3.IntegrityError as exc:
            raise IntegrityError(str(exc)) from exc

    async def fetchall_tuples(
        self, sql: str, params: tuple[object, ...] = ()
    ) -> list[tuple[Any, ...]]:
        cursor = self.conn.cursor()
        cursor.row_factory = None
        return cursor.execute(sql, params).fetchall()


class SqliteTx(SqliteConn, Tx):
    """One write transaction body on the SQLite writer."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self._after_commit = []


class _Batch:
    """The bodies sharing one transaction, and the future their callers wait on."""

    def __init__(self, changes_before: int) -> None:
        self.bodies: list[Tx] = []
        self.committed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.changes_before = changes_before  # the writer's total_changes at BEGIN


def create_private(path: Path) -> None:
    """Create the database file empty and readable by its owner only, unless it exists: it
    holds every API key, and SQLite gives its -wal and -shm files the same permissions."""
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def connect(path: Path, *, read_only: bool) -> sqlite3.Connection:
    """A connection configured as every teamchat connection is."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    # Durable: an acknowledged write survives a power failure (WAL fsync on every COMMIT).
    conn.execute("PRAGMA synchronous=FULL")
    if read_only:
        conn.execute("PRAGMA query_only=ON")
    else:
        conn.execute(f"PRAGMA cache_size=-{WRITER_CACHE_KIB}")
    return conn


class Database(BaseDatabase):
    """The one SQLite file: `write()` for transactions, `read()` for snapshots."""

    backend = "sqlite"

    def __init__(self, path: Path, readers: int = 4, *, bulk: bool = False) -> None:
        self.path = path
        # A command (`bulk`) keeps SQLite's checkpoints in its commits and its temporary
        # files; the server's checkpoints run on a thread of their own (store.checkpoints).
        self._checkpointer = None if bulk else Checkpointer(path, connect)
        self._reader_count = readers
        self._writer: sqlite3.Connection | None = None
        self._write_lock = asyncio.Lock()
        self._batch: _Batch | None = None
        self._savepoints = 0
        self._readers: list[sqlite3.Connection] = []
        self._idle_readers: asyncio.Queue[sqlite3.Connection] = asyncio.Queue()
        self._wait_thread = ThreadPoolExecutor(1, thread_name_prefix="teamchat-sqlite")
        self._committers: set[asyncio.Task[None]] = set()  # strong references while running
        self._versions = dict.fromkeys(WATCHED_TABLES, 0)
        self._memos = Memos(self)
        self._thread_busy = 0  # calls running on the writer's thread
        self._committing = False  # the running call is our COMMIT: we hold the write lock
        self._looked_at = -1.0  # when `versions` last read the writer's data_version
        self._changed: set[str] = set()  # watched tables written in the open batch
        self._writer_data_version = 0
        # When a write first failed for want of disk space (None: the last commit worked).
        self.disk_full_since: float | None = None

    def describe(self) -> str:
        return str(self.path.resolve())

    def watcher(self, interval_secs: float) -> ChangeWatcher:
        from teamchat.store.watcher import DataVersionWatcher  # it connects as we do

        return DataVersionWatcher(self.path, interval_secs)

    def versions(self) -> dict[str, int] | None:
        """Every watched table's version (a copy), or None when they cannot be known now."""
        writer = self._writer
        if writer is None:
            return None
        if self._committing:
            # The thread holds the connection for our COMMIT, and with it SQLite's write
            # lock: no other process can commit meanwhile, so nothing changed behind us.
            return dict(self._versions)
        if self._thread_busy:
            return None  # a BEGIN waits for another process, which may commit any moment
        now = time.monotonic()
        if now - self._looked_at >= OTHER_WRITERS_LOOK_SECS:
            self._looked_at = now
            self._note_data_version(int(writer.execute("PRAGMA data_version").fetchone()[0]))
        return dict(self._versions)

    def _note_data_version(self, version: int) -> None:
        """Record the writer's data_version; a change means another process committed, and
        every watched table's version grows (we cannot tell which it wrote)."""
        if version != self._writer_data_version:
            self._writer_data_version = version
            self._bump(set(self._versions))

    def _note_change(self, table: str) -> None:
        self._changed.add(table)

    def _watch_tables(self, writer: sqlite3.Connection) -> None:
        writer.create_function("teamchat_changed", 1, self._note_change)
        for table in WATCHED_TABLES:
            for op in ("INSERT", "UPDATE", "DELETE"):
                writer.execute(
                    f"CREATE TEMP TRIGGER IF NOT EXISTS changed_{table}_{op.lower()} AFTER {op}"
                    f" ON main.{table} BEGIN SELECT teamchat_changed('{table}'); END"
                )

    async def open(self) -> None:
        """Open connections, refuse a foreign database, apply pending migrations."""
        check_application_id(self.path)
        create_private(self.path)
        writer = connect(self.path, read_only=False)
        try:
            migrate(writer)
        except BaseException:
            writer.close()
            raise
        self._writer = writer
        if self._checkpointer is not None:
            # Each body of a group commit runs in a SAVEPOINT, which keeps the pages it
            # changes in a sub-journal; past 64 KiB SQLite spilled it to a temporary file, a
            # write() per page (300 sends: 66,761 pwrite calls, 3,479 in memory). A command
            # that loads or rebuilds much at once (`bulk`: the import's index builds) keeps
            # sorting in files. Set before the temporary triggers: changing temp_store drops
            # them.
            writer.execute("PRAGMA temp_store=MEMORY")
            self._checkpointer.open(writer)
        self._watch_tables(writer)
        self._writer_data_version = int(writer.execute("PRAGMA data_version").fetchone()[0])
        for _ in range(self._reader_count):
            reader = connect(self.path, read_only=True)
            self._readers.append(reader)
            self._idle_readers.put_nowait(reader)

    async def close(self) -> None:
        while self._committers:  # open batches commit first
            await asyncio.gather(*self._committers, return_exceptions=True)
        if self._checkpointer is not None:
            await self._checkpointer.close()
        for reader in self._readers:
            reader.close()
        self._readers.clear()
        self._idle_readers = asyncio.Queue()
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        self._wait_thread.shutdown(wait=True)

    async def _in_thread(self, call: Callable[[], Any]) -> Any:
        """Run a waiting call on the connection's thread; finish it even if cancelled."""
        self._thread_busy += 1
        try:
            task = asyncio.get_running_loop().run_in_executor(self._wait_thread, call)
            try:
                return await asyncio.shield(task)
            except asyncio.CancelledError:
                await task
                raise
        finally:
            self._thread_busy -= 1

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Tx]:
        """One write transaction body; returns once it is durably committed.

        Bodies only issue statements on the Tx and register hooks. A body may share its
        transaction with others (group commit) but sees only committed data and its own.
        """
        writer = self._writer
        assert writer is not None, "database is not open"
        async with self._write_lock:
            if self._batch is None:
                await self._begin(writer)
                self._batch = _Batch(writer.total_changes)
                committer = asyncio.get_running_loop().create_task(self._commit(self._batch))
                self._committers.add(committer)
                committer.add_done_callback(self._committers.discard)
            batch = self._batch
            self._savepoints += 1
            name = f"body{self._savepoints}"
            writer.execute(f"SAVEPOINT {name}")
            tx = SqliteTx(writer)
            try:
                yield tx
            except BaseException as exc:
                self._note_failure(exc)
                if writer.in_transaction:
                    writer.execute(f"ROLLBACK TO {name}")
                    writer.execute(f"RELEASE {name}")
                raise
            writer.execute(f"RELEASE {name}")
            batch.bodies.append(tx)
        try:
            await asyncio.shield(batch.committed)
        except asyncio.CancelledError:
            # The request went away: its change still commits and publishes; return only
            # after that, as an uncancelled write would.
            await asyncio.wait([batch.committed])
            raise

    async def _begin(self, writer: sqlite3.Connection) -> None:
        """BEGIN IMMEDIATE: at once when no other process writes, else wait on the thread."""
        if writer.in_transaction:  # a transaction left open by a failure: start clean
            writer.execute("ROLLBACK")
        writer.execute("PRAGMA busy_timeout=0")
        try:
            writer.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
        finally:
            writer.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        await self._in_thread(lambda: writer.execute("BEGIN IMMEDIATE"))  # waits for the lock

    async def _commit(self, batch: _Batch) -> None:
        """Commit a batch once the bodies queued before this task have run."""
        writer = self._writer
        assert writer is not None
        async with self._write_lock:
            self._batch = None
            self._savepoints = 0
            changed, self._changed = self._changed, set()
            try:
                if not writer.in_transaction:
                    # SQLite may roll a whole transaction back on SQLITE_FULL.
                    full = "; database or disk is full" if self.disk_full_since else ""
                    raise sqlite3.OperationalError(f"the transaction was rolled back{full}")
                self._committing = True
                try:
                    await self._in_thread(lambda: writer.execute("COMMIT"))
                finally:
                    self._committing = False
            except BaseException as exc:
                self._note_failure(exc)
                if writer.in_transaction:
                    writer.execute("ROLLBACK")
                self._bump(changed)  # the COMMIT may have happened before the failure
                if isinstance(exc, sqlite3.IntegrityError):  # a deferred foreign key
                    exc = IntegrityError(str(exc))
                batch.committed.set_exception(exc)
                batch.committed.exception()  # retrieved: callers may all have gone
                return
            self._bump(changed)
            if writer.total_changes != batch.changes_before:
                self.disk_full_since = None  # rows were written: there is space again
            for tx in batch.bodies:
                tx.run_after_commit()  # committed: publish even if a request went away
            batch.committed.set_result(None)
            checkpointer = self._checkpointer
            if checkpointer is not None and checkpointer.committed():
                await self._in_thread(lambda: checkpointer.copy_rest(writer))

    async def probe_space(self) -> None:
        """Write without changing anything (setting user_version to itself still writes the
        file header's change counter, through the WAL); on success, space is back."""
        async with self.write() as tx:
            row = await tx.fetchone("PRAGMA user_version")
            await tx.execute(f"PRAGMA user_version = {int(row[0]) if row else 0}")
        self.disk_full_since = None

    def _bump(self, tables: set[str]) -> None:
        for table in tables:
            self._versions[table] += 1

    @asynccontextmanager
    async def writes_paused(self) -> AsyncIterator[None]:
        """Hold the writer: no transaction commits (and no event publishes) meanwhile."""
        async with self._write_lock:
            yield

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Conn]:
        """A read-only connection in one snapshot (BEGIN ... COMMIT)."""
        conn = await self._idle_readers.get()
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            memos = self._memos.start()  # before the snapshot: see Memos
            conn.execute("BEGIN")
            try:
                yield SqliteConn(conn, memos)
            finally:
                conn.execute("COMMIT")
        finally:
            self._idle_readers.put_nowait(conn)


__all__ = [
    "APPLICATION_ID",
    "WATCHED_TABLES",
    "Conn",
    "Database",
    "IntegrityError",
    "NotOurDatabaseError",
    "Row",
    "Tx",
]

"""PgDatabase: the SQLite store's contract (`teamchat.store.conn`) on PostgreSQL, via asyncpg.

The same shape as `store/db.py`: one writer connection per process with group commit (the
bodies of the write transactions waiting for it run one after another in one transaction,
each in its own SAVEPOINT, then one COMMIT; callers resume and `after_commit` hooks run in
commit order only after it), a small pool of read connections each read in one REPEATABLE
READ snapshot, and `writes_paused()` holding the writer.

Cache versions: statement-level triggers on the WATCHED tables (`pg/compat.sql`) record each
table a transaction changed in a transaction-local setting, which the writer reads just
before COMMIT (our own commits bump those tables' versions once COMMIT returns), and
`pg_notify` the table at COMMIT: a dedicated connection LISTENs and bumps the versions of
tables other processes changed as soon as the notification arrives (the delay a cached value
can outlive another process's change by: the notification's trip, typically well under a
millisecond on one machine, plus however long this process's event loop is busy). While
that connection is down, `versions()` is None and caches read the database. The same
connection hears other processes' events, and `_commit` announces ours: see `pg/bus.py`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import asyncpg  # type: ignore[import-untyped]

from teamchat.lib.db_url import redact
from teamchat.store.conn import WATCHED_TABLES, BaseDatabase, Conn, Tx
from teamchat.store.memos import Memos
from teamchat.store.pg import bus as pg_bus
from teamchat.store.pg import schema
from teamchat.store.pg.conn import PgConn, PgTx, finish, translate_error
from teamchat.store.pg.dialect import PgDialect

if TYPE_CHECKING:
    from teamchat.store.pg.watcher import PgWatcher

log = logging.getLogger(__name__)
STATEMENT_CACHE_SIZE = 1024  # prepared statements per connection (asyncpg's LRU)
RECONNECT_SECS = 1.0
BOUNDARY_WAIT_SECS = 5.0
_CHANGED_AND_LOCK = (
    "SELECT current_setting('teamchat.changed', true) FROM pg_advisory_lock($1) AS locked"
)


def _bool_text(value: object) -> str:
    return "t" if value else "f"


def _text_bool(text: str) -> bool:
    return text == "t"


class _Batch:
    """The bodies sharing one transaction, and the future their callers wait on."""

    def __init__(self) -> None:
        self.bodies: list[Tx] = []
        self.committed: asyncio.Future[None] = asyncio.get_running_loop().create_future()


class PgDatabase(BaseDatabase):
    """One PostgreSQL database: `write()` for transactions, `read()` for snapshots."""

    backend = "postgresql"

    def __init__(self, url: str, readers: int = 4) -> None:
        self.url = url
        self._reader_count = max(1, readers)
        self._writer: Any = None
        self._write_lock = asyncio.Lock()
        self._batch: _Batch | None = None
        self._savepoints = 0
        self._readers: list[Any] = []
        self._idle_readers: asyncio.Queue[Any] = asyncio.Queue()
        self._committers: set[asyncio.Task[None]] = set()
        self._versions = dict.fromkeys(WATCHED_TABLES, 0)
        self._memos = Memos(self)
        self._dialect = PgDialect(frozenset())
        self._listener: Any = None  # the LISTEN connection; None while it is down
        self._listen_task: asyncio.Task[None] | None = None
        self._own_pids: set[int] = set()
        # Commits by other processes heard of (the change-log watcher polls this).
        self.others_commits = 0
        self._bus = pg_bus.PgBus(self._locked_writer, lambda: self._batch is not None,
                                 self._read_announced)  # fmt: skip

    def bus(self) -> pg_bus.PgBus:
        return self._bus

    @asynccontextmanager
    async def _locked_writer(self) -> AsyncIterator[Any]:
        async with self._write_lock:
            yield self._writer

    async def _read_announced(self, row_id: int) -> str | None:
        async with self.read() as conn:
            row = await conn.fetchone("SELECT body FROM teamchat_bus WHERE id = ?", (row_id,))
        return None if row is None else str(row[0])

    def describe(self) -> str:
        return redact(self.url)

    def versions(self) -> dict[str, int] | None:
        if self._writer is None or self._listener is None:
            return None  # another process's change could not be heard of now
        return dict(self._versions)

    def _bump(self, tables: set[str] | list[str]) -> None:
        for table in tables:
            if table in self._versions:
                self._versions[table] += 1

    async def _connect(self) -> Any:
        conn = await asyncpg.connect(self.url, statement_cache_size=STATEMENT_CACHE_SIZE)
        # The store passes 0/1 where SQL tests a truth value (SQLite has no booleans).
        await conn.set_type_codec(
            "bool", schema="pg_catalog", format="text", encoder=_bool_text, decoder=_text_bool
        )
        return conn

    async def open(self) -> None:
        """Connect, apply pending migrations, start listening for other processes' commits."""
        writer = await self._connect()
        try:
            await schema.migrate(writer)
            self._dialect = PgDialect(await schema.id_tables(writer))
        except BaseException:
            await writer.close()
            raise
        self._writer = writer
        self._own_pids.add(writer.get_server_pid())
        self._bus.own_pid = writer.get_server_pid()
        for _ in range(self._reader_count):
            reader = await self._connect()
            self._readers.append(reader)
            self._idle_readers.put_nowait(reader)
        await self._listen()
        self._listen_task = asyncio.get_running_loop().create_task(self._keep_listening())

    async def _listen(self, again: bool = False) -> None:
        listener = await self._connect()
        listener.add_termination_listener(self._listener_lost)
        await listener.add_listener(schema.CHANNEL, self._notified)
        await listener.add_listener(pg_bus.CHANNEL, self._bus.heard)
        self._listener = listener
        self._bump(set(self._versions))  # whatever happened while we were not listening
        if again:
            self._bus.reconnected()

    def _listener_lost(self, _conn: Any) -> None:
        self._listener = None

    def _notified(self, _conn: Any, pid: int, _channel: str, table: str) -> None:
        if pid in self._own_pids:
            return  # our own commit: bumped by the writer right after COMMIT
        self.others_commits += 1
        self._bump([table])

    async def _keep_listening(self) -> None:
        """Reconnect the LISTEN connection when it drops (versions are None meanwhile)."""
        while True:
            await asyncio.sleep(RECONNECT_SECS)
            if self._listener is None or self._listener.is_closed():
                self._listener = None
                try:
                    await self._listen(again=True)
                except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                    log.warning("cannot listen for other processes' changes; retrying")

    async def close(self) -> None:
        await self._bus.close()
        while self._committers:
            await asyncio.gather(*self._committers, return_exceptions=True)
        if self._listen_task is not None:
            self._listen_task.cancel()
            await asyncio.gather(self._listen_task, return_exceptions=True)
        connections = [*self._readers, self._writer, self._listener]
        self._readers.clear()
        self._writer = self._listener = None
        for conn in connections:
            if conn is not None and not conn.is_closed():
                await conn.close()

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Tx]:
        writer = self._writer
        assert writer is not None, "database is not open"
        async with self._write_lock:
            if self._batch is None:
                if writer.is_in_transaction():  # left open by a failure: start clean
                    await finish(writer.execute("ROLLBACK"))
                await finish(writer.execute("BEGIN"))
                self._batch = _Batch()
                committer = asyncio.get_running_loop().create_task(self._commit(self._batch))
                self._committers.add(committer)
                committer.add_done_callback(self._committers.discard)
            batch = self._batch
            self._savepoints += 1
            name = f"body{self._savepoints}"
            await finish(writer.execute(f"SAVEPOINT {name}"))
            tx = PgTx(writer, self._dialect, name)
            try:
                yield tx
            except BaseException as exc:
                self._note_failure(exc)
                if writer.is_in_transaction():
                    await asyncio.shield(self._rollback_to(writer, name))
                raise
            batch.bodies.append(tx)  # before RELEASE: a cancel there must not lose its hooks
            await finish(writer.execute(f"RELEASE {name}"))
        try:
            await asyncio.shield(batch.committed)
        except asyncio.CancelledError:
            await asyncio.wait([batch.committed])
            raise

    @staticmethod
    async def _rollback_to(writer: Any, name: str) -> None:
        await writer.execute(f"ROLLBACK TO {name}")
        await writer.execute(f"RELEASE {name}")

    async def _commit(self, batch: _Batch) -> None:
        """Commit a batch once the bodies queued before this task have run."""
        writer = self._writer
        assert writer is not None
        async with self._write_lock:
            self._batch = None
            self._savepoints = 0
            changed: set[str] = set()
            announce = self._bus.must_announce(batch.bodies)
            try:
                await asyncio.shield(self._commit_now(writer, changed, announce))
            except BaseException as exc:
                if not writer.is_closed() and writer.is_in_transaction():
                    await writer.execute("ROLLBACK")
                if announce:
                    await self._bus.release(writer)
                self._bump(changed)  # the COMMIT may have happened before the failure
                failure = translate_error(exc)
                self._note_failure(failure)
                batch.committed.set_exception(failure)
                batch.committed.exception()  # retrieved: callers may all have gone
                return
            self._bump(changed)
            if any(isinstance(tx, PgTx) and tx.changed_rows for tx in batch.bodies):
                self.disk_full_since = None  # rows were written: there is space again
            for tx in batch.bodies:
                tx.run_after_commit()  # committed: publish even if a request went away
            batch.committed.set_result(None)
            if announce:  # to the other processes, in commit order (see pg/bus.py)
                await asyncio.shield(self._bus.announce(writer))

    @staticmethod
    async def _commit_now(writer: Any, changed: set[str], lock: bool) -> None:
        if lock:
            noted = await writer.fetchval(_CHANGED_AND_LOCK, pg_bus.LOCK_KEY)
        else:
            noted = await writer.fetchval("SELECT current_setting('teamchat.changed', true)")
        changed.update(t for t in (noted or "").split(",") if t)
        await writer.execute("COMMIT")

    async def probe_space(self) -> None:
        async with self.write() as tx:
            await tx.execute("UPDATE teamchat_schema SET version = version")
        self.disk_full_since = None

    @asynccontextmanager
    async def writes_paused(self) -> AsyncIterator[None]:
        async with self._write_lock:
            yield

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Conn]:
        """A read connection in one REPEATABLE READ, READ ONLY snapshot."""
        conn = await self._idle_readers.get()
        try:
            if conn.is_in_transaction():
                await finish(conn.execute("ROLLBACK"))
            memos = self._memos.start()  # before the snapshot: see Memos
            await finish(conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"))
            try:
                yield PgConn(conn, self._dialect, memos)
            finally:
                if not conn.is_closed():
                    await asyncio.shield(conn.execute("COMMIT"))
        finally:
            self._idle_readers.put_nowait(conn)

    @asynccontextmanager
    async def read_in_step(self) -> AsyncIterator[Conn]:
        """While announcements are held back (the advisory lock, shared), take the snapshot
        and send a boundary; enter once the boundary is heard back."""
        if not self._bus.attached or self._listener is None:
            async with self.read() as conn:
                yield conn
            return
        send_boundary, heard = self._bus.boundary()
        conn = await self._idle_readers.get()
        try:
            if conn.is_in_transaction():
                await finish(conn.execute("ROLLBACK"))
            memos = self._memos.start()
            await finish(conn.execute(f"SELECT pg_advisory_lock_shared({pg_bus.LOCK_KEY})"))
            try:
                await finish(conn.execute(send_boundary))
                await finish(conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"))
                await finish(conn.execute("SELECT 1"))  # the snapshot is taken here
            finally:
                await asyncio.shield(
                    conn.execute(f"SELECT pg_advisory_unlock_shared({pg_bus.LOCK_KEY})")
                )
            try:
                await asyncio.wait_for(asyncio.shield(heard), BOUNDARY_WAIT_SECS)
            except TimeoutError:
                log.warning("a register's boundary was not heard back; going on without it")
            # Announcements after the boundary are held until the caller's first await: what
            # it creates before that (the queue) gets them all.
            asyncio.get_running_loop().call_soon(self._bus.resume)
            try:
                yield PgConn(conn, self._dialect, memos)
            finally:
                if not conn.is_closed():
                    await asyncio.shield(conn.execute("COMMIT"))
        finally:
            self._bus.forget(heard)
            self._bus.resume()
            self._idle_readers.put_nowait(conn)

    def watcher(self, interval_secs: float) -> PgWatcher:
        from teamchat.store.pg.watcher import PgWatcher

        return PgWatcher(self, interval_secs)


__all__ = ["PgDatabase"]

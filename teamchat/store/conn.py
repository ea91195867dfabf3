"""The store's contract, shared by both backends (SQLite in `db.py`, PostgreSQL in `pg/`).

Store query functions take a `Conn` (a read snapshot or a transaction) or a `Tx` (a write
transaction body) and run SQL written once, with `?` placeholders, in the SQL both backends
accept (the PostgreSQL backend translates placeholders and the few SQLite forms it emulates,
once per SQL string; see `pg/dialect.py`). Rows answer by index and by column name. Above the
store, code sees `BaseDatabase`, `Conn`, `Tx`, `Row` and the errors below, never a driver.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from teamchat.lib.disk_full import is_disk_full

if TYPE_CHECKING:
    from teamchat.store.memos import Memos

Params = tuple[object, ...] | dict[str, object]
T = TypeVar("T")

# Tables whose changes caches above the store depend on (see `BaseDatabase.version`).
# The organization-wide parts of POST /register and GET /users (channels, subscribers, user
# groups, custom profile values) are built once per version of theirs too.
# Every send renders with the organization's alert words.
WATCHED_TABLES = ("users", "realm", "linkifier", "stream", "subscription", "user_group",
                  "user_group_member", "user_group_subgroup",
                  "custom_profile_field_value", "idle_user", "alert_word")  # fmt: skip


class DatabaseError(Exception):
    """A database failure raised by a backend that has no exception of the standard kind."""


class IntegrityError(DatabaseError):
    """A UNIQUE, FOREIGN KEY, CHECK or NOT NULL constraint refused a change (both backends)."""


# What to catch for "the database failed" (SQLite's own errors, and every backend's ours).
DATABASE_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error, DatabaseError)


class Row(Protocol):
    """One result row: by position (`row[0]`) and by column name (`row["id"]`)."""

    def __getitem__(self, key: int | str, /) -> Any: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Any]: ...
    def keys(self) -> Any: ...


class Conn:
    """A connection inside one transaction or snapshot; store queries take this."""

    _memos: Memos | None = None
    # Which SQL reads it ("sqlite" or "postgresql"): for the few store functions whose work
    # has no counterpart on the other backend (SQLite's page cache, its FTS5 index).
    backend = "sqlite"

    async def memo(
        self,
        tables: str | tuple[str, ...],
        key: str,
        load: Callable[[Conn], Awaitable[T]],
        *,
        fresh: Callable[[T], bool] | None = None,
    ) -> T:
        """`load(self)`, remembered until one of `tables` changes (or `fresh(value)` says
        the value has aged: for values that also depend on the clock). Values must be
        treated as immutable by every caller."""
        if self._memos is None:
            return await load(self)
        names = (tables,) if isinstance(tables, str) else tables
        return await self._memos.get(self, names, key, load, fresh)

    @property
    def memoizes(self) -> bool:
        """Whether `memo` remembers values here (read snapshots do, transactions do not)."""
        return self._memos is not None

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; return the new row's id (for INSERT into a table with one)."""
        raise NotImplementedError

    async def execute_rowcount(self, sql: str, params: tuple[object, ...] = ()) -> int:
        """Run one statement; return how many rows it changed."""
        raise NotImplementedError

    async def executemany(self, sql: str, rows: list[tuple[object, ...]]) -> None:
        raise NotImplementedError

    async def fetchone(self, sql: str, params: tuple[object, ...] = ()) -> Row | None:
        raise NotImplementedError

    async def fetchall(self, sql: str, params: tuple[object, ...] = ()) -> list[Row]:
        raise NotImplementedError

    async def fetchall_tuples(
        self, sql: str, params: tuple[object, ...] = ()
    ) -> list[tuple[Any, ...]]:
        """Rows as plain tuples (by position only): cheaper for reads of whole tables."""
        raise NotImplementedError

    async def advance_id_sequences(self, tables: tuple[str, ...]) -> None:
        """After rows were inserted with explicit ids into `tables`: make the ids the database
        assigns next continue after the largest. SQLite does so by itself (a rowid is one past
        the largest; AUTOINCREMENT's counter follows explicit ids); PostgreSQL's identity
        sequences do not, and are moved here."""
        return None


class Tx(Conn):
    """One write transaction body: statements run on the writer; hooks run after COMMIT."""

    _after_commit: list[Callable[[], None]]

    def after_commit(self, hook: Callable[[], None]) -> None:
        """Run `hook` after COMMIT, in commit order; dropped on rollback."""
        self._after_commit.append(hook)

    def has_after_commit(self) -> bool:
        return bool(self._after_commit)

    def run_after_commit(self) -> None:
        hooks, self._after_commit = self._after_commit, []
        for hook in hooks:
            hook()


class BaseDatabase:
    """What the actions get as `rt.db`, whichever backend holds the data."""

    # When a write first failed for want of disk space (None: the last commit worked).
    disk_full_since: float | None = None
    # Which backend: "sqlite" or "postgresql" (for messages and tooling, not for branching).
    backend = ""

    def describe(self) -> str:
        """Where the data is, for people (a path, or a URL without its password)."""
        raise NotImplementedError

    def _note_failure(self, exc: BaseException) -> None:
        """A write failed: remember when the disk first filled (GET /health tells)."""
        if is_disk_full(exc) and self.disk_full_since is None:
            self.disk_full_since = time.time()

    def version(self, table: str) -> int | None:
        """Grows whenever committed data of a watched `table` may have changed; None when
        that cannot be known now (read the database instead of a cached value)."""
        versions = self.versions()
        return None if versions is None else versions[table]

    def versions(self) -> dict[str, int] | None:
        """Every watched table's version (a copy), or None when they cannot be known now."""
        raise NotImplementedError

    async def open(self) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    def write(self) -> AbstractAsyncContextManager[Tx]:
        """One write transaction body; the block ends once it is durably committed."""
        raise NotImplementedError

    def read(self) -> AbstractAsyncContextManager[Conn]:
        """A read-only snapshot."""
        raise NotImplementedError

    def read_in_step(self) -> AbstractAsyncContextManager[Conn]:
        """`read()`, whose snapshot is in step with the events of other server processes: on
        entry, the events of every change it holds have been received (see `bus()`), and the
        events of every later change are received after, once the block first awaits: create
        what must receive them (the queue) before that. Used inside `writes_paused()`, it
        gives register an exact boundary. With one process, it is `read()`."""
        return self.read()

    def writes_paused(self) -> AbstractAsyncContextManager[None]:
        """Hold this process's writer: no transaction commits (and no event publishes)."""
        raise NotImplementedError

    async def probe_space(self) -> None:
        """Write without changing anything; on success, space is back."""
        raise NotImplementedError

    def watcher(self, interval_secs: float) -> ChangeWatcher:
        """A watcher of other processes' commits (not yet opened)."""
        raise NotImplementedError

    def bus(self) -> ProcessBus | None:
        """How this process's server announces text to the other server processes on the
        same database, in commit order (None: a backend served by one process)."""
        return None


class ProcessBus(Protocol):
    """Text announced by one server process to the others (see `store/pg/bus.py`)."""

    def attach(
        self,
        collect: Callable[[], str | None],
        receive: Callable[[str], None],
        lost: Callable[[], None],
    ) -> None: ...
    def send_soon(self) -> None: ...


class ChangeWatcher(Protocol):
    """Runs its listeners after other processes committed (see `store/watcher.py`)."""

    def add_listener(self, listener: Callable[[], Awaitable[object]]) -> None: ...
    async def open(self) -> None: ...
    async def close(self) -> None: ...
    async def check(self) -> bool: ...
    async def run(self) -> None: ...


__all__ = [
    "DATABASE_ERRORS",
    "WATCHED_TABLES",
    "BaseDatabase",
    "ChangeWatcher",
    "Conn",
    "DatabaseError",
    "IntegrityError",
    "Params",
    "Row",
    "Tx",
]

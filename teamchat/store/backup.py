"""Backups of the one database file: SQLite's online backup API (consistent while a server
writes), verification, restore, and the lock a running server holds on its database.

The file is the whole organization (uploads, avatars and emoji are stored in it), so a copy
of it is a complete backup. Synchronous: callers run these in a thread or a CLI process.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from teamchat.store.migrations import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    NotOurDatabaseError,
    check_application_id,
    migrate,
)

log = logging.getLogger(__name__)
PAGES_PER_STEP = 1024
Progress = Callable[[int, int], None]  # (pages copied, total pages)


class LockError(Exception):
    """The lock file beside the database cannot be taken."""


class DatabaseInUseError(LockError):
    """A server is running on the database (it holds the lock file)."""


def lock_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".lock")


class ServerLock:
    """An exclusive advisory lock on `<db>.lock`, held by `teamchat serve` while it runs and
    taken briefly by `restore` and `import`; the kernel releases it when the process dies.

    The file exists only while the lock is held: `release` deletes it (still holding the
    lock), and `acquire` checks that the file it locked is still the one at the path, so a
    process that opened it just before the deletion tries again instead of sharing the lock."""

    def __init__(self, db_path: Path) -> None:
        self.path = lock_path(db_path)
        self._handle: IO[str] | None = None

    def acquire(self) -> None:
        """Take the lock or raise DatabaseInUseError (or LockError when the file cannot be made)."""
        while True:
            try:
                handle = self.path.open("a")
            except OSError as exc:
                raise LockError(
                    f"cannot use database {self.path.with_suffix('')}: "
                    f"cannot create {self.path}: {exc.strerror}"
                ) from None
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                raise DatabaseInUseError(
                    f"a teamchat server is running on {self.path.with_suffix('')}"
                ) from None
            try:
                same = os.fstat(handle.fileno()).st_ino == self.path.stat().st_ino
            except FileNotFoundError:
                same = False
            if same:
                self._handle = handle
                return
            handle.close()  # deleted by its last holder meanwhile: lock the new file

    def release(self) -> None:
        if self._handle is not None:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            self._handle.close()
            self._handle = None


def _copy(source: Path, dest: Path, progress: Progress | None) -> sqlite3.Connection:
    """Copy every page of `source` into `dest` (one consistent snapshot of a live database);
    return the open connection to `dest` for the caller to finish and close."""
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    out = sqlite3.connect(dest)
    try:
        report = None
        if progress is not None:
            report = lambda _status, left, total: progress(total - left, total)  # noqa: E731
        src.backup(out, pages=PAGES_PER_STEP, progress=report)
    except BaseException:
        out.close()
        raise
    finally:
        src.close()
    return out


def backup(source: Path, dest: Path, progress: Progress | None = None) -> None:
    """Copy the live database `source` to the new file `dest`, page by page; the copy is
    readable by its owner only, as the database is."""
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT, 0o600)
    os.fchmod(fd, 0o600)  # an existing file keeps its mode through os.open
    os.close(fd)
    out = _copy(source, dest, progress)
    try:
        out.execute("PRAGMA journal_mode=DELETE")  # a standalone copy: no WAL beside it
    finally:
        out.close()


def integrity_problem(path: Path) -> str | None:
    """What `PRAGMA integrity_check` finds wrong with the file, or None when it is sound."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = [str(row[0]) for row in conn.execute("PRAGMA integrity_check")]
    except sqlite3.DatabaseError as exc:
        return str(exc)
    finally:
        conn.close()
    return None if rows == ["ok"] else "; ".join(rows[:5])


def check_restorable(path: Path) -> int:
    """Raise NotOurDatabaseError unless `path` looks like a teamchat database this version can
    migrate (its header: application id and schema version); return its schema version.
    `stage_restore` then checks its content, on a copy."""
    if not path.is_file() or path.stat().st_size == 0:
        raise NotOurDatabaseError(f"{path} is not a teamchat database (missing or empty)")
    check_application_id(path)
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise NotOurDatabaseError(f"{path} cannot be read: {exc}") from None
    if app_id != APPLICATION_ID or version < 1:
        raise NotOurDatabaseError(f"{path} is not a teamchat database")
    assert version <= SCHEMA_VERSION  # check_application_id refused newer ones
    return version


def staging_path(target: Path) -> Path:
    return target.with_name(target.name + ".restoring")


def stage_restore(source: Path, target: Path, progress: Progress | None = None) -> Path:
    """Copy `source` beside `target` and verify the copy: sound pages (integrity_check), the
    migrations apply, and every table, column, index and trigger of this version's schema is
    there. Return the verified copy, at this version's schema; raise NotOurDatabaseError (and
    leave nothing behind) if any check fails. `target` is not touched."""
    if target.exists() and os.path.samefile(source, target):
        raise NotOurDatabaseError(f"{source} is the database itself; there is nothing to restore")
    staged = staging_path(target)
    _remove_with_journals(staged)
    try:
        _copy(source, staged, progress).close()
        _verify_copy(staged)
    except NotOurDatabaseError:
        _remove_with_journals(staged)
        raise
    except (sqlite3.Error, OSError) as exc:
        _remove_with_journals(staged)
        raise NotOurDatabaseError(f"{source} cannot be restored: {exc}") from None
    return staged


def _verify_copy(staged: Path) -> None:
    problem = integrity_problem(staged)
    if problem:
        raise NotOurDatabaseError(f"the backup is damaged: {problem}")
    conn = sqlite3.connect(staged, isolation_level=None)
    try:
        try:
            migrate(conn)
        except sqlite3.Error as exc:
            raise NotOurDatabaseError(
                f"the backup is missing part of teamchat's schema ({exc})"
            ) from None
        missing = schema_differences(reference_schema(), schema_of(conn))
    finally:
        conn.close()
    if missing:
        raise NotOurDatabaseError(
            "the backup is missing part of teamchat's schema: " + "; ".join(missing[:5])
        )


Schema = dict[str, tuple[str, frozenset[str]]]  # name -> (type, columns)


def schema_of(conn: sqlite3.Connection) -> Schema:
    """Every table, view, index and trigger (SQLite's own excepted) with its columns."""
    rows = conn.execute(
        "SELECT type, name FROM sqlite_master"
        " WHERE type IN ('table', 'view', 'index', 'trigger') AND name NOT LIKE 'sqlite_%'"
    ).fetchall()
    schema: Schema = {}
    for kind, name in rows:
        columns: frozenset[str] = frozenset()
        if kind in ("table", "view"):
            quoted = '"' + str(name).replace('"', '""') + '"'
            columns = frozenset(str(r[1]) for r in conn.execute(f"PRAGMA table_xinfo({quoted})"))
        schema[str(name)] = (str(kind), columns)
    return schema


def reference_schema() -> Schema:
    """This version's schema, as a new database gets it."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        migrate(conn)
        return schema_of(conn)
    finally:
        conn.close()


def schema_differences(expected: Schema, found: Schema) -> list[str]:
    """What `found` lacks of `expected` ("table users is missing", "... lacks column x")."""
    problems = []
    for name, (kind, columns) in sorted(expected.items()):
        if name not in found or found[name][0] != kind:
            problems.append(f"{kind} {name} is missing")
            continue
        lacking = sorted(columns - found[name][1])
        if lacking:
            problems.append(f"{kind} {name} lacks column(s) {', '.join(lacking)}")
    return problems


def _remove_with_journals(path: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def restore(staged: Path, target: Path, progress: Progress | None = None) -> None:
    """Replace `target`'s content with the verified copy `staged` (from `stage_restore`),
    then delete the copy. The caller holds the ServerLock."""
    try:
        _copy(staged, target, progress).close()
    finally:
        _remove_with_journals(staged)


async def backup_from_url(
    url: str, dest: Path, progress: Callable[[str, int, int], None] | None = None
) -> None:
    """Copy the PostgreSQL database `url` into the new SQLite file `dest`, from one
    REPEATABLE READ snapshot while servers keep writing: the same kind of file as a backup
    of a SQLite database, restored the same way (or moved back into PostgreSQL with
    `teamchat migrate`)."""
    from teamchat.store.move import move_database  # the copier: loaded by backups only

    _remove_with_journals(dest)
    try:
        if progress is None:
            await move_database(url, dest)
        else:
            await move_database(url, dest, progress)
        out = sqlite3.connect(dest)
        try:
            out.execute("PRAGMA journal_mode=DELETE")  # a standalone copy: no WAL beside it
        finally:
            out.close()
    except BaseException:
        _remove_with_journals(dest)
        raise


async def restore_into_url(staged: Path, url: str) -> None:
    """Replace every row of the PostgreSQL database `url` with those of the verified copy
    `staged` (from `stage_restore`), in one transaction; then delete the copy."""
    from teamchat.store.move import move_database

    try:
        await move_database(staged, url, replace=True)
    finally:
        _remove_with_journals(staged)


def backup_name(now: float) -> str:
    return time.strftime("teamchat-%Y%m%d-%H%M%S.db", time.gmtime(now))


def rotate(folder: Path, keep: int) -> list[Path]:
    """Delete all but the newest `keep` automatic backups in `folder`; return those deleted."""
    backups = sorted(folder.glob("teamchat-*.db"))
    doomed = backups[: max(len(backups) - keep, 0)]
    for path in doomed:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    return doomed


def backup_into(source: Path | str, folder: Path, keep: int) -> Path:
    """One automatic backup of the database `source` (a SQLite file or a PostgreSQL URL)
    into `folder` (verified), then keep only the newest `keep`."""
    folder.mkdir(parents=True, exist_ok=True)
    dest = folder / backup_name(time.time())
    partial = dest.with_name(dest.name + ".partial")
    if isinstance(source, str):
        asyncio.run(backup_from_url(source, partial))  # in its own thread and event loop
    else:
        backup(source, partial)
    problem = integrity_problem(partial)
    if problem:
        partial.unlink()
        raise RuntimeError(f"backup failed its integrity check: {problem}")
    os.replace(partial, dest)
    rotate(folder, keep)
    return dest


async def run_periodic_backups(
    source: Path | str, folder: Path, every_secs: float, keep: int
) -> None:
    """Back up every `every_secs` until cancelled; failures are logged, never fatal."""
    while True:
        await asyncio.sleep(every_secs)
        try:
            dest = await asyncio.to_thread(backup_into, source, folder, keep)
            log.info("backup written to %s (%d bytes)", dest, dest.stat().st_size)
        except Exception:
            log.exception("automatic backup failed")

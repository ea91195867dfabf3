"""`teamchat backup DEST` and `teamchat restore SRC`: copies of the one database file.

Backups run while a server serves (SQLite's online backup API) and are verified; restore
refuses while a server holds the database's lock file and checks what it restores.
"""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)

from teamchat.cli.common import STATE, check_db_path, console, fail, other_sessions
from teamchat.config import Settings
from teamchat.lib.db_url import redact
from teamchat.store import backup as backups
from teamchat.store.conn import DATABASE_ERRORS
from teamchat.store.migrations import SCHEMA_VERSION, NotOurDatabaseError
from teamchat.store.move import MoveRefusedError

PAGE_BYTES_GUESS = 4096


def _with_progress(description: str, copy: Callable[[backups.Progress], None]) -> None:
    """Run `copy` with a rich progress bar fed its (pages done, pages in all)."""
    columns = (TextColumn(description), BarColumn(), DownloadColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(description, total=None)

        def step(done: int, total: int) -> None:
            bar.update(task, completed=done * PAGE_BYTES_GUESS, total=total * PAGE_BYTES_GUESS)

        copy(step)


def _size(path: Path) -> str:
    size = float(path.stat().st_size)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size} bytes"


def backup(
    dest: Annotated[Path, typer.Argument(help="File to write, or a folder for a dated name")],
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file")] = False,
) -> None:
    """Copy the database (the whole organization, uploads included unless they are kept in a
    directory or bucket of their own) while it is in use. A PostgreSQL database is copied
    into the same kind of SQLite file."""
    source: Path | str = STATE.db_url or STATE.db_path
    if isinstance(source, Path):
        check_db_path(source, create=False)
    if dest.is_dir():
        dest = dest / backups.backup_name(time.time())
    if dest.exists() and not force:
        raise fail(f"{dest} exists (pass --force to overwrite it)")
    if not dest.parent.is_dir():
        raise fail(f"cannot write {dest}: directory {dest.parent} does not exist")
    partial = dest.with_name(dest.name + ".partial")
    try:
        if isinstance(source, str):
            _backup_url(source, partial)
        else:
            _with_progress("Backing up", lambda step: backups.backup(source, partial, step))
    except Exception as exc:  # a database error or OSError: one line, nothing left behind
        partial.unlink(missing_ok=True)
        raise fail(f"backup failed: {exc}") from None
    problem = backups.integrity_problem(partial)
    if problem:
        partial.unlink(missing_ok=True)
        raise fail(f"the copy failed its integrity check: {problem}")
    partial.replace(dest)
    where = redact(source) if isinstance(source, str) else source
    console.print(f"[green]Backed up[/] {where} to {dest} ({_size(dest)}, integrity ok)")
    uploads = Settings.from_env(source, uploads=STATE.uploads).uploads
    if uploads not in ("", "database", "db"):
        # The rows name the files by key; the bytes stay where they are (see
        # docs/uploads-storage.md: keys are never reused, so copying the store after the
        # database gives a consistent pair; only avatars/{user_id} is replaced in place).
        console.print(
            f"Uploads are kept in {uploads}, not in this file: copy them too"
            " (docs/uploads-storage.md, Backups)",
            soft_wrap=True,
        )


def _backup_url(url: str, partial: Path) -> None:
    """Copy the PostgreSQL database into the SQLite file `partial`, a table at a time."""
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        tasks: dict[str, object] = {}

        def step(table: str, done: int, total: int) -> None:
            if table not in tasks:
                tasks[table] = bar.add_task(f"Backing up {table}", total=total)
            bar.update(tasks[table], completed=done, total=total)  # type: ignore[arg-type]

        asyncio.run(backups.backup_from_url(url, partial, step))


def restore(
    source: Annotated[Path, typer.Argument(help="A backup made by `teamchat backup`")],
) -> None:
    """Replace the database with a backup, once a copy of it passed every check. Refused
    while a server runs on it."""
    if STATE.db_url is not None:
        _restore_url(source, STATE.db_url)
        return
    target = STATE.db_path
    if not target.parent.is_dir():
        raise fail(f"cannot use database {target}: directory {target.parent} does not exist")
    try:
        version = backups.check_restorable(source)
    except NotOurDatabaseError as exc:
        raise fail(str(exc)) from None
    lock = backups.ServerLock(target)
    try:
        lock.acquire()
    except backups.DatabaseInUseError as exc:
        raise fail(f"{exc}; stop it before restoring") from None
    except backups.LockError as exc:
        raise fail(str(exc)) from None
    try:
        staged: list[Path] = []
        _with_progress(
            "Checking", lambda step: staged.append(backups.stage_restore(source, target, step))
        )
        _with_progress("Restoring", lambda step: backups.restore(staged[0], target, step))
    except NotOurDatabaseError as exc:
        raise fail(f"{exc}; {target} was not changed") from None
    except (sqlite3.Error, OSError) as exc:
        raise fail(f"restore failed: {exc}") from None
    finally:
        lock.release()
    note = "" if version == SCHEMA_VERSION else f" (migrated to {SCHEMA_VERSION})"
    console.print(
        f"[green]Restored[/] {target} from {source}: schema version {version}{note}, "
        "integrity and schema checked"
    )


def _restore_url(source: Path, url: str) -> None:
    """Restore into PostgreSQL: the backup is checked (and migrated) on a copy, then every row
    of the database is replaced by the copy's in one transaction."""
    try:
        version = backups.check_restorable(source)
    except NotOurDatabaseError as exc:
        raise fail(str(exc)) from None
    others = other_sessions(url)
    if others:
        raise fail(
            f"a teamchat server is running on {redact(url)} ({others} other connection(s) are"
            " open); stop every server before restoring"
        )
    with tempfile.TemporaryDirectory(prefix="teamchat-restore-") as folder:
        try:
            staged: list[Path] = []
            target = Path(folder) / "restore.db"
            _with_progress(
                "Checking", lambda step: staged.append(backups.stage_restore(source, target, step))
            )
            asyncio.run(backups.restore_into_url(staged[0], url))
        except NotOurDatabaseError as exc:
            raise fail(f"{exc}; {redact(url)} was not changed") from None
        except DATABASE_ERRORS as exc:
            raise fail(f"restore failed, {redact(url)} was not changed: {exc}") from None
        except (OSError, MoveRefusedError) as exc:
            raise fail(f"restore failed, {redact(url)} was not changed: {exc}") from None
    note = "" if version == SCHEMA_VERSION else f" (migrated to {SCHEMA_VERSION})"
    console.print(
        f"[green]Restored[/] {redact(url)} from {source}: schema version {version}{note}, "
        "integrity and schema checked, every table's rows compared"
    )

"""`teamchat migrate --to TARGET`: copy the database (--db) into a new, empty one, of either
kind: a SQLite file into PostgreSQL, PostgreSQL into a SQLite file (so a move is never
one-way), or the same kind. Verified before it is committed; see docs/postgresql.md.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from teamchat.cli.common import STATE, console, err_console, other_sessions
from teamchat.config import Settings
from teamchat.lib.db_url import is_database_url, redact
from teamchat.store.backends import MissingDriverError
from teamchat.store.backup import DatabaseInUseError, LockError, ServerLock
from teamchat.store.conn import DATABASE_ERRORS
from teamchat.store.migrations import NotOurDatabaseError
from teamchat.store.move import (
    MoveMismatchError,
    MoveRefusedError,
    MoveReport,
    move_database,
)

# Exit statuses: 2 when the copy could not start or failed (nothing was written), 1 when
# the copy was made but its check found a difference (it was not committed either).
EXIT_REFUSED = 2
EXIT_MISMATCH = 1


def refuse(message: str) -> typer.Exit:
    err_console.print(f"[red]error:[/] {message}", soft_wrap=True)
    return typer.Exit(EXIT_REFUSED)


def migrate_command(
    to: Annotated[
        str,
        typer.Option(
            "--to",
            help="The new, empty database: a postgresql://user:password@host:port/dbname URL"
            " or a SQLite file",
        ),
    ],
) -> None:
    """Copy the whole database (--db) into a new, empty one: SQLite into PostgreSQL, or
    PostgreSQL back into a SQLite file. Stop the server first (or copy from a backup)."""
    source: str | Path = STATE.db_target
    target: str | Path = to if is_database_url(to) else Path(to)
    _check_places(source, target)
    created = isinstance(target, Path) and not target.exists()
    lock = _hold_source(source)
    try:
        report = _run(source, target)
    except BaseException:
        if created and isinstance(target, Path):
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(f"{target}{suffix}").unlink(missing_ok=True)
        raise
    finally:
        if lock is not None:
            lock.release()
    _print_report(report)
    console.print(
        f"[green]Copied[/] {report.rows} rows from {report.source} to {report.target}:"
        f" every table's row count and {report.sampled_messages} sampled messages (with"
        " their flags and reactions) match",
        soft_wrap=True,
    )
    _uploads_note(target)


def _check_places(source: str | Path, target: str | Path) -> None:
    if isinstance(source, Path) and not source.is_file():
        raise refuse(f"no database at {source} (give the one to copy with --db)")
    if isinstance(target, Path):
        if not target.parent.is_dir():
            raise refuse(f"cannot write {target}: directory {target.parent} does not exist")
        if isinstance(source, Path) and target.exists() and os.path.samefile(source, target):
            raise refuse(f"{target} is the database being copied; give a new one with --to")
    elif target == source:
        raise refuse(f"{redact(target)} is the database being copied; give a new one with --to")


def _hold_source(source: str | Path) -> ServerLock | None:
    """Refuse while a server writes to the source: what it wrote after the copy's snapshot
    would be missing from the copy. A SQLite file stays locked while it is copied."""
    if isinstance(source, Path):
        lock = ServerLock(source)
        try:
            lock.acquire()
        except DatabaseInUseError:
            raise refuse(
                f"a teamchat server is running on {source}; stop it first (what it writes"
                " during the copy would be missing from the copy), or copy from a backup"
            ) from None
        except LockError:
            return None  # no lock file can be made there: no server can run on it either
        return lock
    others = other_sessions(source, refuse)
    if others:
        raise refuse(
            f"{others} other connection(s) to {redact(source)} are open (a running teamchat"
            " server?); stop the servers first, or copy from a backup"
        )
    return None


def _run(source: str | Path, target: str | Path) -> MoveReport:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())  # fmt: skip
    try:
        with Progress(*columns, console=console, transient=True) as bar:
            tasks: dict[str, object] = {}

            def progress(table: str, done: int, total: int) -> None:
                if table not in tasks:
                    tasks[table] = bar.add_task(f"Copying {table}", total=total)
                bar.update(tasks[table], completed=done, total=total)  # type: ignore[arg-type]

            return asyncio.run(move_database(source, target, progress))
    except MoveMismatchError as exc:
        _print_report(exc.report)
        err_console.print(
            f"[red]error:[/] the copy differs from the source: {exc}; nothing was written to"
            f" {exc.report.target}",
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_MISMATCH) from None
    except (MoveRefusedError, NotOurDatabaseError, MissingDriverError) as exc:
        raise refuse(str(exc)) from None
    except DATABASE_ERRORS as exc:
        raise refuse(f"the copy failed, nothing was written: {exc}") from None
    except (OSError, ValueError) as exc:  # an unusable path or URL: one line
        raise refuse(f"cannot copy: {exc}") from None


def _print_report(report: MoveReport) -> None:
    table = Table("table", "rows in the source", "rows in the copy", title="Copied tables")
    for name, source, copied in report.counts:
        if source or copied:
            style = "" if source == copied else "red"
            table.add_row(name, str(source), str(copied), style=style)
    table.add_row("all tables", str(report.rows), str(sum(c[2] for c in report.counts)))
    console.print(table)


def _uploads_note(target: str | Path) -> None:
    uploads = Settings.from_env(STATE.db_target, uploads=STATE.uploads).uploads
    if uploads in ("", "database", "db"):
        console.print("Uploads, avatars and emoji are kept in the database: they were copied.")
        return
    where = f"--db {redact(target) if isinstance(target, str) else target}"
    console.print(
        f"Upload bytes stay in {uploads} (the copy names them by key): start the server on the"
        f" copy with the same setting, `teamchat {where} --uploads {uploads} serve` (or"
        " TEAMCHAT_UPLOADS). Several machines need a directory they all mount, or an"
        " S3-compatible bucket (docs/uploads-storage.md).",
        soft_wrap=True,
    )

"""Shared CLI plumbing: the --db option, running an action in a short-lived runtime, errors."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TypeVar

import typer
from rich.console import Console

from teamchat.config import Settings
from teamchat.errors import ZulipError
from teamchat.lib.db_url import redact
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import realm as realm_store
from teamchat.store import users as user_store
from teamchat.store.backends import MissingDriverError
from teamchat.store.blobs import BlobStore, BlobStoreError, open_blob_store
from teamchat.store.conn import DATABASE_ERRORS
from teamchat.store.migrations import NotOurDatabaseError
from teamchat.store.snapshot import other_connections

T = TypeVar("T")
console = Console(highlight=False, soft_wrap=True)  # paths and URLs stay on one line
err_console = Console(stderr=True, highlight=False, soft_wrap=True)


class CliState:
    """What the global options decided, shared by every command."""

    db_path: Path = Path("teamchat.db")
    # --db / TEAMCHAT_DB when it is a postgresql:// URL (db_path then only places zuliprc).
    db_url: str | None = None
    # Whether --db or TEAMCHAT_DB named it (the sandbox then keeps it instead of a temporary one).
    db_given: bool = False
    # --uploads / TEAMCHAT_UPLOADS: where upload bytes are kept (None: the setting's default).
    uploads: str | None = None

    @property
    def db_target(self) -> Path | str:
        """What --db named: the SQLite file, or the PostgreSQL URL."""
        return self.db_url or self.db_path


STATE = CliState()


JSON_OPTION = typer.Option("--json", help="Print JSON")


async def first_owner(rt: Runtime) -> UserRow:
    """The organization's first active human owner: who admin commands act as."""
    async with rt.db.read() as conn:
        if await realm_store.get_realm(conn) is None:
            raise ZulipError("This database has no organization yet.")
        owners = [u for u in await user_store.list_users(conn, is_active=True) if u.is_owner]
    humans = [u for u in owners if not u.is_bot]
    if not humans:
        raise ZulipError("The organization has no active owner.")
    return humans[0]


def fail(message: str) -> typer.Exit:
    err_console.print(f"[red]error:[/] {message}", soft_wrap=True)
    return typer.Exit(1)


# A database that cannot be reached, or read without its driver.
_UNREACHABLE: tuple[type[Exception], ...] = (*DATABASE_ERRORS, MissingDriverError)


def other_sessions(url: str, refuse: Callable[[str], typer.Exit] = fail) -> int:
    """How many other sessions use the PostgreSQL database `url` (a running server?); an
    unreachable database or a missing driver is refused in one line."""
    try:
        return asyncio.run(other_connections(url))
    except _UNREACHABLE as exc:
        raise refuse(str(exc)) from None


def check_db_path(path: Path, *, create: bool) -> None:
    """One line of error for a database we cannot or should not open; only `create`
    commands (serve, create-realm) make a new file."""
    if not path.parent.is_dir():
        raise fail(f"cannot use database {path}: directory {path.parent} does not exist")
    if not create and not path.exists():
        raise fail(
            f"no database at {path}; `teamchat --db {path} serve` (or `admin create-realm`) "
            "creates one"
        )


def run_action(
    action: Callable[[Runtime], Awaitable[T]],
    settings: Settings | None = None,
    *,
    create: bool = False,
) -> T:
    """Open the database with a recording broker (its events reach a running server through
    the change log), run `action`, close. Never creates a database unless `create`."""
    settings = settings or Settings.from_env(STATE.db_target, uploads=STATE.uploads)
    if settings.db_url is None:
        check_db_path(settings.db_path, create=create)

    async def main() -> T:
        rt = await Runtime.open_offline(settings)
        try:
            return await action(rt)
        finally:
            await rt.close()

    try:
        return asyncio.run(main())
    except ZulipError as exc:
        raise fail(exc.msg) from None
    except NotOurDatabaseError as exc:
        raise fail(str(exc)) from None
    except DATABASE_ERRORS as exc:
        raise fail(f"cannot use database {_where(settings)}: {exc}") from None
    except MissingDriverError as exc:
        raise fail(str(exc)) from None
    except BlobStoreError as exc:
        raise fail(f"uploads: {exc}") from None
    except OSError as exc:  # an unwritable folder or file: one line, not a traceback
        raise fail(f"cannot use database {_where(settings)}: {exc.strerror or exc}") from None


def _where(settings: Settings) -> str:
    return redact(settings.db_url) if settings.db_url else str(settings.db_path)


def open_uploads(settings: Settings) -> BlobStore | None:
    """The blob store the `uploads` setting names, checked now (None: in the database);
    a setting that cannot be used is one line of error."""
    try:
        store = open_blob_store(
            settings.uploads,
            s3_endpoint_url=settings.s3_endpoint_url,
            s3_region=settings.s3_region,
        )
        if store is not None:
            store.check()
    except BlobStoreError as exc:
        raise fail(f"uploads: {exc}") from None
    return store


def zuliprc_text(email: str, api_key: str, site: str) -> str:
    return f"[api]\nemail={email}\nkey={api_key}\nsite={site}\n"


def write_private_file(path: Path, text: str) -> None:
    """Write `text` readable by its owner only (zulip-terminal refuses anything else)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    except OSError as exc:
        raise fail(f"cannot write {path}: {exc.strerror}") from None
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.chmod(path, 0o600)  # an existing file keeps its mode through O_TRUNC


def print_settings(values: Mapping[str, object], *, as_json: bool) -> None:
    """A setting -> value listing: JSON, or a two-column table with JSON values."""
    if as_json:
        sys.stdout.write(json.dumps(dict(values), indent=2) + "\n")
        return
    from rich.table import Table  # imported by the commands that print tables only

    table = Table("setting", "value")
    for name, value in values.items():
        table.add_row(name, json.dumps(value))
    console.print(table)

"""`teamchat sandbox` (and `serve --dev`): a throwaway organization for client and bot
developers, with Zulip's development users, channels and messages.

INSECURE by design: fast password hashing, no API rate limit, password-less dev log-in,
credentials that are the same in every sandbox. It serves only databases it seeded itself.
"""

from __future__ import annotations

import asyncio
import logging
import re
import shutil
import tempfile
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import msgspec
import typer
from rich.console import Console
from rich.table import Table

from teamchat.actions.org import mail
from teamchat.cli.common import (
    STATE,
    check_db_path,
    console,
    err_console,
    fail,
    write_private_file,
    zuliprc_text,
)
from teamchat.cli.server import (
    PortUnavailableError,
    claim,
    install_logging,
    run_server,
    site_url,
)
from teamchat.config import RateLimit, Settings
from teamchat.errors import ZulipError
from teamchat.events.broker import NullBroker
from teamchat.lib import logsafe, passwords
from teamchat.lib.db_url import redact
from teamchat.lib.lazy import lazy_module
from teamchat.runtime import Runtime
from teamchat.store import realm as realm_store
from teamchat.store.backends import MissingDriverError
from teamchat.store.backup import LockError
from teamchat.store.conn import DATABASE_ERRORS
from teamchat.store.migrations import NotOurDatabaseError
from teamchat.store.move import MoveRefusedError, move_database

if TYPE_CHECKING:
    from teamchat.actions.ops import sandbox as sandbox_actions
    from teamchat.actions.ops.sandbox import SandboxAccount
    from teamchat.lib import sandbox_fixtures as fx
else:  # the seeding and its fixtures: imported when `teamchat sandbox` runs
    sandbox_actions = lazy_module("teamchat.actions.ops.sandbox")
    fx = lazy_module("teamchat.lib.sandbox_fixtures")

WARNING = (
    "[bold red]INSECURE SANDBOX[/]: fast password hashing (argon2 with minimal parameters), "
    "no API rate limit, relaxed log-in limits, password-less log-in (POST /dev_fetch_api_key) "
    "and the same passwords and API keys in every sandbox. For developing clients and bots "
    "only: never for real people or on a public address."
)
# Log-in attempts a sandbox allows: clients under test may fail often.
SANDBOX_AUTH_RATE_LIMIT = RateLimit(max_requests=1000, window_secs=60)
NO_RATE_LIMIT = RateLimit(max_requests=0, window_secs=1)
T = TypeVar("T")


def sandbox(
    host: Annotated[str, typer.Option(help="Address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on")] = 9991,
    zuliprc_dir: Annotated[
        Path | None,
        typer.Option(help="Folder for every account's zuliprc (default: next to the database)"),
    ] = None,
) -> None:
    """Run a throwaway organization with Zulip's development users, channels and messages
    (a temporary database unless --db names one). INSECURE: for client and bot developers."""
    err_console.print(WARNING, soft_wrap=True)
    passwords.use_insecure_fast_hashing()
    temporary = None if STATE.db_given else Path(tempfile.mkdtemp(prefix="teamchat-sandbox-"))
    db_path = temporary / "sandbox.db" if temporary else STATE.db_path
    try:
        if STATE.db_url is None or temporary is not None:
            check_db_path(db_path, create=True)
        settings = Settings.from_env(
            STATE.db_url if STATE.db_url and temporary is None else db_path,
            host=host,
            port=port,
            dev_auth=True,
            email_log_dir=_email_log_dir(db_path, temporary is not None),
            api_rate_limit=NO_RATE_LIMIT,
            auth_rate_limit=SANDBOX_AUTH_RATE_LIMIT,
            login_ip_rate_limit=NO_RATE_LIMIT,
        )
        folder = zuliprc_dir or _default_zuliprc_dir(db_path, temporary is not None)
        _serve_sandbox(settings, folder)
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)


def _email_log_dir(db_path: Path, temporary: bool) -> Path:
    """Where the sandbox writes every email it sends (also shown at /emails/)."""
    if temporary:
        return db_path.parent / "emails"
    return db_path.resolve().parent / f"{db_path.stem}-emails"


def _show_email_log(settings: Settings) -> None:
    """Print a line for every email sent (Zulip's development server logs them too)."""
    handler = logging.StreamHandler()
    handler.setFormatter(logsafe.SafeFormatter("%(asctime)s %(message)s"))
    mail_log = logging.getLogger(mail.__name__)
    mail_log.addHandler(handler)
    mail_log.setLevel(logging.INFO)
    console.print(
        f"  emails it sends: {settings.email_log_dir} and {site_url(settings)}/emails/",
        soft_wrap=True,
    )


def _default_zuliprc_dir(db_path: Path, temporary: bool) -> Path:
    if temporary:
        return db_path.parent / "zuliprc"
    return db_path.resolve().parent / f"{db_path.stem}-zuliprc"


def _serve_sandbox(settings: Settings, folder: Path) -> None:
    try:  # before seeding: a busy port is one line of error
        sock, lock = claim(settings)
    except (PortUnavailableError, LockError) as exc:
        raise fail(str(exc)) from None
    try:
        install_logging(settings)
        where = redact(settings.db_url) if settings.db_url else settings.db_path.resolve()
        console.print(f"teamchat sandbox: database {where}", soft_wrap=True)
        started = time.monotonic()
        make_private_folder(folder)
        accounts, seeded = _run(_prepare(settings))
        written = write_zuliprcs(folder, accounts, site_url(settings))
        print_accounts(accounts)
        verb = "Seeded" if seeded else "Reopened"
        console.print(
            f"[bold green]{verb}[/] the sandbox in {time.monotonic() - started:.1f} s; "
            f"a zuliprc for every account in {written}",
            soft_wrap=True,
        )
        console.print(f"  point any Zulip client at {site_url(settings)}", soft_wrap=True)
        console.print(
            f"  try: zulip-send --config-file {written / 'iago.zuliprc'} -s Verona -S test -m hi",
            soft_wrap=True,
        )
        _show_email_log(settings)
        run_server(settings, sock)
    finally:
        sock.close()
        lock.release()


def _run(work: Coroutine[Any, Any, T]) -> T:
    try:
        return asyncio.run(work)
    except ZulipError as exc:
        raise fail(exc.msg) from None
    except NotOurDatabaseError as exc:
        raise fail(str(exc)) from None
    except DATABASE_ERRORS as exc:
        raise fail(f"cannot use the sandbox database: {exc}") from None
    except (MoveRefusedError, MissingDriverError) as exc:
        raise fail(str(exc)) from None


async def _prepare(settings: Settings) -> tuple[list[SandboxAccount], bool]:
    """Seed a new database, or reopen a sandbox database; refuse one that holds another
    organization. Return the accounts and whether the database was seeded now."""
    if settings.db_url is not None:
        seeded = await _seed_url_if_new(settings)
    elif seeded := not settings.db_path.exists():
        # Seeded under another name and renamed when complete: an interrupted seeding
        # never leaves a half-made sandbox to be reopened later.
        staging = settings.db_path.with_name(settings.db_path.name + ".seeding")
        for leftover in (staging, *(Path(f"{staging}{end}") for end in ("-wal", "-shm"))):
            leftover.unlink(missing_ok=True)
        await _seed(msgspec.structs.replace(settings, db_path=staging))
        staging.replace(settings.db_path)
    rt = await Runtime.open(settings, broker=NullBroker())
    try:
        async with rt.db.read() as conn:
            realm = await realm_store.get_realm(conn)
        if realm is None or not sandbox_actions.is_sandbox(realm):
            where = redact(settings.db_url) if settings.db_url else settings.db_path
            raise ZulipError(
                f"{where} is not a sandbox database; the sandbox serves only databases it created"
            )
        return await sandbox_actions.sandbox_accounts(rt), seeded
    finally:
        await rt.close()


async def _seed_url_if_new(settings: Settings) -> bool:
    """A PostgreSQL database with no organization yet is seeded: in a SQLite file first
    (fast, and never half-made), then copied in by one transaction (`teamchat migrate`'s
    copier, which refuses a database holding anything). Whether it was seeded now."""
    assert settings.db_url is not None
    rt = await Runtime.open(settings, broker=NullBroker())
    try:
        async with rt.db.read() as conn:
            if await realm_store.get_realm(conn) is not None:
                return False
    finally:
        await rt.close()
    with tempfile.TemporaryDirectory(prefix="teamchat-sandbox-") as folder:
        staging = Path(folder) / "sandbox.db"
        await _seed(msgspec.structs.replace(settings, db_url=None, db_path=staging))
        await move_database(staging, settings.db_url)
    return True


async def _seed(settings: Settings) -> None:
    """Seed an empty database; its events go nowhere (nobody is connected yet)."""
    start = time.time() - (fx.MESSAGE_COUNT + len(fx.DIRECT_MESSAGES) + 1) * fx.MESSAGE_SPACING_SECS
    clock = sandbox_actions.SeedClock(start)
    rt = await Runtime.open(settings, broker=NullBroker(), clock=clock)
    try:
        with console.status("Seeding the sandbox", spinner="dots") as status:
            await sandbox_actions.seed_sandbox(
                rt,
                clock,
                realm_url=site_url(settings),
                progress=lambda text: status.update(f"Seeding the sandbox: {text}"),
            )
    finally:
        await rt.close()
    wal = Path(f"{settings.db_path}-wal")
    if wal.exists() and wal.stat().st_size:  # closing the last connection checkpoints it
        raise ZulipError(f"could not complete {settings.db_path}: its journal was not merged")


def zuliprc_name(email: str) -> str:
    """`iago.zuliprc`, `default-bot.zuliprc`: the address's local part, lower case."""
    local = email.partition("@")[0].lower()
    return re.sub(r"[^a-z0-9_.-]", "_", local) + ".zuliprc"


def make_private_folder(folder: Path) -> None:
    """Create `folder` (readable by its owner only) unless it exists; one line of error."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise fail(f"cannot create {folder}: {exc.strerror}") from None


def write_zuliprcs(folder: Path, accounts: list[SandboxAccount], site: str) -> Path:
    """One zuliprc per account in `folder`, each mode 0600."""
    for account in accounts:
        text = zuliprc_text(account.email, account.api_key, site)
        write_private_file(folder / zuliprc_name(account.email), text)
    return folder.resolve()


def print_accounts(accounts: list[SandboxAccount]) -> None:
    table = Table("id", "name", "email", "role", "password", "API key", title="Sandbox accounts")
    for account in accounts:
        table.add_row(
            str(account.user_id),
            account.full_name,
            account.email,
            account.role,
            account.password or "-",
            account.api_key,
        )
    # Wide enough for whole API keys and emails even when stdout is not a terminal.
    Console(highlight=False, width=max(console.width, 160)).print(table)

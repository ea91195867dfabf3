"""The `teamchat` command: global --db, `serve`, and the `admin` group.

`serve` bootstraps an empty database (organization, owner, zuliprc), then runs the app in
one uvicorn worker: one process, one writer, one in-memory broker.
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import Annotated

import typer

from teamchat import __version__
from teamchat.actions.ops.external_url import do_pin_external_url
from teamchat.actions.org import realm as realm_actions
from teamchat.cli import first_start
from teamchat.cli.common import (
    STATE,
    check_db_path,
    console,
    err_console,
    fail,
    open_uploads,
    run_action,
)
from teamchat.cli.lazy_commands import LazyGroup
from teamchat.cli.proxy_config import several_processes
from teamchat.cli.server import (
    PortUnavailableError,
    claim,
    install_logging,
    run_server,
)
from teamchat.config import DEFAULT_DB_PATH, Settings, bind_url, check_external_url
from teamchat.lib import wire
from teamchat.lib.db_url import is_database_url, redact
from teamchat.lib.passwords import random_password
from teamchat.runtime import Runtime
from teamchat.store import realm as realm_store
from teamchat.store.backup import LockError

app = typer.Typer(
    help="teamchat: a Zulip-compatible team chat server on one SQLite file.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    cls=LazyGroup,  # every command but `serve` is imported when it runs (cli/lazy_commands.py)
)

DEFAULT_ORG_NAME = "teamchat"
DEFAULT_OWNER_EMAIL = f"owner@{realm_actions.DEFAULT_REALM_HOST}"
DEFAULT_OWNER_NAME = "Owner"


def version_callback(value: bool) -> None:
    if value:
        console.print(f"teamchat {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    ctx: typer.Context,
    db: Annotated[
        str,
        typer.Option(
            envvar="TEAMCHAT_DB",
            help="SQLite database file, or a postgresql://user:password@host:port/dbname URL",
        ),
    ] = DEFAULT_DB_PATH,
    uploads: Annotated[
        str | None,
        typer.Option(
            envvar="TEAMCHAT_UPLOADS",
            help="Where upload bytes are kept: database (default), a directory, or"
            " s3://bucket/prefix",
        ),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=version_callback, is_eager=True)
    ] = False,
) -> None:
    STATE.db_url = db if is_database_url(db) else None
    STATE.db_path = Path("teamchat-postgresql").absolute() if STATE.db_url else Path(db)
    STATE.uploads = uploads
    source = ctx.get_parameter_source("db")
    STATE.db_given = source is not None and source.name != "DEFAULT"


async def bootstrap(rt: Runtime) -> tuple[str, str, str] | None:
    """On an empty database create the organization and owner; return (email, password, key)."""
    async with rt.db.read() as conn:
        if await realm_store.get_realm(conn) is not None:
            return None
    password = random_password()
    owner_email = os.environ.get("TEAMCHAT_OWNER_EMAIL", DEFAULT_OWNER_EMAIL)
    with console.status("Creating a new organization", spinner="dots") as status:
        realm, owner = await realm_actions.check_create_realm(
            rt,
            name=os.environ.get("TEAMCHAT_ORG_NAME", DEFAULT_ORG_NAME),
            owner_email=owner_email,
            owner_full_name=DEFAULT_OWNER_NAME,
            owner_password=password,
            realm_url=rt.external_url,
            progress=lambda text: status.update(f"Creating a new organization: {text}"),
        )
    return wire.api_email(owner, realm.host), password, owner.api_key


def open_organization(settings: Settings) -> tuple[str, tuple[str, str, str] | None]:
    """Pin the external URL (the given one, else one given before, else the bind address),
    say which it is and how to change it, then bootstrap an empty database; return the URL
    and what `bootstrap` returned. One opening of the database does both."""

    async def pin_and_bootstrap(rt: Runtime) -> tuple[str, tuple[str, str, str] | None]:
        url, replaced = await do_pin_external_url(
            rt, bind_url(settings.host, settings.port), settings.external_url
        )
        if replaced is not None:
            console.print(f"External URL changed from {replaced} to {url}", soft_wrap=True)
        console.print(
            f"External URL: {url} (links in emails, notifications and invitations use it;"
            " change it with `teamchat serve --external-url https://chat.example.com`)",
            soft_wrap=True,
        )
        return url, await bootstrap(rt)

    return run_action(pin_and_bootstrap, settings, create=True)


def print_next_steps(url: str, zuliprc: Path) -> None:
    """What to do once the server is up: open it, point a client at it."""
    console.print("Next:", soft_wrap=True)
    console.print(f"  open {url}/ in a browser to chat (the built-in web client)", soft_wrap=True)
    console.print(f"  point any Zulip client at {url}", soft_wrap=True)
    if zuliprc.exists():
        console.print(f"  client config: {zuliprc}", soft_wrap=True)
        console.print(
            f"  try: zulip-send --config-file {zuliprc} -s general -S hello -m hi",
            soft_wrap=True,
        )
    else:
        console.print("  a client config: teamchat admin zuliprc EMAIL --output zuliprc")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on")] = 9991,
    external_url: Annotated[
        str | None,
        typer.Option(
            envvar="TEAMCHAT_EXTERNAL_URL",
            help="URL people reach the server at; pinned at first start, used by every link"
            " in emails, notifications and invitations",
        ),
    ] = None,
    backup_every: Annotated[
        float | None,
        typer.Option(help="Back up every HOURS into <db folder>/backups (off by default)"),
    ] = None,
    backup_keep: Annotated[int | None, typer.Option(help="Automatic backups to keep")] = None,
    dev: Annotated[
        bool,
        typer.Option("--dev", help="Run `teamchat sandbox` instead (INSECURE, for developers)"),
    ] = False,
    process: Annotated[
        int | None,
        typer.Option(
            envvar="TEAMCHAT_PROCESS",
            help="This process's number (1-999) when several serve behind a reverse proxy"
            " (see `teamchat proxy-config`); its event queue ids carry it",
        ),
    ] = None,
    peers: Annotated[
        str | None,
        typer.Option(
            envvar="TEAMCHAT_PEERS",
            help="Every process as N=URL,N=URL (its number and direct URL): a request the proxy"
            " cannot route by queue id is forwarded to the queue's process",
        ),
    ] = None,
) -> None:
    """Run the server (bootstrapping an organization on an empty database)."""
    if dev:
        from teamchat.cli.sandbox import sandbox

        sandbox(host=host, port=port, zuliprc_dir=None)
        return
    if external_url is not None:
        try:
            external_url = check_external_url(external_url)
        except ValueError as error:
            raise fail(f"--external-url: {error}") from None
    try:
        processes = several_processes(process, peers)
    except ValueError as error:
        raise fail(f"--process/--peers: {error}") from None
    settings = Settings.from_env(
        STATE.db_target,
        uploads=STATE.uploads,
        host=host,
        port=port,
        external_url=external_url,
        backup_every_hours=backup_every,
        backup_keep=backup_keep,
        **processes,
    )
    if settings.backup_every_hours < 0 or settings.backup_keep < 1:
        raise fail("--backup-every takes a positive number of hours, --backup-keep at least 1")
    if settings.db_url is None:
        check_db_path(settings.db_path, create=True)
    blob_store = open_uploads(settings)
    if blob_store is not None:
        blob_store.close()
    try:  # before anything is created: a busy port leaves no organization and no files
        sock, lock = claim(settings)
    except (PortUnavailableError, LockError) as exc:
        raise fail(str(exc)) from None
    try:
        _start(settings, sock)
    finally:
        sock.close()
        lock.release()


def _start(settings: Settings, sock: socket.socket) -> None:
    """Bootstrap or reopen the database, say how to reach it, serve on `sock`."""
    install_logging(settings)
    where = redact(settings.db_url) if settings.db_url else settings.db_path.resolve()
    console.print(f"teamchat {__version__}: database {where}", soft_wrap=True)
    if settings.uploads not in ("", "database"):
        console.print(f"Uploads: {settings.uploads}", soft_wrap=True)
    url, created = open_organization(settings)
    if settings.db_url is None:
        first_start.warn_if_others_can_read(settings.db_path)
    zuliprc = first_start.zuliprc_path(settings.db_path)
    if created is not None:
        email, password, api_key = created
        problem = first_start.write_zuliprc(zuliprc, email, api_key, url)
        console.print("[bold green]Created a new organization[/] in", str(where))
        console.print(f"  owner email:    {email}")
        console.print(f"  owner password: {password}")
        console.print(f"  zuliprc:        {zuliprc}" if problem is None else f"  ({problem})")
        console.print("  (the password is shown only this once)")
    else:
        first_start.sync_zuliprc_site(zuliprc, url)
    print_next_steps(url, zuliprc)
    run_server(settings, sock)


GLOBAL_OPTIONS = ("--db", "--uploads")


def hoist_global_options(args: list[str]) -> list[str]:
    """Move `--db PATH` / `--db=PATH` (and `--uploads`) to the front, so they work after any
    subcommand too."""
    hoisted: list[str] = []
    rest: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            rest += args[index:]
            break
        if arg in GLOBAL_OPTIONS and index + 1 < len(args):
            hoisted += args[index : index + 2]
            index += 2
            continue
        if arg.startswith(tuple(f"{name}=" for name in GLOBAL_OPTIONS)):
            hoisted.append(arg)
        else:
            rest.append(arg)
        index += 1
    return hoisted + rest


def main() -> None:
    """Entry point: usage errors, like every other error, are one line and exit status 1.

    Every file teamchat creates (the database and its -wal and -shm files, backups, exports,
    zuliprc files) is readable by its owner only: the database holds every API key."""
    os.umask(0o077)
    try:
        status = app(args=hoist_global_options(sys.argv[1:]), standalone_mode=False)
    except (typer.Abort, KeyboardInterrupt):
        err_console.print("[red]error:[/] interrupted")
        sys.exit(1)
    except typer.TyperException as exc:
        formatter = getattr(exc, "format_message", None)
        message = formatter() if callable(formatter) else str(exc)
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `teamchat`: show the help
            console.print(message)
            sys.exit(0)
        err_console.print(f"[red]error:[/] {' '.join(message.split())}", soft_wrap=True)
        sys.exit(1)
    sys.exit(status if isinstance(status, int) else 0)


__all__ = ["app", "main", "run_action"]

"""`teamchat import PATH`: move an organization in from a Zulip or a Slack export.

Refused on a database that holds anything, or while a server runs on it; a database the
command created is removed again when the import fails.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from teamchat.cli.common import STATE, console, fail, other_sessions, run_action
from teamchat.lib.db_url import redact
from teamchat.lib.lazy import lazy_module
from teamchat.records import Role
from teamchat.store.backup import DatabaseInUseError, LockError, ServerLock

if TYPE_CHECKING:
    from teamchat.actions.ops.zulip_import import run as importer
    from teamchat.actions.ops.zulip_import.messages import ImportSummary
else:  # the importers (Zulip and Slack): imported when `teamchat import` runs
    importer = lazy_module("teamchat.actions.ops.zulip_import.run")

_STAGES = {
    "organization": "Organization",
    "messages": "Message files",
    "indexes": "Indexing",
    "files": "Uploads",
}


def import_command(
    path: Annotated[
        Path,
        typer.Argument(
            help="A Zulip export (its .tar.gz or folder) or a Slack export (its .zip or folder)"
        ),
    ],
) -> None:
    """Import an organization exported by Zulip's `manage.py export`, or a workspace exported
    by Slack's export tool, into a new database."""
    db_path = STATE.db_path
    if not path.exists():
        raise fail(f"{path} does not exist")
    if STATE.db_url is not None:
        _import_into_url(path, STATE.db_url)
        return
    existed = db_path.exists()
    lock = ServerLock(db_path) if db_path.parent.is_dir() else None
    try:
        if lock is not None:
            lock.acquire()
    except DatabaseInUseError as exc:
        raise fail(f"{exc}; import needs a new database") from None
    except LockError as exc:
        raise fail(str(exc)) from None
    try:
        summary = _run(path)
    except BaseException as exc:
        if lock is not None:
            lock.release()
            lock = None
        if not existed:
            for suffix in ("", "-wal", "-shm", "-journal", ".lock"):
                Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        if isinstance(exc, Exception) and not isinstance(exc, typer.Exit):
            # Whatever went wrong, one line: nothing was imported, nothing is left behind.
            raise fail(f"import failed ({exc!r}); nothing was imported") from None
        raise
    finally:
        if lock is not None:
            lock.release()
    _print_summary(summary)


def _import_into_url(path: Path, url: str) -> None:
    """Import into an empty PostgreSQL database (in one transaction: a failure leaves it
    empty); refused while other sessions (a server) use it."""
    others = other_sessions(url)
    if others:
        raise fail(f"a teamchat server is running on {redact(url)}; import needs a new database")
    try:
        summary = _run(path)
    except Exception as exc:
        if isinstance(exc, typer.Exit):
            raise
        raise fail(f"import failed ({exc!r}); nothing was imported") from None
    _print_summary(summary)


def _run(path: Path) -> ImportSummary:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())  # fmt: skip
    with Progress(*columns, console=console, transient=True) as bar:
        tasks: dict[str, object] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(_STAGES.get(stage, stage), total=total)
            bar.update(tasks[stage], completed=done, total=total)  # type: ignore[arg-type]

        return run_action(lambda rt: importer.import_realm(rt, path, progress), create=True)


def _print_summary(summary: ImportSummary) -> None:
    counts = ", ".join(
        f"{n} {kind}"
        for kind, n in summary.counts.items()
        # A Slack export has none of Zulip's configuration: its zeros would only be noise.
        if n or summary.source != "slack"
    )
    where = redact(STATE.db_url) if STATE.db_url else STATE.db_path
    console.print(f"[green]Imported[/] {summary.realm_name!r} into {where}: {counts}")
    table = Table("email", "name", "role", "kind")
    for email, name, role, is_bot, is_active in summary.users:
        kind = ("bot" if is_bot else "user") + ("" if is_active else " (deactivated)")
        table.add_row(email, name, Role(role).name.lower(), kind)
    console.print(table)
    origin = "Slack" if summary.source == "slack" else "Zulip"
    console.print(
        f"{origin} exports carry no passwords. People log in once they have one: through the"
        " log-in page's password reset (when this server sends email), or from you with\n"
        f"  teamchat --db {where} admin set-password EMAIL\n"
        "(bots keep working through their new API keys: `teamchat admin zuliprc BOT_EMAIL`)."
    )

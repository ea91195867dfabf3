"""`teamchat export PATH`: the organization in Zulip's `manage.py export` format.

A directory, or a .tar.gz holding one, that a Zulip server imports with
`manage.py import`; made from one consistent snapshot while a server keeps running.
"""

from __future__ import annotations

import time
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from teamchat.cli.common import STATE, check_db_path, console, fail, open_uploads
from teamchat.config import Settings
from teamchat.lib import zulip_export_format as fmt
from teamchat.lib.lazy import lazy_module
from teamchat.store.backends import MissingDriverError
from teamchat.store.conn import DATABASE_ERRORS
from teamchat.store.migrations import NotOurDatabaseError

if TYPE_CHECKING:
    from teamchat.actions.ops.realm_export import writer
else:  # the export writer: imported when `teamchat export` runs, not by every command
    writer = lazy_module("teamchat.actions.ops.realm_export.writer")


class ExportType(StrEnum):
    full = "full"
    public = "public"
    consent = "consent"


_TYPES = {
    ExportType.full: fmt.EXPORT_FULL_WITHOUT_CONSENT,
    ExportType.public: fmt.EXPORT_PUBLIC,
    ExportType.consent: fmt.EXPORT_FULL_WITH_CONSENT,
}


def export(
    path: Annotated[
        Path, typer.Argument(help="A new directory, or a file ending in .tar.gz to write")
    ],
    export_type: Annotated[
        ExportType,
        typer.Option(
            "--type",
            help="full: everything; public: public channels only; "
            "consent: public channels plus what consenting users can see",
        ),
    ] = ExportType.full,
) -> None:
    """Export the organization for Zulip's `manage.py import` (or `teamchat import`)."""
    source: Path | str = STATE.db_url or STATE.db_path
    if isinstance(source, Path):
        check_db_path(source, create=False)
    if path.exists():
        raise fail(f"{path} exists; give a new directory or .tar.gz file name")
    if not path.parent.is_dir():
        raise fail(f"cannot write {path}: directory {path.parent} does not exist")
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeRemainingColumn(), console=console, transient=True) as bar:
        tasks: dict[str, object] = {}

        def progress(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(f"Exporting {phase}", total=total)
            bar.update(tasks[phase], completed=done, total=total)  # type: ignore[arg-type]

        blobs = open_uploads(Settings.from_env(source, uploads=STATE.uploads))
        try:
            summary = writer.write_export(
                source,
                path,
                _TYPES[export_type],
                now=int(time.time()),
                progress=progress,
                blobs=blobs,
            )
        except OSError as exc:
            raise fail(f"export failed: {exc}") from None
        except DATABASE_ERRORS as exc:
            raise fail(f"export failed: {exc}") from None
        except (NotOurDatabaseError, MissingDriverError) as exc:
            raise fail(str(exc)) from None
        finally:
            if blobs is not None:
                blobs.close()
    kind = "tarball" if path.name.endswith(writer.TARBALL_SUFFIX) else "directory"
    console.print(
        f"[green]Exported[/] {summary.users} users, {summary.channels} channels, "
        f"{summary.messages} messages and {summary.uploads} uploads "
        f"({summary.upload_bytes} bytes) to the {kind} {path}",
        soft_wrap=True,
    )

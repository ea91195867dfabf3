"""Write the organization in Zulip's export format: one directory, optionally a .tar.gz.

The one writer behind `teamchat export` and POST /export/realm. It reads one consistent
snapshot (a read transaction, so a live server may keep writing) and reports progress as
(phase, done, total). Synchronous: run it in a thread or a CLI process.
"""

from __future__ import annotations

import shutil
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

import msgspec

from teamchat.actions.ops.realm_export import files
from teamchat.actions.ops.realm_export.context import ExportContext
from teamchat.actions.ops.realm_export.conversation_tables import conversation_tables
from teamchat.actions.ops.realm_export.message_tables import (
    ClientIds,
    attachment_table,
    reaction_table,
    scheduled_message_table,
    submessage_table,
    write_message_files,
)
from teamchat.actions.ops.realm_export.people_tables import (
    bot_tables,
    personal_tables,
    user_tables,
)
from teamchat.actions.ops.realm_export.realm_tables import (
    group_tables,
    organization_tables,
    realm_row,
)
from teamchat.lib import zulip_export_format as fmt
from teamchat.store.blobs import BlobStore
from teamchat.store.export_snapshot import Row, Snapshot

ExportProgress = Callable[[str, int, int], None]  # (phase, done, total)
TARBALL_SUFFIX = ".tar.gz"


class ExportSummary(msgspec.Struct, frozen=True, kw_only=True):
    """What an export wrote."""

    path: str
    users: int
    channels: int
    messages: int
    uploads: int
    upload_bytes: int


def _no_progress(phase: str, done: int, total: int) -> None:
    del phase, done, total


def _write_json(root: Path) -> Callable[[str, object], None]:
    def write(name: str, data: object) -> None:
        (root / name).write_bytes(msgspec.json.encode(data))

    return write


def _write_stats(root: Path, tables: dict[str, list[Row]], message_files: int) -> None:
    lines = [fmt.REALM_FILE] + [f"{len(rows):5} {name}" for name, rows in sorted(tables.items())]
    lines += ["", f"{message_files:5} message files"]
    (root / fmt.STATS_FILE).write_text("\n".join(lines) + "\n")


def _counter(progress: ExportProgress, phase: str, total: int) -> Callable[[int], None]:
    """A step function reporting `phase`'s running count out of `total`."""
    done = 0
    progress(phase, 0, total)

    def step(count: int) -> None:
        nonlocal done
        done += count
        progress(phase, done, total)

    return step


def _realm_tables(ctx: ExportContext, clients: ClientIds) -> dict[str, list[Row]]:
    """realm.json's tables that do not depend on which messages are exported."""
    tables: dict[str, list[Row]] = {"zerver_realm": [realm_row(ctx)]}
    tables.update(organization_tables(ctx))
    tables.update(user_tables(ctx))
    tables.update(bot_tables(ctx))
    tables.update(conversation_tables(ctx))
    tables.update(personal_tables(ctx, clients.id_of(fmt.DEFAULT_CLIENT)))
    return tables


def write_export_dir(
    snapshot: Snapshot,
    root: Path,
    export_type: int,
    now: int,
    progress: ExportProgress,
    blobs: BlobStore | None = None,
) -> ExportSummary:
    """Write the export's files into the empty directory `root`."""
    ctx = ExportContext(snapshot, export_type, now, blobs)
    clients = ClientIds()
    write = _write_json(root)
    tables = _realm_tables(ctx, clients)
    step = _counter(progress, "messages", snapshot.count_messages())
    message_ids = write_message_files(ctx, clients, write, step)
    tables["zerver_reaction"] = reaction_table(ctx, message_ids)
    tables["zerver_submessage"] = submessage_table(ctx, message_ids)
    tables["zerver_scheduledmessage"] = scheduled_message_table(ctx, clients)
    tables.update(group_tables(ctx))  # last: the tables above allocate anonymous groups
    tables["zerver_client"] = clients.table()
    write(fmt.REALM_FILE, tables)

    attachments = attachment_table(ctx, message_ids)
    write(fmt.ATTACHMENT_FILE, {fmt.ATTACHMENT_TABLE: attachments})
    upload_step = _counter(progress, "uploads", len(attachments))
    upload_bytes = files.write_uploads(ctx, root, attachments, upload_step)
    files.write_avatars(ctx, root)
    files.write_emoji(ctx, root, tables["zerver_realmemoji"])
    _write_stats(root, tables, len(list(root.glob("messages-*.json"))))
    return ExportSummary(
        path=str(root),
        users=len(tables["zerver_userprofile"]),
        channels=len(tables["zerver_stream"]),
        messages=len(message_ids),
        uploads=len(attachments),
        upload_bytes=upload_bytes,
    )


def write_export(
    source: Path | str,
    dest: Path,
    export_type: int = fmt.EXPORT_FULL_WITHOUT_CONSENT,
    *,
    now: int,
    progress: ExportProgress = _no_progress,
    blobs: BlobStore | None = None,
) -> ExportSummary:
    """Export the organization in the database `source` (a SQLite file or a PostgreSQL URL;
    its upload bytes read from `blobs` where they
    are not in the database) to `dest`: a new directory, or a file ending in .tar.gz holding
    one top-level directory (as Zulip's tarballs do)."""
    with Snapshot(source) as snapshot:
        if not dest.name.endswith(TARBALL_SUFFIX):
            partial_dir = dest.with_name(dest.name + ".partial")
            partial_dir.mkdir()
            try:
                summary = write_export_dir(snapshot, partial_dir, export_type, now, progress, blobs)
            except BaseException:
                shutil.rmtree(partial_dir, ignore_errors=True)
                raise
            partial_dir.rename(dest)
            return msgspec.structs.replace(summary, path=str(dest))
        top = dest.name.removesuffix(TARBALL_SUFFIX)
        with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".export-") as tmp:
            root = Path(tmp) / top
            root.mkdir()
            summary = write_export_dir(snapshot, root, export_type, now, progress, blobs)
            partial = dest.with_name(dest.name + ".partial")
            progress("tarball", 0, 1)
            with tarfile.open(partial, "w:gz", compresslevel=6) as tar:  # gzip's default
                tar.add(root, arcname=top)
            partial.replace(dest)
            progress("tarball", 1, 1)
    return msgspec.structs.replace(summary, path=str(dest))

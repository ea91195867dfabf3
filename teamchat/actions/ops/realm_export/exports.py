"""Exports requested through the API (POST /export/realm): record, run in the background
with the same writer as `teamchat export`, store the tarball, list, delete, consents.

Every change sends `realm_export` with the whole list to the administrators, as Zulip's
notify_realm_export does; the requester gets a Notification Bot message when it is ready.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

from teamchat.actions import upload_bytes
from teamchat.actions.org.permissions import require_realm_admin
from teamchat.actions.org.system_bots import NOTIFICATION_BOT, ensure_system_bot
from teamchat.errors import ResourceNotFoundError, ZulipError
from teamchat.events.types_realm_export import RealmExportEvent, RealmExportObject
from teamchat.lib import zulip_export_format as fmt
from teamchat.lib.lazy import lazy_module
from teamchat.records import RealmExportRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import realm as realm_store
from teamchat.store import realm_exports as export_store
from teamchat.store import users as user_store
from teamchat.store.db import Conn

if TYPE_CHECKING:
    from teamchat.actions.messages import message_send
    from teamchat.actions.ops.realm_export import writer
else:  # the export writer (tables, files, tarball): imported by the first export
    writer = lazy_module("teamchat.actions.ops.realm_export.writer")
    # The send path, for the message telling who asked that the export is ready: the
    # server's start (which fails exports left unfinished) does not import it for this.
    message_send = lazy_module("teamchat.actions.messages.message_send")

log = logging.getLogger(__name__)
# zulip-compat: at most 5 exports a week (views/realm_export.py EXPORT_LIMIT).
EXPORT_LIMIT = 5
EXPORT_LIMIT_WINDOW_SECS = 7 * 86400
CHUNK_BYTES = 1024 * 1024
CHUNKS_PER_TX = 8
API_EXPORT_TYPES = (fmt.EXPORT_PUBLIC, fmt.EXPORT_FULL_WITH_CONSENT)
DONE_MESSAGE = (
    "Your data export is complete. [View and download exports](/#organization/data-exports-admin)."
)


def export_path(realm_id: int, row: RealmExportRow) -> str:
    """Where a finished export's tarball is served."""
    return f"/user_avatars/exports/{realm_id}/{row.secret}/{row.file_name}"


def serialize(realm_id: int, row: RealmExportRow) -> RealmExportObject:
    """Zulip's get_realm_exports_serialized entry for one export."""
    done = row.status == export_store.SUCCEEDED
    return RealmExportObject(
        id=row.id,
        acting_user_id=row.acting_user_id,
        export_time=row.date_requested,
        deleted_timestamp=row.date_deleted,
        failed_timestamp=row.date_failed,
        export_url=row.realm_url + export_path(realm_id, row) if done else None,
        pending=row.status in (export_store.REQUESTED, export_store.STARTED),
        export_type=row.export_type,
    )


async def _serialized(conn: Conn) -> list[RealmExportObject]:
    realm = await realm_store.get_realm(conn)
    assert realm is not None
    return [serialize(realm.id, row) for row in await export_store.list_all(conn)]


async def get_realm_exports(rt: Runtime, user: UserRow) -> list[RealmExportObject]:
    """Every export of the organization (administrators only)."""
    require_realm_admin(user)
    async with rt.db.read() as conn:
        return await _serialized(conn)


async def get_export_consents(rt: Runtime, user: UserRow) -> list[dict[str, object]]:
    """Which active people allow administrators to export their private data."""
    require_realm_admin(user)
    async with rt.db.read() as conn:
        rows = await export_store.export_consents(conn)
    return [{"user_id": uid, "consented": consented} for uid, consented in rows]


async def _event(conn: Conn) -> RealmExportEvent:
    """Zulip's notify_realm_export: the whole list, for the administrators."""
    return RealmExportEvent(exports=await _serialized(conn))


async def _check_usable(conn: Conn, export_type: int, support_email: str) -> None:
    """Zulip's check_*_export_is_usable: the imported organization needs an owner who can
    log in, so one owner must consent (or, for a public export, show administrators their
    email address: others' are replaced by Zulip's dummy addresses)."""
    consenting, visible = await export_store.owners_for_exports(conn)
    # zulip-compat: Zulip names its support address; ours is the configured sender.
    if export_type == fmt.EXPORT_FULL_WITH_CONSENT and not consenting:
        raise ZulipError(
            "Make sure at least one Organization Owner is consenting to the export "
            f"or contact {support_email} for help."
        )
    if export_type == fmt.EXPORT_PUBLIC and not visible:
        raise ZulipError(
            "Make sure at least one Organization Owner allows other Administrators to see "
            f"their email address or contact {support_email} for help"
        )


async def check_request_export(rt: Runtime, user: UserRow, export_type: int, realm_url: str) -> int:
    """Record an export request, start it in the background and return its id."""
    require_realm_admin(user)
    if export_type not in API_EXPORT_TYPES:
        raise ZulipError("Invalid export_type")
    now = rt.now()
    async with rt.db.write() as tx:
        recent = await export_store.count_requested_since(tx, now - EXPORT_LIMIT_WINDOW_SECS)
        if recent >= EXPORT_LIMIT:
            raise ZulipError("Exceeded rate limit.")
        await _check_usable(tx, export_type, rt.settings.smtp_from)
        export_id = await export_store.insert(
            tx,
            acting_user_id=user.id,
            export_type=export_type,
            now=now,
            realm_url=realm_url,
            secret=secrets.token_urlsafe(18),
        )
        event = await _event(tx)
        admins = await export_store.human_admin_ids(tx)
        tx.after_commit(lambda: rt.broker.publish(event, admins))
        tx.after_commit(lambda: rt.spawn(run_export(rt, export_id)))
    return export_id


async def _store_tarball(rt: Runtime, row: RealmExportRow, tarball: Path) -> int:
    """Copy the tarball into the blob store, or into the database a few chunks per
    transaction so other writes are not held up; return its size. Unserved until the
    export is marked succeeded."""
    export_id = row.id
    if rt.blobs is not None:
        key = upload_bytes.export_key(await _realm_id(rt), row.secret, tarball.name)
        with tarball.open("rb") as source:
            return await rt.blobs.put(key, source, "application/gzip")
    size, seq = 0, 0
    with tarball.open("rb") as source:
        while True:
            chunks = [source.read(CHUNK_BYTES) for _ in range(CHUNKS_PER_TX)]
            chunks = [chunk for chunk in chunks if chunk]
            if not chunks:
                return size
            async with rt.db.write() as tx:
                for chunk in chunks:
                    await export_store.insert_chunk(tx, export_id, seq, chunk)
                    size, seq = size + len(chunk), seq + 1


async def _set_state(rt: Runtime, export_id: int, *, tarball: Path | None, size: int) -> None:
    """Mark the export succeeded (its tarball stored) or failed; tell the administrators."""
    now = rt.now()
    async with rt.db.write() as tx:
        if tarball is None:
            await export_store.mark_failed(tx, export_id, now)
        else:
            await export_store.mark_succeeded(
                tx, export_id, now=now, file_name=tarball.name, size=size
            )
        event = await _event(tx)
        admins = await export_store.human_admin_ids(tx)
        tx.after_commit(lambda: rt.broker.publish(event, admins))


async def run_export(rt: Runtime, export_id: int) -> None:
    """Make the export with the CLI's writer (in a thread) and store its tarball."""
    async with rt.db.write() as tx:
        row = await export_store.get(tx, export_id)
        if row is None or row.status != export_store.REQUESTED:
            return
        await export_store.update_status(tx, export_id, export_store.STARTED)
    try:
        with tempfile.TemporaryDirectory(prefix="teamchat-export-") as tmp:
            name = f"zulip-export-{secrets.token_hex(4)}.tar.gz"
            tarball = Path(tmp) / name
            blobs = rt.blobs.store if rt.blobs is not None else None
            source = rt.settings.db_url or rt.settings.db_path
            await asyncio.to_thread(
                writer.write_export, source, tarball, row.export_type, now=rt.now(),
                blobs=blobs,
            )  # fmt: skip
            size = await _store_tarball(rt, row, tarball)
            await _set_state(rt, export_id, tarball=tarball, size=size)
    except Exception:
        log.exception("Data export %s failed", export_id)
        await _set_state(rt, export_id, tarball=None, size=0)
        return
    await _tell_requester(rt, row)


async def fail_interrupted_exports(rt: Runtime) -> None:
    """At start-up: exports the previous server process left unfinished died with it.

    zulip-compat: Zulip's worker marks an export it sees a second time as failed ("possible
    OOM during export"); here a restart is that second time.
    """
    async with rt.db.write() as tx:
        if not await export_store.fail_unfinished(tx, rt.now()):
            return
        event = await _event(tx)
        admins = await export_store.human_admin_ids(tx)
        tx.after_commit(lambda: rt.broker.publish(event, admins))


async def _tell_requester(rt: Runtime, row: RealmExportRow) -> None:
    async with rt.db.read() as conn:
        requester = await user_store.get_user_by_id(conn, row.acting_user_id)
    if requester is None or not requester.is_active:
        return
    bot = await ensure_system_bot(rt, NOTIFICATION_BOT)
    request = message_send.internal_request(
        "private", [requester.id], None, DONE_MESSAGE, rt.external_url
    )
    await message_send.check_send_message(rt, bot, request)


async def do_delete_realm_export(rt: Runtime, user: UserRow, export_id: int) -> None:
    """Delete a finished export's tarball (Zulip's errors for the other states)."""
    require_realm_admin(user)
    async with rt.db.write() as tx:
        row = await export_store.get(tx, export_id)
        if row is None:
            raise ZulipError("Invalid data export ID")
        if row.status == export_store.DELETED:
            raise ZulipError("Export already deleted")
        if row.status == export_store.FAILED:
            raise ZulipError("Export failed, nothing to delete")
        if row.status in (export_store.REQUESTED, export_store.STARTED):
            raise ZulipError("Export still in progress")
        await export_store.mark_deleted(tx, export_id, rt.now())
        if row.file_name is not None:
            realm = await realm_store.get_realm(tx)
            assert realm is not None
            key = upload_bytes.export_key(realm.id, row.secret, row.file_name)
            upload_bytes.delete_after_commit(rt, tx, [key])
        event = await _event(tx)
        admins = await export_store.human_admin_ids(tx)
        tx.after_commit(lambda: rt.broker.publish(event, admins))


async def access_export_file(
    rt: Runtime, realm_id: int, secret: str, file_name: str
) -> RealmExportRow:
    """A finished export served at its secret path, or the upload 404."""
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        row = await export_store.get_by_secret(conn, secret)
    found = realm is not None and realm.id == realm_id and row is not None
    if not found or row is None or row.status != export_store.SUCCEEDED:
        raise ResourceNotFoundError("File not found")
    if row.file_name != file_name:
        raise ResourceNotFoundError("File not found")
    return row


async def _realm_id(rt: Runtime) -> int:
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
    assert realm is not None
    return realm.id


async def stream_export_file(rt: Runtime, row: RealmExportRow) -> AsyncIterator[bytes]:
    """A finished export's tarball chunk by chunk: from the database, each chunk read in its
    own short snapshot, or else from the blob store."""
    if row.size and row.file_name and rt.blobs is not None:
        async with rt.db.read() as conn:
            first = await export_store.get_chunk(conn, row.id, 0)
        if first is None:
            key = upload_bytes.export_key(await _realm_id(rt), row.secret, row.file_name)
            async for part in rt.blobs.stream(key):
                yield part
            return
    for seq in range(-(-(row.size or 0) // CHUNK_BYTES)):
        async with rt.db.read() as conn:
            chunk = await export_store.get_chunk(conn, row.id, seq)
        if chunk is None:  # deleted while being served
            return
        yield chunk

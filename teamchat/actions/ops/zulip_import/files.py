"""The files of a Zulip export for `teamchat import`: uploads (attachment.json and uploads/),
custom emoji (emoji/) and uploaded avatars (avatars/), written in the import's transaction,
their bytes in the database or (with a blob store configured) in the store.
"""

from __future__ import annotations

import asyncio
import mimetypes
from collections.abc import Callable

from teamchat import store
from teamchat.actions import upload_bytes
from teamchat.actions.messages.uploads import CHUNK_BYTES
from teamchat.actions.ops.zulip_import import plan
from teamchat.actions.ops.zulip_import.plan import as_int, as_opt_int, as_str
from teamchat.lib import images
from teamchat.lib import zulip_export_format as fmt
from teamchat.lib.export_open import ExportSource
from teamchat.lib.zulip_export_reader import TableData
from teamchat.store import zulip_import as bulk
from teamchat.store.blobs import AsyncBlobs
from teamchat.store.db import Tx


class ImportedFiles:
    """Puts the import's bytes in the blob store (if there is one) and remembers the keys, so
    that a failed import deletes them again. An import runs on a database no server uses:
    waiting for the store inside its one transaction holds up nobody."""

    def __init__(self, blobs: AsyncBlobs | None) -> None:
        self.blobs = blobs
        self.written: list[str] = []

    async def keep(self, key: str, data: bytes, content_type: str) -> bytes:
        """Store `data` under `key`; return what the database row keeps (b"" if stored)."""
        if self.blobs is None:
            return data
        self.written.append(key)
        await self.blobs.put_bytes(key, data, content_type)
        return b""

    async def forget(self) -> None:
        if self.blobs is not None and self.written:
            await upload_bytes.delete_now(self.blobs, self.written)


async def import_files(
    tx: Tx,
    export: ExportSource,
    data: TableData,
    counts: dict[str, int],
    progress: Callable[[int, int], None],
    files: ImportedFiles,
) -> None:
    """Uploads (attachment.json + uploads/), custom emoji (emoji/), avatars (avatars/)."""
    attachments = (await asyncio.to_thread(export.tables, fmt.ATTACHMENT_FILE)).get(
        "zerver_attachment", []
    )
    date_sent = {}
    for r in attachments:
        for message_id in plan.id_list(r.get("messages")):
            date_sent[as_int(message_id)] = 0
    if date_sent:
        date_sent = await _dates_sent(tx, list(date_sent))
    total = len(attachments)
    imported = 0
    for done, r in enumerate(attachments, 1):
        path_id = as_str(r.get("path_id"))
        blob = await asyncio.to_thread(export.file_bytes, fmt.UPLOADS_DIR, path_id)
        if blob is None:
            continue
        file_name = as_str(r.get("file_name")) or path_id.rsplit("/", 1)[-1]
        content_type = as_str(r.get("content_type")) or (
            mimetypes.guess_type(file_name)[0] or "application/octet-stream"
        )
        row = (as_int(r["id"]), path_id, file_name, content_type, len(blob),
               as_int(r["owner"]), as_int(r.get("create_time")))  # fmt: skip
        kept = await files.keep(upload_bytes.attachment_key(path_id), blob, content_type)
        chunks = [kept[i : i + CHUNK_BYTES] for i in range(0, len(kept), CHUNK_BYTES)]
        if files.blobs is None:
            chunks = chunks or [b""]
        links = [(as_int(m), date_sent.get(as_int(m), 0)) for m in plan.id_list(r.get("messages"))]
        await bulk.insert_attachment(tx, row, chunks, [lk for lk in links if lk[0] in date_sent])
        imported += 1
        progress(done, total)
    counts["uploads"] = imported
    counts["custom emoji"] = await _import_emoji(tx, export, data, files)
    counts["avatars"] = await _import_avatars(tx, export, data, files)


async def _dates_sent(tx: Tx, message_ids: list[int]) -> dict[int, int]:
    rows = await store.messages.list_messages(tx, message_ids)
    return {m.id: m.date_sent for m in rows}


async def _import_emoji(tx: Tx, export: ExportSource, data: TableData, files: ImportedFiles) -> int:
    records = {as_str(r.get("file_name")): r for r in export.records(fmt.EMOJI_DIR)}
    count = 0
    for r in data.get("zerver_realmemoji", []):
        file_name = as_str(r.get("file_name"))
        record = records.get(file_name)
        realm_id = as_int(data["zerver_realm"][0].get("id"))
        path = (
            as_str(record.get("path"))
            if record
            else fmt.EMOJI_PATH_TEMPLATE.format(realm_id=realm_id, file_name=file_name)
        )
        blob = await asyncio.to_thread(export.file_bytes, fmt.EMOJI_DIR, path)
        content_type = images.sniff_image_type(blob) if blob else None
        if blob is None or content_type is None:
            continue
        row = (as_int(r["id"]), as_str(r.get("name")), file_name, content_type,
               as_opt_int(r.get("author")), 0, int(bool(r.get("deactivated"))))  # fmt: skip
        still = images.still_image(content_type, blob)
        realm = await store.realm.get_realm(tx)
        assert realm is not None
        key = upload_bytes.emoji_key(realm.id, file_name, still=False)
        blob = await files.keep(key, blob, content_type)
        if still is not None:
            key = upload_bytes.emoji_key(realm.id, file_name, still=True)
            still = await files.keep(key, still, content_type)
        await bulk.insert_realm_emoji(tx, row, blob, still)
        count += 1
    return count


async def _import_avatars(
    tx: Tx, export: ExportSource, data: TableData, files: ImportedFiles
) -> int:
    uploaded = {
        as_int(u["id"]) for u in data.get("zerver_userprofile", []) if u.get("avatar_source") == "U"
    }
    chosen: dict[int, str] = {}
    for r in export.records(fmt.AVATARS_DIR):
        user_id, path = as_int(r.get("user_profile_id")), as_str(r.get("path"))
        if user_id not in uploaded or path.endswith("-medium.png"):
            continue
        if path.endswith(".original") or user_id not in chosen:
            chosen[user_id] = path
    count = 0
    for user_id, path in sorted(chosen.items()):
        blob = await asyncio.to_thread(export.file_bytes, fmt.AVATARS_DIR, path)
        content_type = images.sniff_image_type(blob) if blob else None
        if blob is not None and content_type is not None:
            blob = await files.keep(upload_bytes.avatar_key(user_id), blob, content_type)
            await bulk.insert_avatar(tx, user_id, content_type, blob)
            count += 1
            uploaded.discard(user_id)
    for user_id in uploaded:  # an uploaded avatar whose file the export lacks
        await store.users.update_avatar_source(tx, user_id, "G")
    return count

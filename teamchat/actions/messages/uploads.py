"""Uploaded files: store, list, delete, serve, sign temporary URLs.

The bytes go in chunks into the database, or into the configured blob store
(actions/upload_bytes.py). Uploads arrive spooled to temporary files (see http/multipart.py);
only copying them into the database happens inside the write transaction, never the network
transfer; a blob store is written before the transaction.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import hashlib
import hmac
import re
import secrets
import unicodedata
from collections.abc import AsyncIterator, Sequence
from typing import IO

import msgspec

from teamchat import store
from teamchat.actions import upload_bytes
from teamchat.actions.messages import thumbnails
from teamchat.errors import ZulipError
from teamchat.events.types_uploads import (
    AttachmentAddEvent,
    AttachmentIdOnly,
    AttachmentMessage,
    AttachmentObject,
    AttachmentRemoveEvent,
    AttachmentUpdateEvent,
)
from teamchat.lib.thumbnails import ImageInfo
from teamchat.records import AttachmentRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import retention as retention_store
from teamchat.store import thumbnails as thumbnail_store
from teamchat.store.db import Conn, Tx

CHUNK_BYTES = 256 * 1024
TEMPORARY_URL_SECS = 60
_SECRET_NAME = "upload_url_key"
_FILE_NAME_CHAR_RE = re.compile(r"[\w\s.-]")


def _is_symbol(ch: str) -> bool:
    # Other symbols (emoji, dingbats) and the joiners/selectors that build emoji sequences.
    return unicodedata.category(ch) == "So" or ch in "\u200d\ufe0f"


def sanitize_file_name(name: str) -> str:
    """A safe file name: no directories, Unicode-normalized, only word chars, '.', '-' and
    symbols such as emoji (which are safe in a path and keep `😀.txt` readable)."""
    name = unicodedata.normalize("NFKC", name.replace("\\", "/").rsplit("/", 1)[-1])
    name = "".join(ch for ch in name if _FILE_NAME_CHAR_RE.match(ch) or _is_symbol(ch)).strip()
    name = re.sub(r"[-\s]+", "-", name).strip(".-")
    return name[:200] or "uploaded-file"


async def do_upload_file(
    rt: Runtime, user: UserRow, file_name: str, content_type: str, data: IO[bytes]
) -> AttachmentRow:
    """Store a spooled upload (in the database, or first in the blob store); send
    attachment/add to the uploader."""
    clean_name = sanitize_file_name(file_name)
    async with rt.db.read() as conn:
        realm = await store.realm.get_realm(conn)
    assert realm is not None
    path_id = f"{realm.id}/{secrets.token_hex(1)}/{secrets.token_urlsafe(18)}/{clean_name}"
    size = await asyncio.to_thread(_size_of, data)
    image = await thumbnails.probe_upload(data)
    blobs = rt.blobs
    if blobs is not None:
        await blobs.put(upload_bytes.attachment_key(path_id), data, content_type)
    try:
        return await _insert_upload(rt, user, path_id, clean_name, content_type, size, image, data)
    except BaseException:
        if blobs is not None:
            await upload_bytes.delete_now(blobs, [upload_bytes.attachment_key(path_id)])
        raise


async def _insert_upload(
    rt: Runtime,
    user: UserRow,
    path_id: str,
    clean_name: str,
    content_type: str,
    size: int,
    image: ImageInfo | None,
    data: IO[bytes],
) -> AttachmentRow:
    async with rt.db.write() as tx:
        attachment_id = await store.uploads.insert_attachment(
            tx,
            path_id=path_id,
            file_name=clean_name,
            content_type=content_type,
            size=size,
            owner_id=user.id,
            create_time=rt.now(),
        )
        if image is not None:
            await thumbnails.record_image(rt, tx, attachment_id, image)
        seq = 0
        while rt.blobs is None and (chunk := await asyncio.to_thread(data.read, CHUNK_BYTES)):
            await store.uploads.insert_chunk(tx, attachment_id, seq, chunk)
            seq += 1
        attachment = await store.uploads.get_attachment_by_id(tx, attachment_id)
        assert attachment is not None
        event = AttachmentAddEvent(
            attachment=attachment_object(attachment, []),
            upload_space_used=await store.uploads.upload_space_used(tx),
        )
        tx.after_commit(lambda: rt.broker.publish(event, [user.id]))
    return attachment


def _size_of(data: IO[bytes]) -> int:
    size = data.seek(0, 2)
    data.seek(0)
    return size


def attachment_object(row: AttachmentRow, messages: list[tuple[int, int]]) -> AttachmentObject:
    return AttachmentObject(
        id=row.id,
        name=row.file_name,
        path_id=row.path_id,
        size=row.size,
        create_time=row.create_time * 1000,
        messages=[AttachmentMessage(id=mid, date_sent=sent) for mid, sent in messages],
    )


async def list_attachments(rt: Runtime, user: UserRow) -> tuple[list[AttachmentObject], int]:
    """The user's uploads with the messages that link them, and the space used."""
    async with rt.db.read() as conn:
        rows = await store.uploads.list_attachments(conn, user.id)
        messages = await store.uploads.messages_by_attachment(conn, [row.id for row in rows])
        used = await store.uploads.upload_space_used(conn)
    return [attachment_object(row, messages.get(row.id, [])) for row in rows], used


async def do_delete_attachment(rt: Runtime, user: UserRow, attachment_id: int) -> None:
    """Delete one of the user's uploads; send attachment/remove."""
    async with rt.db.write() as tx:
        row = await store.uploads.get_attachment_by_id(tx, attachment_id)
        if row is None or row.owner_id != user.id:
            raise ZulipError("Invalid attachment")
        keys = await stored_keys(tx, row)
        await store.uploads.delete_attachment(tx, attachment_id)
        upload_bytes.delete_after_commit(rt, tx, keys)
        event = AttachmentRemoveEvent(
            attachment=AttachmentIdOnly(id=attachment_id),
            upload_space_used=await store.uploads.upload_space_used(tx),
        )
        tx.after_commit(lambda: rt.broker.publish(event, [user.id]))


async def drop_uploads_of(rt: Runtime, tx: Tx, message_ids: Sequence[int]) -> None:
    """Inside the transaction deleting these messages: delete the uploads no other message
    links (attachment/remove to each owner) and forget the messages' links."""
    orphans = await retention_store.uploads_only_linked_by(tx, message_ids)
    keys: list[str] = []
    for attachment_id, _owner in orphans:
        row = await store.uploads.get_attachment_by_id(tx, attachment_id)
        if row is not None:
            keys += await stored_keys(tx, row)
        await store.uploads.delete_attachment(tx, attachment_id)
    upload_bytes.delete_after_commit(rt, tx, keys)
    await retention_store.unlink_messages(tx, message_ids)
    used = await store.uploads.upload_space_used(tx)
    for attachment_id, owner_id in orphans:
        _publish_removed(rt, tx, attachment_id, owner_id, used)


async def stored_keys(conn: Conn, row: AttachmentRow) -> list[str]:
    """The blob store keys of an upload and its thumbnails."""
    image = await thumbnail_store.get_image(conn, row.id)
    names = image.thumbnail_names if image is not None else ()
    return [
        upload_bytes.attachment_key(row.path_id),
        *(upload_bytes.thumbnail_key(row.path_id, name) for name in names),
    ]


def _publish_removed(rt: Runtime, tx: Tx, attachment_id: int, owner_id: int, used: int) -> None:
    event = AttachmentRemoveEvent(
        attachment=AttachmentIdOnly(id=attachment_id), upload_space_used=used
    )
    tx.after_commit(lambda: rt.broker.publish(event, [owner_id]))


async def access_upload(rt: Runtime, user: UserRow, path_id: str) -> AttachmentRow:
    """The upload at `path_id` if `user` may read it: its uploader, or a recipient of a
    message that links it."""
    async with rt.db.read() as conn:
        row = await store.uploads.get_attachment_by_path(conn, path_id)
        allowed = row is not None and await _can_read(conn, user, row)
    if row is None or not allowed:
        raise ZulipError("File not found")
    return row


async def _can_read(conn: Conn, user: UserRow, row: AttachmentRow) -> bool:
    """Zulip's rule: the uploader, anyone who received a message linking the upload, and
    (for non-guests) anyone when a public channel's message links it."""
    if row.owner_id == user.id:
        return True
    if await store.uploads.user_received_linking_message(conn, row.id, user.id):
        return True
    return not user.is_guest and await store.uploads.linked_in_public_channel(conn, row.id)


async def link_attachments(
    rt: Runtime, tx: Tx, sender: UserRow, message_id: int, date_sent: int, path_ids: Sequence[str]
) -> None:
    """Claim the uploads a new or edited message links (those the sender may read), and send
    the uploaders attachment/update with the message added."""
    for path_id in dict.fromkeys(path_ids):
        row = await store.uploads.get_attachment_by_path(tx, path_id)
        if row is None or not await _can_read(tx, sender, row):
            continue
        await store.uploads.link_message(tx, row.id, message_id, date_sent)
        messages = (await store.uploads.messages_by_attachment(tx, [row.id])).get(row.id, [])
        event = AttachmentUpdateEvent(
            attachment=attachment_object(row, messages),
            upload_space_used=await store.uploads.upload_space_used(tx),
        )
        tx.after_commit(functools.partial(rt.broker.publish, event, [row.owner_id]))


async def stream_upload(rt: Runtime, row: AttachmentRow) -> AsyncIterator[bytes]:
    """The upload's bytes chunk by chunk: from the database, each chunk read in its own short
    snapshot, or else from the blob store."""
    if row.size and rt.blobs is not None:
        async with rt.db.read() as conn:
            first = await store.uploads.get_chunk(conn, row.id, 0)
        if first is None:
            async for part in rt.blobs.stream(upload_bytes.attachment_key(row.path_id)):
                yield part
            return
    for seq in range(-(-row.size // CHUNK_BYTES)):
        async with rt.db.read() as conn:
            chunk = await store.uploads.get_chunk(conn, row.id, seq)
        if chunk is None:  # deleted while being served
            return
        yield chunk


async def _signing_key(rt: Runtime) -> bytes:
    async with rt.db.read() as conn:
        secret = await store.uploads.get_secret(conn, _SECRET_NAME)
    if secret is None:
        async with rt.db.write() as tx:
            await store.uploads.insert_secret(tx, _SECRET_NAME, secrets.token_hex(32))
            secret = await store.uploads.get_secret(tx, _SECRET_NAME)
    assert secret is not None
    return secret.encode()


async def temporary_url(rt: Runtime, row: AttachmentRow) -> str:
    """A URL that serves the upload without credentials for TEMPORARY_URL_SECS."""
    payload = msgspec.json.encode([row.path_id, rt.now() + TEMPORARY_URL_SECS])
    token = base64.urlsafe_b64encode(payload).decode().rstrip("=")
    signature = hmac.new(await _signing_key(rt), token.encode(), hashlib.sha256).hexdigest()
    return f"/user_uploads/temporary/{token}.{signature[:32]}/{row.file_name}"


async def access_temporary(rt: Runtime, signed: str) -> AttachmentRow:
    """The upload a temporary URL token names, if its signature holds and it has not expired."""
    token, _, signature = signed.rpartition(".")
    expected = hmac.new(await _signing_key(rt), token.encode(), hashlib.sha256).hexdigest()
    if not token or not hmac.compare_digest(expected[:32], signature):
        raise ZulipError("Invalid or expired upload link")
    try:
        path_id, expires = msgspec.json.decode(
            base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        )
    except (ValueError, msgspec.DecodeError):
        raise ZulipError("Invalid or expired upload link") from None
    async with rt.db.read() as conn:
        row = await store.uploads.get_attachment_by_path(conn, str(path_id))
    if row is None or int(expires) < rt.now():
        raise ZulipError("Invalid or expired upload link")
    return row

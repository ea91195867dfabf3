"""Thumbnails of uploaded images, made in the background as Zulip 9+ makes them.

An upload whose bytes read as an image is recorded at upload time (header only); its
thumbnails are then made in one dedicated thread (never the event loop's), stored, and every
message that shows the loading spinner for it gets the thumbnail in an `update_message` event
with `rendering_only: true`. An image that cannot be decoded loses its preview the same way.
"""

from __future__ import annotations

import asyncio
import functools
import io
import logging
import weakref
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import IO, TypeVar

from teamchat.actions import upload_bytes
from teamchat.actions.messages.preview_context import upload_preview
from teamchat.errors import ResourceNotFoundError
from teamchat.lib import flags as fl
from teamchat.lib.api_types import JsonDict
from teamchat.lib.images import HEIF_SNIFF_BYTES, sniff_heic, sniff_image_type
from teamchat.lib.thumbnails import (
    BadImageError,
    ImageInfo,
    Thumbnail,
    ThumbnailFormat,
    make_thumbnails,
    probe,
)
from teamchat.records import AttachmentRow, ImageAttachmentRow
from teamchat.render.context import Rendered
from teamchat.render.inline_images import fill_thumbnail, has_placeholders
from teamchat.runtime import Runtime
from teamchat.store import message_flags as flag_store
from teamchat.store import messages as message_store
from teamchat.store import thumbnails as thumbnail_store
from teamchat.store import uploads as upload_store
from teamchat.store.db import Tx

log = logging.getLogger("teamchat.thumbnails")
_T = TypeVar("_T")
# One thread decodes untrusted images, so at most one image's pixels are in memory at a time,
# and at most QUEUED_IMAGES uploads wait for it with their bytes read. Reading headers (cheap,
# bounded) has threads of its own, so an upload never waits for another image's thumbnails.
_DECODER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="teamchat-thumbnails")
_HEADER_READER = ThreadPoolExecutor(max_workers=2, thread_name_prefix="teamchat-image-headers")
QUEUED_IMAGES = 2
_GATES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)
_RUNNING: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, asyncio.Future[None]]] = (
    weakref.WeakKeyDictionary()
)


def _gate() -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    gate = _GATES.get(loop)
    if gate is None:
        gate = _GATES[loop] = asyncio.Semaphore(QUEUED_IMAGES)
    return gate


async def decode(function: Callable[[], _T], executor: ThreadPoolExecutor = _DECODER) -> _T:
    """Run image work on the decoder thread."""
    return await asyncio.get_running_loop().run_in_executor(executor, function)


async def probe_upload(data: IO[bytes]) -> ImageInfo | None:
    """What an upload's header says if it is an image we thumbnail, else None (the upload is
    then an ordinary file). Leaves `data` at its start."""

    def read_and_probe() -> ImageInfo | None:
        head = data.read(HEIF_SNIFF_BYTES)
        data.seek(0)
        if sniff_image_type(head[:16]) is None and sniff_heic(head) is None:
            return None
        try:
            return probe(data.read())
        except BadImageError as error:
            log.info("upload is not a thumbnailed image: %s", error)
            return None
        finally:
            data.seek(0)

    return await decode(read_and_probe, _HEADER_READER)


async def record_image(rt: Runtime, tx: Tx, attachment_id: int, info: ImageInfo) -> None:
    """Inside the upload's transaction: remember the image; make its thumbnails after commit."""
    await thumbnail_store.insert_image(
        tx, attachment_id, content_type=info.content_type, width=info.width,
        height=info.height, frames=info.frames,
    )  # fmt: skip
    tx.after_commit(lambda: rt.spawn(make_image_thumbnails(rt, attachment_id)))


async def resume_pending(rt: Runtime) -> None:
    """At start-up: make the thumbnails a previous run did not finish."""
    async with rt.db.read() as conn:
        pending = await thumbnail_store.list_pending(conn)
    for attachment_id in pending:
        rt.spawn(make_image_thumbnails(rt, attachment_id))


async def backfill_images(rt: Runtime) -> None:
    """In the background: find the images among uploads made before thumbnails existed and
    make their thumbnails, one at a time (new messages linking them then show previews)."""
    while batch := await _backfill_batch(rt):
        for attachment_id in batch:
            info = None
            async with rt.db.read() as conn:
                row = await upload_store.get_attachment_by_id(conn, attachment_id)
            data = await read_upload(rt, row) if row is not None else b""
            if sniff_image_type(data[:16]) or sniff_heic(data[:HEIF_SNIFF_BYTES]):
                info = await probe_upload(io.BytesIO(data))
            del data
            async with rt.db.write() as tx:
                # Several server processes may backfill at once: one takes each upload.
                if not await thumbnail_store.delete_backfill(tx, attachment_id):
                    info = None
                elif (
                    info is not None and await thumbnail_store.get_image(tx, attachment_id) is None
                ):
                    await thumbnail_store.insert_image(
                        tx, attachment_id, content_type=info.content_type, width=info.width,
                        height=info.height, frames=info.frames,
                    )  # fmt: skip
            if info is not None:
                await make_image_thumbnails(rt, attachment_id)


async def _backfill_batch(rt: Runtime) -> list[int]:
    async with rt.db.read() as conn:
        return await thumbnail_store.list_backfill(conn, 100)


async def make_image_thumbnails(rt: Runtime, attachment_id: int) -> None:
    """Make, store and show the thumbnails of one pending image (once, however often asked:
    a request for a thumbnail not made yet waits for the same work)."""
    running = _RUNNING.setdefault(asyncio.get_running_loop(), {})
    task = running.get(attachment_id)
    if task is None:
        task = asyncio.ensure_future(_make_image_thumbnails(rt, attachment_id))
        running[attachment_id] = task
        task.add_done_callback(lambda _: running.pop(attachment_id, None))
    await asyncio.shield(task)


async def _make_image_thumbnails(rt: Runtime, attachment_id: int) -> None:
    async with _gate():
        async with rt.db.read() as conn:
            image = await thumbnail_store.get_image(conn, attachment_id)
            row = await upload_store.get_attachment_by_id(conn, attachment_id)
        if image is None or row is None or image.state != "pending":
            return
        data = await read_upload(rt, row)
        info = ImageInfo(image.content_type, image.width, image.height, image.frames)
        made: list[Thumbnail] = []
        try:
            made = await decode(functools.partial(make_thumbnails, data, info))
        except BadImageError as error:
            log.info("no thumbnail for upload %s: %s", attachment_id, error)
        del data
    await do_store_thumbnails(rt, image, made)


async def read_upload(rt: Runtime, row: AttachmentRow) -> bytes:
    """All of an upload's bytes: from the database, else from the blob store."""
    chunks: list[bytes] = []
    async with rt.db.read() as conn:
        while (chunk := await upload_store.get_chunk(conn, row.id, len(chunks))) is not None:
            chunks.append(chunk)
    if not chunks and row.size and rt.blobs is not None:
        return await rt.blobs.get(upload_bytes.attachment_key(row.path_id)) or b""
    return b"".join(chunks)


async def do_store_thumbnails(
    rt: Runtime, image: ImageAttachmentRow, made: list[Thumbnail]
) -> None:
    """Store the thumbnails (none: the image failed) and update the messages that show its
    spinner; send each update_message with rendering_only to the message's recipients."""
    keys = [upload_bytes.thumbnail_key(image.path_id, thumb.format.name) for thumb in made]
    if rt.blobs is not None:
        for key, thumb in zip(keys, made, strict=True):
            await rt.blobs.put_bytes(key, thumb.data, thumb.content_type)
    async with rt.db.write() as tx:
        if await thumbnail_store.get_image(tx, image.attachment_id) is None:
            upload_bytes.delete_after_commit(rt, tx, keys)  # the upload was deleted meanwhile
            return
        for thumb in made:
            await thumbnail_store.insert_thumbnail(
                tx, image.attachment_id, name=thumb.format.name, content_type=thumb.content_type,
                width=thumb.width, height=thumb.height,
                data=b"" if rt.blobs is not None else thumb.data,
            )  # fmt: skip
        await thumbnail_store.set_state(tx, image.attachment_id, "ready" if made else "failed")
        updated = await thumbnail_store.get_image(tx, image.attachment_id)
        assert updated is not None
        message_ids = await thumbnail_store.linking_message_ids(tx, image.attachment_id)
        await refresh_messages(rt, tx, message_ids, [updated])


async def refresh_messages(
    rt: Runtime, tx: Tx, message_ids: Iterable[int], images: list[ImageAttachmentRow]
) -> None:
    """Show the thumbnails (or drop the previews) of `images` in the messages; send each
    changed message's update_message with rendering_only."""
    for message in await message_store.list_messages(tx, list(message_ids)):
        rendered = message.rendered_content
        for image in images:
            if image.state != "pending":
                rendered = fill_thumbnail(rendered, image.path_id, upload_preview(image))
        if rendered == message.rendered_content:
            continue
        await message_store.set_rendered_content(tx, message.id, rendered)
        event: JsonDict = {
            "type": "update_message", "user_id": None, "edit_timestamp": rt.now(),
            "message_id": message.id, "message_ids": [message.id], "rendering_only": True,
            "content": message.content, "rendered_content": rendered,
        }  # fmt: skip
        holders = await flag_store.message_user_flags(tx, [message.id])
        audience = {uid: {"flags": fl.flag_names(f[message.id])} for uid, f in holders.items()}
        tx.after_commit(functools.partial(rt.broker.publish, event, audience))


def pick_thumbnail(image: ImageAttachmentRow, name: str) -> str | None:
    """The stored thumbnail that serves a request for format `name`: that one, else the
    closest of the same kind (Zulip serves an approximation of an unknown format)."""
    wanted = ThumbnailFormat.parse(name)
    if wanted is None or not image.thumbnail_names:
        return None
    if name in image.thumbnail_names:
        return name
    stored = [f for f in map(ThumbnailFormat.parse, image.thumbnail_names) if f is not None]
    same_kind = [f for f in stored if f.animated == wanted.animated] or stored
    best = min(same_kind, key=lambda f: abs(f.max_width - wanted.max_width))
    return best.name


async def get_thumbnail(rt: Runtime, row: AttachmentRow, format_name: str) -> bytes:
    """The bytes of an upload's thumbnail in `format_name` (or the closest one made; made now
    if it is still pending), for a user allowed to read the upload; else 404 "File not
    found" (not an image, failed, or not a format name)."""
    async with rt.db.read() as conn:
        image = await thumbnail_store.get_image(conn, row.id)
    if image is not None and image.state == "pending" and ThumbnailFormat.parse(format_name):
        # zulip-compat: serve_file makes a valid format that is not made yet at once.
        await make_image_thumbnails(rt, row.id)
    async with rt.db.read() as conn:
        image = await thumbnail_store.get_image(conn, row.id)
        name = pick_thumbnail(image, format_name) if image is not None else None
        found = await thumbnail_store.get_thumbnail(conn, row.id, name) if name else None
    if found is None or name is None:
        raise ResourceNotFoundError("File not found")
    if not found[1] and rt.blobs is not None:
        data = await rt.blobs.get(upload_bytes.thumbnail_key(row.path_id, name))
        if data is None:
            raise ResourceNotFoundError("File not found")
        return data
    return found[1]


async def show_ready_thumbnails(rt: Runtime, tx: Tx, message_id: int, rendered: Rendered) -> None:
    """Inside the transaction storing a new or edited message: if it was rendered with a
    spinner for an image whose thumbnail was stored (or failed) meanwhile, update it right
    after the commit (the thumbnail's own update could not see this content yet)."""
    if not has_placeholders(rendered.html):
        return
    images = await thumbnail_store.images_by_path(tx, list(rendered.attachment_path_ids))
    done = [image for image in images.values() if image.state != "pending"]
    if done:
        tx.after_commit(lambda: rt.spawn(_refresh_later(rt, message_id, done)))


async def _refresh_later(rt: Runtime, message_id: int, images: list[ImageAttachmentRow]) -> None:
    async with rt.db.write() as tx:
        await refresh_messages(rt, tx, [message_id], images)

"""`teamchat admin move-uploads`: copy the upload bytes still kept in the database into the
configured blob store (a directory or a bucket), then empty them in the database.

One item per write transaction, safe while a server serves: the bytes are in the store before
the transaction that empties them in the database commits, and readers look in the database
first, then in the store. Nothing visible changes, so no event is sent.
"""

from __future__ import annotations

import tempfile
from collections.abc import Awaitable, Callable

from teamchat.actions import upload_bytes
from teamchat.errors import ZulipError
from teamchat.runtime import Runtime
from teamchat.store import realm as realm_store
from teamchat.store import realm_emoji as emoji_store
from teamchat.store import realm_exports as export_store
from teamchat.store import upload_moves as moves
from teamchat.store import uploads as upload_store
from teamchat.store.blobs import AsyncBlobs
from teamchat.store.db import Conn

BATCH = 100
# Chunks of a file being copied stay in memory up to this size, then go to a temporary file.
SPOOL_MEMORY_BYTES = 8 * 1024 * 1024
KINDS = ("uploads", "thumbnails", "avatars", "custom emoji", "exports")
Progress = Callable[[str, int], None]


async def move_uploads_out(rt: Runtime, progress: Progress) -> dict[str, int]:
    """Move every upload byte kept in the database to the blob store; return how many items
    of each kind moved. `progress(kind, moved so far)` is called after each item."""
    blobs = rt.blobs
    if blobs is None:
        raise ZulipError(
            "Uploads are kept in the database: name where to move them with --uploads"
            " (a directory or s3://bucket/prefix)."
        )
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
    if realm is None:
        raise ZulipError("This database has no organization yet.")
    counts = dict.fromkeys(KINDS, 0)

    def step(kind: str) -> None:
        counts[kind] += 1
        progress(kind, counts[kind])

    await _move_attachments(rt, blobs, lambda: step("uploads"))
    await _move_thumbnails(rt, blobs, lambda: step("thumbnails"))
    await _move_avatars(rt, blobs, lambda: step("avatars"))
    await _move_emoji(rt, blobs, realm.id, lambda: step("custom emoji"))
    await _move_exports(rt, blobs, realm.id, lambda: step("exports"))
    return counts


async def _put_chunks(
    blobs: AsyncBlobs, key: str, content_type: str, read: Callable[[int], Awaitable[bytes | None]]
) -> None:
    """Copy the chunks `read(seq)` gives (None: no more) to `key`, through a spooled file."""
    with tempfile.SpooledTemporaryFile(SPOOL_MEMORY_BYTES) as spool:
        seq = 0
        while (chunk := await read(seq)) is not None:
            spool.write(chunk)
            seq += 1
        spool.seek(0)
        await blobs.put(key, spool, content_type)


async def _move_attachments(rt: Runtime, blobs: AsyncBlobs, step: Callable[[], None]) -> None:
    after = 0
    while True:
        async with rt.db.read() as conn:
            batch = await moves.attachments_with_chunks(conn, after, BATCH)
        if not batch:
            return
        for attachment_id, path_id, content_type in batch:
            after = attachment_id
            key = upload_bytes.attachment_key(path_id)

            async def read(seq: int, attachment_id: int = attachment_id) -> bytes | None:
                async with rt.db.read() as conn:
                    return await upload_store.get_chunk(conn, attachment_id, seq)

            await _put_chunks(blobs, key, content_type, read)
            async with rt.db.write() as tx:
                alive = await upload_store.get_attachment_by_id(tx, attachment_id) is not None
                await moves.drop_attachment_chunks(tx, attachment_id)
            await _counted_or_dropped(blobs, key, alive, step)


async def _move_thumbnails(rt: Runtime, blobs: AsyncBlobs, step: Callable[[], None]) -> None:
    while True:
        async with rt.db.read() as conn:
            batch = await moves.thumbnails_in_database(conn, BATCH)
        if not batch:
            return
        for attachment_id, path_id, name, content_type in batch:
            async with rt.db.read() as conn:
                data = await moves.thumbnail_bytes(conn, attachment_id, name)
            await blobs.put_bytes(upload_bytes.thumbnail_key(path_id, name), data, content_type)
            async with rt.db.write() as tx:
                await moves.empty_thumbnail(tx, attachment_id, name)
            step()


async def _move_avatars(rt: Runtime, blobs: AsyncBlobs, step: Callable[[], None]) -> None:
    async with rt.db.read() as conn:
        avatars = await moves.avatars_in_database(conn)
    for user_id, content_type in avatars:
        async with rt.db.read() as conn:
            avatar = await upload_store.get_avatar(conn, user_id)
        if avatar is None or not avatar[1]:
            continue
        await blobs.put_bytes(upload_bytes.avatar_key(user_id), avatar[1], content_type)
        async with rt.db.write() as tx:
            # A new avatar uploaded meanwhile went to the store already and replaced ours.
            moved = await moves.empty_avatar(tx, user_id, avatar[1])
        if moved:
            step()


async def _move_emoji(
    rt: Runtime, blobs: AsyncBlobs, realm_id: int, step: Callable[[], None]
) -> None:
    async with rt.db.read() as conn:
        emoji = await moves.emoji_in_database(conn)
    for emoji_id, file_name, content_type in emoji:
        for still in (False, True):
            async with rt.db.read() as conn:
                data = await _emoji_image(conn, emoji_id, still=still)
            if data is not None:
                key = upload_bytes.emoji_key(realm_id, file_name, still=still)
                await blobs.put_bytes(key, data, content_type)
        async with rt.db.write() as tx:
            await moves.empty_emoji(tx, emoji_id)
        step()


async def _emoji_image(conn: Conn, emoji_id: int, *, still: bool) -> bytes | None:
    data = await emoji_store.get_image(conn, emoji_id, still=still)
    return data or None


async def _move_exports(
    rt: Runtime, blobs: AsyncBlobs, realm_id: int, step: Callable[[], None]
) -> None:
    async with rt.db.read() as conn:
        exports = await moves.exports_with_chunks(conn)
    for export_id, secret, file_name in exports:
        key = upload_bytes.export_key(realm_id, secret, file_name)

        async def read(seq: int, export_id: int = export_id) -> bytes | None:
            async with rt.db.read() as conn:
                return await export_store.get_chunk(conn, export_id, seq)

        await _put_chunks(blobs, key, "application/gzip", read)
        async with rt.db.write() as tx:
            row = await export_store.get(tx, export_id)
            alive = row is not None and row.status != export_store.DELETED
            await moves.drop_export_chunks(tx, export_id)
        await _counted_or_dropped(blobs, key, alive, step)


async def _counted_or_dropped(
    blobs: AsyncBlobs, key: str, alive: bool, step: Callable[[], None]
) -> None:
    """Count a moved item, or delete the copy of one deleted while it was being copied."""
    if alive:
        step()
    else:
        await upload_bytes.delete_now(blobs, [key])

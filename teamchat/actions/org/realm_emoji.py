"""Custom emoji ("realm emoji"): add, deactivate, list, serve images, register state.

Images live in the database (realm_emoji_image) or in the blob store (actions/upload_bytes.py),
written before the emoji's row. Removing an emoji only deactivates it, as
in Zulip, so old messages and reactions keep their image. Other areas (reactions, user
status, message rendering) resolve emoji through the lookups at the bottom.
"""

from __future__ import annotations

import mimetypes
import re
import secrets

from teamchat import store
from teamchat.actions import upload_bytes
from teamchat.actions.org.permissions import has_realm_permission
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import BadImageError, ResourceNotFoundError, ZulipError
from teamchat.events.types_realm_emoji import (
    InternalRealmEmojiAddEvent,
    InternalRealmEmojiUpdateOneEvent,
    RealmEmojiObject,
    RealmEmojiUpdateData,
)
from teamchat.lib import emoji as unicode_emoji
from teamchat.lib import images
from teamchat.records import RealmEmojiRow, UserRow
from teamchat.render.context import RealmEmoji
from teamchat.runtime import Runtime
from teamchat.store.conn import IntegrityError
from teamchat.store.db import Conn

# Zulip's MAX_EMOJI_FILE_SIZE_MIB.
MAX_EMOJI_FILE_SIZE_MIB = 5
# Where the mobile app fetches the Unicode emoji names (register key server_emoji_data_url).
EMOJI_DATA_PATH = "/static/emoji/emoji_api.json"

_VALID_NAME_RE = re.compile(r"[0-9a-z_-]*[0-9a-z]")
_NAME_CHARS_RE = re.compile(r"[0-9a-z_-]+")
_GENERIC_TYPES = frozenset({"", "application/octet-stream"})


def clean_emoji_name(raw: str) -> str:
    """Return the name an upload asks for, as Zulip cleans and checks it."""
    # zulip-compat: spaces stand for underscores; the rules are those of the upload view.
    name = raw.strip().replace(" ", "_")
    if not name:
        raise ZulipError("Emoji name is missing")
    if _VALID_NAME_RE.fullmatch(name):
        return name
    if _NAME_CHARS_RE.fullmatch(name):
        raise ZulipError("Emoji names must end with either a letter or digit.")
    raise ZulipError(
        "Emoji names must contain only lowercase English letters, digits, spaces, "
        "dashes, and underscores."
    )


async def check_can_add_realm_emoji(rt: Runtime, user: UserRow, raw_name: str) -> str:
    """Check that `user` may add an emoji called `raw_name`; return the cleaned name.

    Runs before the image is received, so a refused upload is not read at all.
    """
    if user.is_guest:
        raise ZulipError("Not allowed for guest users")
    if user.is_bot:
        raise ZulipError("This endpoint does not accept bot requests.")
    name = clean_emoji_name(raw_name)
    async with rt.db.read() as conn:
        realm = await store.realm.get_realm(conn)
        assert realm is not None
        allowed = await has_realm_permission(conn, realm, user, "can_add_custom_emoji_group")
        existing = await store.realm_emoji.get_active_realm_emoji_by_name(conn, name)
    if not allowed:
        raise ZulipError("Insufficient permission")
    if existing is not None:
        raise ZulipError("A custom emoji with this name already exists.")
    if unicode_emoji.name_to_codepoint(name) is not None and not user.is_admin:
        raise ZulipError("Only administrators can override default emoji.")
    return name


def emoji_image_type(file_name: str, declared_type: str, data: bytes) -> str:
    """Return the content type to store an uploaded emoji image under, or refuse it."""
    declared = declared_type.split(";")[0].strip().lower()
    if declared in _GENERIC_TYPES:
        # Clients like the python `zulip` library send no type: go by the file name.
        declared = mimetypes.guess_type(file_name)[0] or declared
    if declared not in images.IMAGE_EXTENSIONS:
        raise BadImageError("Invalid image format")
    actual = images.sniff_image_type(data)
    if actual is None:
        raise BadImageError("Could not decode image; did you upload an image file?")
    return actual


async def check_add_realm_emoji(
    rt: Runtime, user: UserRow, name: str, file_name: str, declared_type: str, data: bytes
) -> RealmEmojiRow:
    """Check the image of an emoji `check_can_add_realm_emoji` allowed, then add it."""
    content_type = emoji_image_type(file_name, declared_type, data)
    still = images.still_image(content_type, data)
    return await do_add_realm_emoji(rt, user, name, content_type, data, still)


async def do_add_realm_emoji(
    rt: Runtime, author: UserRow, name: str, content_type: str, data: bytes, still: bytes | None
) -> RealmEmojiRow:
    """Store a new active emoji; send realm_emoji (add, or the legacy update) to everyone."""
    # zulip-compat: a random file name, like Zulip's salted hash, so URLs are not guessable.
    file_name = secrets.token_hex(8) + images.IMAGE_EXTENSIONS[content_type]
    if rt.blobs is not None:
        async with rt.db.read() as conn:
            realm_id = await _realm_id(conn)
        await rt.blobs.put_bytes(
            upload_bytes.emoji_key(realm_id, file_name, still=False), data, content_type
        )
        if still is not None:
            key = upload_bytes.emoji_key(realm_id, file_name, still=True)
            await rt.blobs.put_bytes(key, still, content_type)
        data, still = b"", (b"" if still is not None else None)
    try:
        async with rt.db.write() as tx:
            emoji_id = await store.realm_emoji.insert(
                tx,
                name=name,
                file_name=file_name,
                content_type=content_type,
                author_id=author.id,
                date_created=rt.now(),
                data=data,
                still=still,
            )
            row = await store.realm_emoji.get_realm_emoji_by_id(tx, emoji_id)
            assert row is not None
            realm_id = await _realm_id(tx)
            event = InternalRealmEmojiAddEvent(
                emoji=emoji_object(row, realm_id),
                realm_emoji=await realm_emoji_objects(tx, realm_id),
            )
            audience = await store.users.list_active_user_ids(tx)
            tx.after_commit(lambda: rt.broker.publish(event, audience))
    except IntegrityError:  # realm_emoji_active_name: another upload won the race
        raise ZulipError("A custom emoji with this name already exists.") from None
    return row


async def check_remove_realm_emoji(rt: Runtime, user: UserRow, name: str) -> None:
    """Deactivate the active emoji `name` if `user` added it or is an administrator."""
    async with rt.db.read() as conn:
        emoji = await store.realm_emoji.get_active_realm_emoji_by_name(conn, name)
    if emoji is None:
        raise ResourceNotFoundError(f"Emoji '{name}' does not exist")
    if not user.is_admin and emoji.author_id != user.id:
        raise ZulipError("Must be an organization administrator or emoji author")
    await do_remove_realm_emoji(rt, emoji)


async def do_remove_realm_emoji(rt: Runtime, emoji: RealmEmojiRow) -> None:
    """Deactivate `emoji`; send realm_emoji (update_one, or the legacy update) to everyone."""
    async with rt.db.write() as tx:
        if not await store.realm_emoji.deactivate(tx, emoji.id):  # removed meanwhile
            raise ResourceNotFoundError(f"Emoji '{emoji.name}' does not exist")
        realm_id = await _realm_id(tx)
        event = InternalRealmEmojiUpdateOneEvent(
            emoji_id=str(emoji.id),
            data=RealmEmojiUpdateData(deactivated=True),
            realm_emoji=await realm_emoji_objects(tx, realm_id),
        )
        audience = await store.users.list_active_user_ids(tx)
        tx.after_commit(lambda: rt.broker.publish(event, audience))


async def list_realm_emoji(rt: Runtime) -> dict[str, RealmEmojiObject]:
    """Return every custom emoji (deactivated ones too) keyed by id string."""
    async with rt.db.read() as conn:
        return await realm_emoji_objects(conn, await _realm_id(conn))


async def get_emoji_image(
    rt: Runtime, realm_id: int, file_name: str, *, still: bool
) -> tuple[str, bytes]:
    """Return (content type, bytes) of an emoji image or its still; deactivated ones too."""
    async with rt.db.read() as conn:
        emoji = await store.realm_emoji.get_realm_emoji_by_file_name(conn, file_name)
        data = None
        if emoji is not None and realm_id == await _realm_id(conn):
            data = await store.realm_emoji.get_image(conn, emoji.id, still=still)
    if emoji is not None and data == b"" and rt.blobs is not None:
        data = await rt.blobs.get(upload_bytes.emoji_key(realm_id, file_name, still=still))
    if emoji is None or data is None:
        raise ResourceNotFoundError("Not Found")
    return emoji.content_type, data


def emoji_object(row: RealmEmojiRow, realm_id: int) -> RealmEmojiObject:
    """Build the wire object of one emoji."""
    base = f"/user_avatars/{realm_id}/emoji/images"
    return RealmEmojiObject(
        id=str(row.id),
        name=row.name,
        source_url=f"{base}/{row.file_name}",
        # zulip-compat: Zulip's still is a PNG; ours is the first frame in the same format.
        still_url=f"{base}/still/{row.file_name}" if row.has_still else None,
        deactivated=row.deactivated,
        author_id=row.author_id,
    )


async def realm_emoji_objects(conn: Conn, realm_id: int) -> dict[str, RealmEmojiObject]:
    """Return every emoji's wire object keyed by id string (Zulip's realm_emoji dict)."""
    rows = await store.realm_emoji.list_realm_emoji(conn)
    return {str(row.id): emoji_object(row, realm_id) for row in rows}


async def _realm_id(conn: Conn) -> int:
    realm = await store.realm.get_realm(conn)
    assert realm is not None
    return realm.id


# Lookups for other areas (reactions, user status, message rendering).


async def get_active_realm_emoji_by_name(conn: Conn, name: str) -> RealmEmojiRow | None:
    """Return the active custom emoji called `name`, or None."""
    return await store.realm_emoji.get_active_realm_emoji_by_name(conn, name)


async def get_realm_emoji_by_id(conn: Conn, emoji_id: int) -> RealmEmojiRow | None:
    """Return the custom emoji with this id (maybe deactivated), or None."""
    return await store.realm_emoji.get_realm_emoji_by_id(conn, emoji_id)


async def realm_emoji_map(conn: Conn) -> dict[str, RealmEmoji]:
    """Return name -> RealmEmoji of the active custom emoji, for RenderContext.realm_emoji."""
    realm_id = await _realm_id(conn)
    return {
        row.name: RealmEmoji(row.id, emoji_object(row, realm_id).source_url, row.deactivated)
        for row in await store.realm_emoji.list_realm_emoji(conn)
        if not row.deactivated
    }


@state_fetcher("realm_emoji")
async def _realm_emoji_state(ctx: StateContext) -> None:
    ctx.state["realm_emoji"] = await realm_emoji_objects(ctx.conn, ctx.realm.id)


@state_fetcher("realm")
async def _emoji_data_state(ctx: StateContext) -> None:
    ctx.state["server_emoji_data_url"] = ctx.realm_url + EMOJI_DATA_PATH

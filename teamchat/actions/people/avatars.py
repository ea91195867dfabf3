"""Uploaded avatars (in the database or the blob store) and the avatar URL redirect."""

from __future__ import annotations

from teamchat import store
from teamchat.actions import upload_bytes
from teamchat.actions.people.users import find_user_by_email
from teamchat.errors import ZulipError
from teamchat.events.types import RealmUserUpdateEvent
from teamchat.lib import images, wire
from teamchat.lib.integers import is_ascii_digits
from teamchat.records import UserRow
from teamchat.runtime import Runtime

MAX_AVATAR_FILE_SIZE_MIB = 5
AVATAR_CONTENT_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


async def do_set_avatar(rt: Runtime, user: UserRow, content_type: str, data: bytes) -> str:
    """Store an uploaded avatar; send realm_user/update with the avatar fields."""
    # The declared type is only a first filter; what is stored is what the bytes are.
    actual = images.sniff_image_type(data)
    if content_type not in AVATAR_CONTENT_TYPES or actual is None:
        raise ZulipError("Invalid image format")
    return await _change_avatar(rt, user, "U", (actual, data))


async def do_delete_avatar(rt: Runtime, user: UserRow) -> str:
    """Go back to the Gravatar-style avatar; send realm_user/update."""
    return await _change_avatar(rt, user, "G", None)


async def _change_avatar(
    rt: Runtime, user: UserRow, source: str, image: tuple[str, bytes] | None
) -> str:
    key = upload_bytes.avatar_key(user.id)
    if image is not None and rt.blobs is not None:
        # The URL carries the avatar version, so replacing the object in place is safe.
        await rt.blobs.put_bytes(key, image[1], image[0])
        image = (image[0], b"")
    async with rt.db.write() as tx:
        if image is None:
            await store.uploads.delete_avatar(tx, user.id)
            upload_bytes.delete_after_commit(rt, tx, [key])
        else:
            await store.uploads.set_avatar(tx, user.id, *image)
        await store.users.update_avatar_source(tx, user.id, source)
        changed = await store.users.get_user_by_id(tx, user.id)
        assert changed is not None
        url = wire.avatar_url(changed, client_gravatar=False, email_visible=True) or ""
        event = RealmUserUpdateEvent(
            person={
                "user_id": user.id,
                "avatar_source": source,
                "avatar_url": url,
                "avatar_url_medium": url,
                "avatar_version": changed.avatar_version,
            }
        )
        audience = await store.users.list_active_user_ids(tx)
        tx.after_commit(lambda: rt.broker.publish(event, audience))
    return url


async def avatar_redirect_url(rt: Runtime, user_id_or_email: str) -> str:
    """Where /avatar/{user_id_or_email} sends the browser."""
    async with rt.db.read() as conn:
        if is_ascii_digits(user_id_or_email):
            target = await store.users.get_user_by_id(conn, int(user_id_or_email))
        else:
            target = await find_user_by_email(conn, user_id_or_email)
    if target is None:
        raise ZulipError("No such user")
    return wire.avatar_url(target, client_gravatar=False, email_visible=True) or ""


async def get_uploaded_avatar(rt: Runtime, user_id: int) -> tuple[str, bytes]:
    async with rt.db.read() as conn:
        avatar = await store.uploads.get_avatar(conn, user_id)
    if avatar is None:
        raise ZulipError("No such avatar")
    if not avatar[1] and rt.blobs is not None:
        data = await rt.blobs.get(upload_bytes.avatar_key(user_id))
        if data is None:
            raise ZulipError("No such avatar")
        return avatar[0], data
    return avatar

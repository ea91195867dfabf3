"""Reading people as a given user sees them (GET /users and friends, register's realm_users)."""

from __future__ import annotations

from teamchat import store
from teamchat.actions.people.user_access import (
    access_user_by_email,
    access_user_by_id,
    accessible_user_ids,
)
from teamchat.errors import ZulipError
from teamchat.lib import wire
from teamchat.lib.api_types import ProfileValue, UserObject
from teamchat.records import RealmRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import custom_profile_fields as fields_store
from teamchat.store import messages as message_store
from teamchat.store.db import Conn


async def user_objects(
    conn: Conn,
    realm: RealmRow,
    viewer: UserRow,
    users: list[UserRow],
    *,
    client_gravatar: bool,
    include_custom_profile_fields: bool,
) -> list[UserObject]:
    """Member objects for `users` as `viewer` sees them (profile_data on request)."""
    profile_data: dict[int, dict[str, ProfileValue]] = {}
    if include_custom_profile_fields:
        user_ids = [u.id for u in users] if len(users) < 500 else None
        profile_data = wire.profile_data_by_user(
            await fields_store.list_values(conn, user_ids=user_ids)
        )
    return [
        wire.user_object(
            u,
            viewer=viewer,
            realm_host=realm.host,
            client_gravatar=client_gravatar,
            profile_data=profile_data.get(u.id, {}) if include_custom_profile_fields else None,
        )
        for u in users
    ]


async def visible_user_objects(
    conn: Conn,
    realm: RealmRow,
    viewer: UserRow,
    users: list[UserRow],
    *,
    client_gravatar: bool,
    include_custom_profile_fields: bool,
    user_list_incomplete: bool = False,
) -> list[UserObject]:
    """`user_objects`, with the people `viewer` may not access as Zulip's "Unknown user"
    placeholders (or left out, for clients declaring `user_list_incomplete`)."""
    accessible = await accessible_user_ids(conn, viewer)
    if accessible is None:
        shown, hidden = users, []
    else:
        shown = [u for u in users if u.is_bot or u.id in accessible]
        hidden = [u for u in users if not u.is_bot and u.id not in accessible]
        if user_list_incomplete:
            hidden = []
    objects = await user_objects(
        conn,
        realm,
        viewer,
        shown,
        client_gravatar=client_gravatar,
        include_custom_profile_fields=include_custom_profile_fields,
    )
    objects += [wire.inaccessible_user_object(u.id, realm.host) for u in hidden]
    return sorted(objects, key=lambda o: o.user_id)


async def get_members(
    rt: Runtime,
    viewer: UserRow,
    *,
    user_ids: list[int] | None,
    client_gravatar: bool,
    include_custom_profile_fields: bool = False,
) -> list[UserObject]:
    """Every user (or those of `user_ids`) as `viewer` sees them."""
    async with rt.db.read() as conn:
        realm = await _realm(conn)
        users = await store.users.list_users(conn, user_ids=user_ids)
        return await visible_user_objects(
            conn,
            realm,
            viewer,
            users,
            client_gravatar=client_gravatar,
            include_custom_profile_fields=include_custom_profile_fields,
        )


async def get_member(
    rt: Runtime,
    viewer: UserRow,
    *,
    user_id: int | None = None,
    email: str | None = None,
    client_gravatar: bool = False,
    include_custom_profile_fields: bool = False,
) -> UserObject:
    """One user by id or email, as `viewer` sees them; 'No such user' otherwise."""
    async with rt.db.read() as conn:
        return await _member(conn, viewer, user_id, email, client_gravatar,
                             include_custom_profile_fields)  # fmt: skip


async def _member(
    conn: Conn,
    viewer: UserRow,
    user_id: int | None,
    email: str | None,
    client_gravatar: bool,
    include_custom_profile_fields: bool,
) -> UserObject:
    realm = await _realm(conn)
    flags = {"allow_deactivated": True, "allow_bots": True, "for_admin": False}
    if user_id is not None:
        target = await access_user_by_id(conn, viewer, user_id, **flags)
    else:
        # The real address only finds users whose address this viewer may see.
        target = await access_user_by_email(conn, viewer, email or "", **flags)
    [obj] = await user_objects(
        conn,
        realm,
        viewer,
        [target],
        client_gravatar=client_gravatar,
        include_custom_profile_fields=include_custom_profile_fields,
    )
    return obj


async def _realm(conn: Conn) -> RealmRow:
    realm = await store.realm.get_realm(conn)
    if realm is None:
        raise ZulipError("This database has no organization yet.")
    return realm


async def get_own_user(rt: Runtime, user: UserRow) -> tuple[UserObject, int]:
    """GET /users/me: `user` as they see themselves (custom profile fields included) and the
    newest message they received (-1 if none), read in one snapshot."""
    async with rt.db.read() as conn:
        me = await _member(conn, user, user.id, None, False, True)
        return me, await message_store.max_user_message_id(conn, user.id)

"""Reading people as a given user sees them (GET /users and friends, register's realm_users)."""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from teamchat import store
from teamchat.actions.org.system_bots import is_system_bot
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


# What user objects are built from: the users, the realm's host, custom profile values.
_PEOPLE_TABLES = ("users", "realm", "custom_profile_field_value")


# The last objects built per kind of viewer: a rebuild after a change reuses the objects of
# the users whose rows did not change (an object is a pure function of its inputs).
_last_seen: dict[str, EveryoneSeen] = {}


class EveryoneSeen(msgspec.Struct, frozen=True):
    """Every user's object as a viewer of one role sees them (not themselves), by id."""

    users: tuple[UserRow, ...]
    objects: tuple[UserObject, ...]
    position: dict[int, int]  # user id -> index
    realm_host: str
    # POST /register's lists, built on first use: see `register_lists`.
    lists: list[RegisterLists] = msgspec.field(default_factory=list)


class RegisterLists(msgspec.Struct, frozen=True):
    active: tuple[UserObject, ...]  # without is_active, system bots left out
    non_active: tuple[UserObject, ...]
    active_position: dict[int, int]
    system_bots: tuple[UserRow, ...]  # active ones


async def everyone_seen(
    conn: Conn,
    realm: RealmRow,
    viewer: UserRow,
    *,
    client_gravatar: bool,
    include_custom_profile_fields: bool,
) -> EveryoneSeen:
    """`user_objects` of everyone as `viewer`'s role sees them, built once per change of
    the tables they come from (a viewer's own object differs: see `with_own_object`)."""
    key = (
        f"people:{int(viewer.role)}:{int(viewer.is_bot)}:{int(client_gravatar)}"
        f":{int(include_custom_profile_fields)}"
    )

    async def load(c: Conn) -> EveryoneSeen:
        users = tuple(await store.users.list_users(c))
        profile_data: dict[int, dict[str, ProfileValue]] = {}
        if include_custom_profile_fields:
            profile_data = wire.profile_data_by_user(await fields_store.list_values(c))
        peer = msgspec.structs.replace(viewer, id=-1)  # of the viewer's role, nobody listed
        before = _last_seen.get(key)
        if before is not None and before.realm_host != realm.host:
            before = None
        objects = []
        for user in users:
            profile = profile_data.get(user.id, {}) if include_custom_profile_fields else None
            index = before.position.get(user.id) if before is not None else None
            if before is not None and index is not None and before.users[index] == user:
                known = before.objects[index]
                if profile is None or known.profile_data == profile:
                    objects.append(known)  # the same inputs make the same object
                    continue
            objects.append(
                wire.user_object(
                    user,
                    viewer=peer,
                    realm_host=realm.host,
                    client_gravatar=client_gravatar,
                    profile_data=profile,
                )
            )
        position = {u.id: i for i, u in enumerate(users)}
        seen = EveryoneSeen(
            users=users, objects=tuple(objects), position=position, realm_host=realm.host
        )
        _last_seen[key] = seen
        return seen

    return await conn.memo(_PEOPLE_TABLES, key, load)


def own_object(
    seen: EveryoneSeen, realm: RealmRow, viewer: UserRow, *, client_gravatar: bool
) -> UserObject | None:
    """The viewer's own object (their own address is always visible to them)."""
    index = seen.position.get(viewer.id)
    if index is None:
        return None
    cached = seen.objects[index]
    return wire.user_object(
        seen.users[index],
        viewer=viewer,
        realm_host=realm.host,
        client_gravatar=client_gravatar,
        profile_data=None if isinstance(cached.profile_data, UnsetType) else cached.profile_data,
    )


def register_lists(seen: EveryoneSeen, realm: RealmRow) -> RegisterLists:
    """`realm_users`, `realm_non_active_users` (objects without is_active) and the active
    system bots, built once per `seen`."""
    if not seen.lists:
        active: list[UserObject] = []
        non_active: list[UserObject] = []
        bots: list[UserRow] = []
        for user, obj in zip(seen.users, seen.objects, strict=True):
            if is_system_bot(user, realm.host):
                if user.is_active:
                    bots.append(user)
                continue
            bare = msgspec.structs.replace(obj, is_active=UNSET)
            (active if user.is_active else non_active).append(bare)
        seen.lists.append(
            RegisterLists(
                active=tuple(active),
                non_active=tuple(non_active),
                active_position={o.user_id: i for i, o in enumerate(active)},
                system_bots=tuple(bots),
            )
        )
    return seen.lists[0]


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
        if user_ids is None and await accessible_user_ids(conn, viewer) is None:
            seen = await everyone_seen(
                conn,
                realm,
                viewer,
                client_gravatar=client_gravatar,
                include_custom_profile_fields=include_custom_profile_fields,
            )
            objects = list(seen.objects)
            own = own_object(seen, realm, viewer, client_gravatar=client_gravatar)
            if own is not None:
                objects[seen.position[viewer.id]] = own
            return objects
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

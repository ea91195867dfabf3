"""Changing user groups: create, update, members and subgroups, deactivate; `user_group` events.

Every `do_*` validates inside its one write transaction (reads on the Tx), so a request with
several parts either applies fully or not at all. Events go to every active user.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from teamchat import store
from teamchat.actions.org import group_settings, permissions
from teamchat.actions.org.user_groups import (
    group_object,
    load_groups,
    require_member_or_admin,
    stored_settings,
)
from teamchat.errors import CannotDeactivateGroupInUseError, ZulipError
from teamchat.events.types import Event
from teamchat.events.types_org import (
    LEGACY_ONLY,
    MODERN_ONLY,
    UserGroupAddEvent,
    UserGroupAddSubgroupsEvent,
    UserGroupUpdateEvent,
)
from teamchat.lib import system_groups as sg
from teamchat.lib.group_permissions import GROUP_CREATOR, USER_GROUP_PERMISSIONS
from teamchat.lib.realm_settings import GroupSettingValue
from teamchat.lib.text import check_text
from teamchat.records import UserGroupRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import user_groups as group_store
from teamchat.store.conn import IntegrityError
from teamchat.store.db import Conn, Tx

MAX_GROUP_NAME_CHARS = 100
MAX_GROUP_DESCRIPTION_CHARS = 1024  # zulip-compat: UserGroup.MAX_DESCRIPTION_LENGTH
INVALID_NAME_PREFIXES = ("@", "role:", "user:", "stream:", "channel:")


def check_group_name(name: str) -> str:
    """Zulip's check_user_group_name."""
    if not name.strip():
        raise ZulipError("User group name can't be empty!")
    if len(name) > MAX_GROUP_NAME_CHARS:
        raise ZulipError(f"User group name cannot exceed {MAX_GROUP_NAME_CHARS} characters.")
    check_text("name", name)
    for prefix in INVALID_NAME_PREFIXES:
        if name.startswith(prefix):
            raise ZulipError(f"User group name cannot start with '{prefix}'.")
    return name


def check_group_description(description: str) -> str:
    return check_text(
        "description", description, max_chars=MAX_GROUP_DESCRIPTION_CHARS, multiline=True
    )


async def publish_to_active(
    rt: Runtime, tx: Tx, events: Sequence[Event | dict[str, object]]
) -> None:
    """Queue `events` for every active user, in order, after commit."""
    if not events:
        return
    audience = await store.users.list_active_user_ids(tx)

    def send() -> None:
        for event in events:
            rt.broker.publish(event, audience)

    tx.after_commit(send)


async def check_active_users(conn: Conn, user_ids: Sequence[int]) -> list[int]:
    """`user_ids` if all are active users; Zulip's "Invalid user ID" otherwise."""
    active = set(await store.users.list_active_user_ids(conn))
    for user_id in user_ids:
        if user_id not in active:
            raise ZulipError(f"Invalid user ID: {user_id}")
    return list(dict.fromkeys(user_ids))


async def _has_group_permission(
    conn: Conn, user: UserRow, group: UserGroupRow, setting: str, now: int
) -> bool:
    if user.is_guest and not USER_GROUP_PERMISSIONS[setting].allow_everyone_group:
        return False
    value = stored_settings(group, await store.groups.system_group_ids(conn))[setting]
    return await store.groups.is_user_in_setting(conn, user, value, now=now)  # type: ignore[arg-type]


async def access_group_for_update(
    conn: Conn, user: UserRow, group_id: int, setting: str, now: int, *, allow_deactivated: bool
) -> UserGroupRow:
    """The named group `user` may change through `setting` (or can_manage_group)."""
    group = await group_store.get_group(conn, group_id)
    if group is None:
        raise ZulipError("Invalid user group")
    if group.deactivated and not allow_deactivated:
        raise ZulipError("User group is deactivated.")
    if group.is_system_group:
        raise ZulipError("Insufficient permission")
    realm = await store.realm.get_realm(conn)
    assert realm is not None
    if await permissions.has_realm_permission(conn, realm, user, "can_manage_all_groups", now=now):
        return group
    for name in dict.fromkeys(("can_manage_group", setting)):
        if await _has_group_permission(conn, user, group, name, now):
            return group
    raise ZulipError("Insufficient permission")


async def _check_new_settings(
    conn: Conn, creator: UserRow, requested: Mapping[str, GroupSettingValue]
) -> dict[str, GroupSettingValue]:
    system_ids = await store.groups.system_group_ids(conn)
    values: dict[str, GroupSettingValue] = {}
    for name, config in USER_GROUP_PERMISSIONS.items():
        if name in requested:
            value = group_settings.canonical(requested[name], system_ids[sg.NOBODY])
            values[name] = await group_settings.check_new_value(conn, value, name, config)
        elif config.default_group_name == GROUP_CREATOR:
            values[name] = {"direct_members": [creator.id], "direct_subgroups": []}
        else:
            values[name] = system_ids[config.default_group_name]
    return values


async def check_subgroups_exist(conn: Conn, subgroup_ids: Sequence[int]) -> list[UserGroupRow]:
    """The groups of `subgroup_ids`; unknown or deactivated ones are refused."""
    groups = []
    for group_id in dict.fromkeys(subgroup_ids):
        group = await group_store.get_group(conn, group_id)
        if group is None:
            raise ZulipError(f"Invalid user group ID: {group_id}")
        if group.deactivated:
            raise ZulipError("User group is deactivated.")
        groups.append(group)
    return groups


async def do_create_user_group(
    rt: Runtime,
    user: UserRow,
    *,
    name: str,
    description: str,
    members: Sequence[int],
    subgroups: Sequence[int],
    settings: Mapping[str, GroupSettingValue],
) -> int:
    """POST /user_groups/create: sends user_group/add, then add_subgroups when given."""
    require_member_or_admin(user)
    check_group_name(name)
    check_group_description(description)
    now = rt.now()
    async with rt.db.write() as tx:
        realm = await store.realm.get_realm(tx)
        assert realm is not None
        if not await permissions.has_realm_permission(
            tx, realm, user, "can_create_groups", now=now
        ):
            raise ZulipError("Insufficient permission")
        member_ids = await check_active_users(tx, members)
        values = await _check_new_settings(tx, user, settings)
        subgroup_rows = await check_subgroups_exist(tx, subgroups)
        try:
            group_id = await group_store.insert_named_group(
                tx,
                name=name,
                description=description,
                date_created=now,
                creator_id=user.id,
                settings_json=msgspec.json.encode(values).decode(),
            )
        except IntegrityError:
            raise ZulipError(f"User group '{name}' already exists.") from None
        await group_store.insert_members(tx, group_id, member_ids)
        snap = await load_groups(tx, now)
        group = snap.by_id(group_id)
        assert group is not None
        events: list[Event] = [UserGroupAddEvent(group=group_object(group, snap))]
        if subgroup_rows:
            subgroup_ids = [g.id for g in subgroup_rows]
            await store.groups.insert_subgroups(tx, group_id, subgroup_ids)
            events.append(
                UserGroupAddSubgroupsEvent(group_id=group_id, direct_subgroup_ids=subgroup_ids)
            )
        await publish_to_active(rt, tx, events)
    return group_id


async def do_update_user_group(
    rt: Runtime,
    user: UserRow,
    group_id: int,
    *,
    name: str | None = None,
    description: str | None = None,
    deactivated: bool | None = None,
    settings: Mapping[str, group_settings.GroupSettingChange] | None = None,
) -> None:
    """PATCH /user_groups/{id}: one user_group/update event per changed field."""
    settings = settings or {}
    if name is None and description is None and deactivated is None and not settings:
        raise ZulipError("No new data supplied")
    require_member_or_admin(user)
    if description is not None:
        check_group_description(description)
    now = rt.now()
    async with rt.db.write() as tx:
        group = await access_group_for_update(
            tx, user, group_id, "can_manage_group", now, allow_deactivated=True
        )
        events: list[Event | dict[str, object]] = []
        if name is not None and name != group.name:
            check_group_name(name)
            if await group_store.get_group_by_name(tx, name) is not None:
                raise ZulipError(f"User group '{name}' already exists.")
            await group_store.update_group(tx, group_id, name=name)
            events.append(UserGroupUpdateEvent(group_id=group_id, data={"name": name}))
        if description is not None and description != group.description:
            await group_store.update_group(tx, group_id, description=description)
            events.append(
                UserGroupUpdateEvent(group_id=group_id, data={"description": description})
            )
        if deactivated is False and group.deactivated:
            await group_store.update_group(tx, group_id, deactivated=0)
            events += await _reactivation_events(tx, group_id, now)
        events += await _change_settings(tx, group, settings)
        await publish_to_active(rt, tx, events)


async def _change_settings(
    tx: Tx, group: UserGroupRow, changes: Mapping[str, group_settings.GroupSettingChange]
) -> list[Event | dict[str, object]]:
    system_ids = await store.groups.system_group_ids(tx)
    stored = stored_settings(group, system_ids)
    events: list[Event | dict[str, object]] = []
    active = set(await store.users.list_active_user_ids(tx))
    for name, change in changes.items():
        config = USER_GROUP_PERMISSIONS[name]
        current: GroupSettingValue = stored[name]  # type: ignore[assignment]
        new = await group_settings.check_change(tx, change, current, name, config, system_ids)
        if new is None:
            continue
        stored[name] = new
        await group_store.update_group(
            tx, group.id, settings_json=msgspec.json.encode(stored).decode()
        )
        data: dict[str, object] = {name: group_settings.api_value(new, active)}
        events.append(UserGroupUpdateEvent(group_id=group.id, data=data))
    return events


async def _reactivation_events(tx: Tx, group_id: int, now: int) -> list[Event | dict[str, object]]:
    snap = await load_groups(tx, now)
    group = snap.by_id(group_id)
    assert group is not None
    update = msgspec.to_builtins(
        UserGroupUpdateEvent(group_id=group_id, data={"deactivated": False})
    )
    add = msgspec.to_builtins(UserGroupAddEvent(group=group_object(group, snap)))
    return [{**update, MODERN_ONLY: True}, {**add, LEGACY_ONLY: True}]


async def do_deactivate_user_group(rt: Runtime, user: UserRow, group_id: int) -> None:
    """POST /user_groups/{id}/deactivate; refused while the group is in use."""
    now = rt.now()
    async with rt.db.write() as tx:
        group = await access_group_for_update(
            tx, user, group_id, "can_manage_group", now, allow_deactivated=False
        )
        objections = await _deactivation_objections(tx, group)
        if objections:
            raise CannotDeactivateGroupInUseError(objections)
        await group_store.update_group(tx, group_id, deactivated=1)
        event = UserGroupUpdateEvent(group_id=group_id, data={"deactivated": True})
        await publish_to_active(rt, tx, [event])


def _uses(value: object, group_id: int) -> bool:
    if isinstance(value, dict):
        return group_id in value.get("direct_subgroups", [])
    return value == group_id


async def _deactivation_objections(tx: Tx, group: UserGroupRow) -> list[dict[str, object]]:
    """Where `group` is still used: as a subgroup, in group settings, in realm settings."""
    objections: list[dict[str, object]] = []
    system_ids = await store.groups.system_group_ids(tx)
    supergroups = await group_store.supergroup_ids(tx, group.id)
    if supergroups:
        objections.append({"type": "subgroup", "supergroup_ids": supergroups})
    for other in await group_store.list_groups(tx, include_deactivated=False):
        if other.is_system_group:
            continue
        stored = stored_settings(other, system_ids)
        used = [name for name in USER_GROUP_PERMISSIONS if _uses(stored.get(name), group.id)]
        if used:
            objections.append({"type": "user_group", "group_id": other.id, "settings": used})
    realm = await store.realm.get_realm(tx)
    assert realm is not None
    realm_values = await permissions.realm_group_settings(tx, realm)
    used = [name for name, value in realm_values.items() if _uses(value, group.id)]
    if used:
        objections.append({"type": "realm", "settings": used})
    return objections

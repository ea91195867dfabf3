"""POST /user_groups/{id}/members and /subgroups: membership changes in one transaction.

Each part (add, delete, add_subgroups, delete_subgroups) has its own permission, as in
Zulip's update_user_group_backend; any failure rolls back every part.
"""

from __future__ import annotations

from collections.abc import Sequence

from teamchat import store
from teamchat.actions.org.user_group_edit import (
    access_group_for_update,
    check_active_users,
    check_subgroups_exist,
    publish_to_active,
)
from teamchat.actions.org.user_groups import require_member_or_admin
from teamchat.errors import ZulipError
from teamchat.events.types import Event
from teamchat.events.types_org import (
    UserGroupAddMembersEvent,
    UserGroupAddSubgroupsEvent,
    UserGroupRemoveMembersEvent,
    UserGroupRemoveSubgroupsEvent,
)
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import user_groups as group_store
from teamchat.store.db import Tx

NOTHING_TO_DO = (
    'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".'
)


async def do_update_user_group_members(
    rt: Runtime,
    user: UserRow,
    group_id: int,
    *,
    add: Sequence[int] = (),
    delete: Sequence[int] = (),
    add_subgroups: Sequence[int] = (),
    delete_subgroups: Sequence[int] = (),
    nothing_to_do: str = NOTHING_TO_DO,
    bots_allowed: bool = False,
) -> None:
    """Apply every requested membership change, or none; one event per kind of change.
    Bots may change members (SPEC, level 496) where the group's settings let them."""
    if not (add or delete or add_subgroups or delete_subgroups):
        raise ZulipError(nothing_to_do)
    require_member_or_admin(user, bots_allowed=bots_allowed)
    async with rt.db.write() as tx:
        events: list[Event] = []
        if add:
            events.append(await _add_members(tx, user, group_id, add, rt.now()))
        if delete:
            events.append(await _remove_members(tx, user, group_id, delete, rt.now()))
        if add_subgroups:
            events.append(await _add_subgroups(tx, user, group_id, add_subgroups, rt.now()))
        if delete_subgroups:
            events.append(await _remove_subgroups(tx, user, group_id, delete_subgroups, rt.now()))
        await publish_to_active(rt, tx, events)


def _self_only(user: UserRow, user_ids: Sequence[int]) -> bool:
    return len(user_ids) == 1 and user_ids[0] == user.id


async def _access(
    tx: Tx, user: UserRow, group_id: int, settings: tuple[str, ...], now: int
) -> None:
    """Pass if any of `settings` (tried in order) lets `user` change the group."""
    for index, setting in enumerate(settings):
        try:
            await access_group_for_update(tx, user, group_id, setting, now, allow_deactivated=True)
            return
        except ZulipError:
            if index == len(settings) - 1:
                raise


async def _add_members(
    tx: Tx, user: UserRow, group_id: int, user_ids: Sequence[int], now: int
) -> Event:
    settings = ("can_join_group",) if _self_only(user, user_ids) else ()
    await _access(tx, user, group_id, (*settings, "can_add_members_group"), now)
    member_ids = await check_active_users(tx, user_ids)
    existing = set(await group_store.direct_member_ids(tx, group_id, active_only=False))
    for user_id in member_ids:
        if user_id in existing:
            raise ZulipError(f"User {user_id} is already a member of this group")
    await group_store.insert_members(tx, group_id, member_ids)
    return UserGroupAddMembersEvent(group_id=group_id, user_ids=member_ids)


async def _remove_members(
    tx: Tx, user: UserRow, group_id: int, user_ids: Sequence[int], now: int
) -> Event:
    member_ids = await check_active_users(tx, user_ids)
    settings = ("can_leave_group",) if _self_only(user, user_ids) else ()
    await _access(tx, user, group_id, (*settings, "can_remove_members_group"), now)
    existing = set(await group_store.direct_member_ids(tx, group_id))
    for user_id in member_ids:
        if user_id not in existing:
            raise ZulipError(f"There is no member '{user_id}' in this user group")
    await group_store.delete_members(tx, group_id, member_ids)
    return UserGroupRemoveMembersEvent(group_id=group_id, user_ids=member_ids)


async def _add_subgroups(
    tx: Tx, user: UserRow, group_id: int, subgroup_ids: Sequence[int], now: int
) -> Event:
    await _access(tx, user, group_id, ("can_add_members_group",), now)
    subgroups = [g.id for g in await check_subgroups_exist(tx, subgroup_ids)]
    existing = set((await group_store.subgroup_edges(tx)).get(group_id, []))
    for subgroup_id in subgroups:
        if subgroup_id in existing:
            raise ZulipError(f"User group {subgroup_id} is already a subgroup of this group.")
    if group_id in await group_store.recursive_subgroup_ids(tx, subgroups):
        raise ZulipError(
            f"User group {group_id} is already a subgroup of one of the passed subgroups."
        )
    await store.groups.insert_subgroups(tx, group_id, subgroups)
    return UserGroupAddSubgroupsEvent(group_id=group_id, direct_subgroup_ids=subgroups)


async def _remove_subgroups(
    tx: Tx, user: UserRow, group_id: int, subgroup_ids: Sequence[int], now: int
) -> Event:
    await _access(tx, user, group_id, ("can_manage_group",), now)
    subgroups = [g.id for g in await check_subgroups_exist(tx, subgroup_ids)]
    existing = set((await group_store.subgroup_edges(tx)).get(group_id, []))
    for subgroup_id in subgroups:
        if subgroup_id not in existing:
            raise ZulipError(f"User group {subgroup_id} is not a subgroup of this group.")
    await group_store.delete_subgroups(tx, group_id, subgroups)
    return UserGroupRemoveSubgroupsEvent(group_id=group_id, direct_subgroup_ids=subgroups)

"""User groups as clients see them: the `realm_user_groups` state, GET endpoints, membership.

System groups take their direct members from roles (active users only); named groups store
theirs. Changes to groups are in `actions.user_group_edit`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import msgspec

from teamchat import store
from teamchat.actions.org import group_settings
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import ZulipError
from teamchat.events.types_org import (
    UserGroupObject,
)
from teamchat.lib import system_groups as sg
from teamchat.lib.api_types import JsonDict
from teamchat.lib.group_permissions import USER_GROUP_PERMISSIONS
from teamchat.lib.realm_settings import GroupSettingValue
from teamchat.records import Role, UserGroupRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import user_groups as group_store
from teamchat.store.db import Conn


@dataclass(frozen=True)
class GroupsSnapshot:
    """Every group with its direct members and direct subgroups, read in one snapshot."""

    groups: list[UserGroupRow]
    members: Mapping[int, list[int]]
    subgroups: Mapping[int, list[int]]
    system_ids: Mapping[str, int]
    active_user_ids: frozenset[int]

    def by_id(self, group_id: int) -> UserGroupRow | None:
        """The group with `group_id`, if any."""
        return next((g for g in self.groups if g.id == group_id), None)


async def system_group_members(conn: Conn, now: int) -> dict[str, list[int]]:
    """System group name -> active users who are direct members through their role."""
    members, _window = await _system_group_members(conn, now)
    return members


async def _system_group_members(
    conn: Conn, now: int
) -> tuple[dict[str, list[int]], tuple[int, float]]:
    """The members, and the moments [from, until) between which they stay the same (a
    member becomes a full member when the waiting period has passed)."""
    threshold = await store.groups.waiting_period_days(conn)
    result: dict[str, list[int]] = {name: [] for name in sg.SYSTEM_GROUPS}
    since, until = -1, math.inf
    by_kind: dict[tuple[Role, bool], list[str]] = {}
    for user in await store.users.list_users(conn, is_active=True):
        full = sg.is_full_member(user.role, user.date_joined, now, threshold)
        if user.role == Role.MEMBER and threshold > 0:
            turns = user.date_joined + threshold * sg.SECS_PER_DAY  # full from this moment
            if full:
                since = max(since, turns)
            else:
                until = min(until, turns)
        names = by_kind.get((user.role, full))
        if names is None:
            names = by_kind[user.role, full] = sg.direct_group_for_role(
                user.role, is_full_member=full
            )
        for name in names:
            result[name].append(user.id)
    return result, (since, until)


_GROUP_TABLES = ("users", "realm", "user_group", "user_group_member", "user_group_subgroup")


async def load_groups(conn: Conn, now: int) -> GroupsSnapshot:
    """Read every group (deactivated too) with derived and stored direct members.

    Read snapshots share one result while the tables stay the same and no member's
    waiting period ends."""
    return (await _loaded_groups(conn, now)).snap


class _LoadedGroups:
    """A groups snapshot, the moments between which it holds, and its objects (built on
    first use: `realm_user_groups`)."""

    def __init__(self, snap: GroupsSnapshot, window: tuple[int, float]) -> None:
        self.snap, self.window = snap, window
        self._objects: list[tuple[bool, JsonDict]] | None = None

    def objects(self) -> list[tuple[bool, JsonDict]]:
        """(deactivated, group object) of every group, in id order; never change them."""
        if self._objects is None:
            self._objects = [
                (g.deactivated, msgspec.to_builtins(group_object(g, self.snap)))
                for g in self.snap.groups
            ]
        return self._objects


async def _loaded_groups(conn: Conn, now: int) -> _LoadedGroups:
    return await conn.memo(
        _GROUP_TABLES,
        "groups:snapshot",
        lambda c: _load_groups(c, now),
        fresh=lambda loaded: loaded.window[0] <= now < loaded.window[1],
    )


async def _load_groups(conn: Conn, now: int) -> _LoadedGroups:
    groups = await group_store.list_groups(conn)
    members: dict[int, list[int]] = await group_store.stored_members(conn)
    system_ids = {g.name: g.id for g in groups if g.is_system_group}
    by_role, window = await _system_group_members(conn, now)
    for name, user_ids in by_role.items():
        members[system_ids[name]] = user_ids
    snap = GroupsSnapshot(
        groups=groups,
        members=members,
        subgroups=await group_store.subgroup_edges(conn),
        system_ids=system_ids,
        active_user_ids=frozenset(await store.users.list_active_user_ids(conn)),
    )
    return _LoadedGroups(snap, window)


def stored_settings(group: UserGroupRow, system_ids: Mapping[str, int]) -> dict[str, object]:
    """A group's own permission settings (system groups: role:nobody for all).

    A setting missing from storage (a group written by other means) reads as its default
    system group, or role:nobody.
    """
    nobody = system_ids.get(sg.NOBODY)
    if group.is_system_group:
        return {name: nobody for name in USER_GROUP_PERMISSIONS}
    stored: dict[str, object] = msgspec.json.decode(group.settings_json or "{}")
    for name, config in USER_GROUP_PERMISSIONS.items():
        if name not in stored:
            stored[name] = system_ids.get(config.default_group_name, nobody)
    return stored


def group_object(group: UserGroupRow, snap: GroupsSnapshot) -> UserGroupObject:
    """The user group object of `realm_user_groups` and GET /user_groups."""
    settings = stored_settings(group, snap.system_ids)
    values: dict[str, GroupSettingValue] = {
        name: group_settings.api_value(
            settings[name],  # type: ignore[arg-type]
            snap.active_user_ids,
        )
        for name in USER_GROUP_PERMISSIONS
    }
    return UserGroupObject(
        id=group.id,
        name=group.name,
        description=group.description,
        members=sorted(snap.members.get(group.id, [])),
        direct_subgroup_ids=sorted(snap.subgroups.get(group.id, [])),
        creator_id=group.creator_id,
        date_created=group.date_created,
        is_system_group=group.is_system_group,
        deactivated=group.deactivated,
        **values,
    )


def require_member_or_admin(user: UserRow, *, bots_allowed: bool = False) -> None:
    """Zulip's `require_member_or_admin`: no guests, and no bots except where SPEC lets
    them in (`bots_allowed`: changing a group's members, from feature level 496)."""
    if user.is_guest:
        raise ZulipError("Not allowed for guest users")
    if user.is_bot and not bots_allowed:
        raise ZulipError("This endpoint does not accept bot requests.")


async def get_user_groups(
    rt: Runtime, user: UserRow, *, include_deactivated: bool
) -> list[UserGroupObject]:
    """GET /user_groups."""
    require_member_or_admin(user)
    async with rt.db.read() as conn:
        snap = await load_groups(conn, rt.now())
    return [group_object(g, snap) for g in snap.groups if include_deactivated or not g.deactivated]


async def access_group_to_read(conn: Conn, group_id: int) -> UserGroupRow:
    """A group whose membership may be read, or Zulip's error."""
    group = await group_store.get_group(conn, group_id)
    if group is None:
        raise ZulipError("Invalid user group")
    if group.deactivated:
        raise ZulipError("User group is deactivated.")
    return group


async def get_group_members(
    rt: Runtime, user: UserRow, group_id: int, *, direct_only: bool
) -> list[int]:
    """GET /user_groups/{id}/members: direct members, or everyone through subgroups too."""
    require_member_or_admin(user)
    async with rt.db.read() as conn:
        await access_group_to_read(conn, group_id)
        snap = await load_groups(conn, rt.now())
        reach = [group_id]
        if not direct_only:
            reach = sorted(await group_store.recursive_subgroup_ids(conn, [group_id]))
    return sorted({m for g in reach for m in snap.members.get(g, [])})


async def is_group_member(
    rt: Runtime, user: UserRow, group_id: int, user_id: int, *, direct_only: bool
) -> bool:
    """GET /user_groups/{id}/members/{user_id}."""
    require_member_or_admin(user)
    async with rt.db.read() as conn:
        await access_group_to_read(conn, group_id)
        if await store.users.get_user_by_id(conn, user_id) is None:
            raise ZulipError("No such user")
    return user_id in await get_group_members(rt, user, group_id, direct_only=direct_only)


async def get_subgroups(
    rt: Runtime, user: UserRow, group_id: int, *, direct_only: bool
) -> list[int]:
    """GET /user_groups/{id}/subgroups (the group itself is never listed)."""
    require_member_or_admin(user)
    async with rt.db.read() as conn:
        await access_group_to_read(conn, group_id)
        if direct_only:
            return (await group_store.subgroup_edges(conn)).get(group_id, [])
        edges = (await group_store.subgroup_edges(conn)).get(group_id, [])
        return sorted(await group_store.recursive_subgroup_ids(conn, edges))


@state_fetcher("realm_user_groups")
async def _user_groups_state(ctx: StateContext) -> None:
    loaded = await _loaded_groups(ctx.conn, ctx.rt.now())
    include_deactivated = ctx.caps.include_deactivated_groups
    ctx.state["realm_user_groups"] = [
        obj for deactivated, obj in loaded.objects() if include_deactivated or not deactivated
    ]

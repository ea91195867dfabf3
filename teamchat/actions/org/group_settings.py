"""Group-setting values: validating new values and showing stored ones (realm and user groups).

A value is a group id or an anonymous group `{"direct_members": [...], "direct_subgroups":
[...]}`, stored as given after canonicalization (Zulip's `parse_group_setting_value`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import msgspec

from teamchat import store
from teamchat.errors import (
    PreviousSettingValueMismatchedError,
    SystemGroupRequiredError,
    ZulipError,
)
from teamchat.lib import system_groups as sg
from teamchat.lib.group_permissions import GroupPermission
from teamchat.lib.realm_settings import GroupSettingValue
from teamchat.store import user_groups as group_store
from teamchat.store.db import Conn


class GroupSettingChange(msgspec.Struct, frozen=True, kw_only=True):
    """A requested change: the new value and, optionally, the value the client expects now."""

    new: GroupSettingValue
    old: GroupSettingValue | None = None


def decode_value(name: str, raw: object) -> GroupSettingValue:
    """Check the JSON shape of a group-setting value."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, dict) and set(raw) == {"direct_members", "direct_subgroups"}:
        lists = [raw["direct_members"], raw["direct_subgroups"]]
        if all(isinstance(ids, list) for ids in lists) and all(
            isinstance(i, int) and not isinstance(i, bool) for ids in lists for i in ids
        ):
            return {"direct_members": list(lists[0]), "direct_subgroups": list(lists[1])}
    raise ZulipError(f"{name} is not a valid group-setting value")


def decode_change(name: str, raw: object) -> GroupSettingChange:
    """Check the JSON shape of `{"new": value, "old": value}` (old optional)."""
    if not isinstance(raw, dict) or "new" not in raw or set(raw) - {"new", "old"}:
        raise ZulipError(f"{name} is not a valid group-setting change")
    old = raw.get("old")
    return GroupSettingChange(
        new=decode_value(f"{name}.new", raw["new"]),
        old=decode_value(f"{name}.old", old) if old is not None else None,
    )


def canonical(value: GroupSettingValue, nobody_id: int) -> GroupSettingValue:
    """An anonymous group of one subgroup is that group; an empty one is role:nobody."""
    if isinstance(value, int):
        return value
    members, subgroups = value["direct_members"], value["direct_subgroups"]
    if not members and len(subgroups) == 1:
        return subgroups[0]
    if not members and not subgroups:
        return nobody_id
    return {"direct_members": sorted(set(members)), "direct_subgroups": sorted(set(subgroups))}


def same_value(first: GroupSettingValue, second: GroupSettingValue) -> bool:
    """Whether two group-setting values name the same users and groups."""
    if isinstance(first, int) or isinstance(second, int):
        return first == second
    return set(first["direct_members"]) == set(second["direct_members"]) and set(
        first["direct_subgroups"]
    ) == set(second["direct_subgroups"])


def api_value(value: GroupSettingValue, active_user_ids: Collection[int]) -> GroupSettingValue:
    """A stored value as the API shows it: deactivated users left out."""
    if isinstance(value, int):
        return value
    return {
        "direct_members": sorted(i for i in value["direct_members"] if i in active_user_ids),
        "direct_subgroups": sorted(value["direct_subgroups"]),
    }


async def access_group_for_setting(
    conn: Conn, group_id: int, setting_name: str, config: GroupPermission
) -> None:
    """A group may be the value (or a subgroup of the value) of setting `setting_name`."""
    group = await group_store.get_group(conn, group_id)
    if group is None:
        raise ZulipError("Invalid user group")
    if group.deactivated:
        raise ZulipError("User group is deactivated.")
    if not group.is_system_group:
        if config.require_system_group:
            raise SystemGroupRequiredError(setting_name)
        return
    forbidden = {
        sg.INTERNET: not config.allow_internet_group,
        sg.NOBODY: not config.allow_nobody_group,
        sg.EVERYONE: not config.allow_everyone_group,
    }
    allowed = config.allowed_system_groups
    if forbidden.get(group.name, False) or (allowed and group.name not in allowed):
        raise ZulipError(f"'{setting_name}' setting cannot be set to '{group.name}' group.")


async def check_new_value(
    conn: Conn, value: GroupSettingValue, setting_name: str, config: GroupPermission
) -> GroupSettingValue:
    """Validate a new value (already canonical); return what to store."""
    if isinstance(value, int):
        await access_group_for_setting(conn, value, setting_name, config)
        return value
    if config.require_system_group:
        raise SystemGroupRequiredError(setting_name)
    active = set(await store.users.list_active_user_ids(conn))
    for user_id in value["direct_members"]:
        if user_id not in active:
            raise ZulipError(f"Invalid user ID: {user_id}")
    for group_id in value["direct_subgroups"]:
        group = await group_store.get_group(conn, group_id)
        if group is None:
            raise ZulipError(f"Invalid user group ID: {group_id}")
        if group.deactivated:
            raise ZulipError("User group is deactivated.")
    return value


async def check_change(
    conn: Conn,
    change: GroupSettingChange,
    current: GroupSettingValue,
    setting_name: str,
    config: GroupPermission,
    system_ids: Mapping[str, int],
) -> GroupSettingValue | None:
    """The value to store for a requested change, or None when nothing changes.

    Raises EXPECTATION_MISMATCH when `old` was given and differs from the current value.
    """
    nobody = system_ids[sg.NOBODY]
    active = set(await store.users.list_active_user_ids(conn))
    current_api = api_value(current, active)
    if change.old is not None and not same_value(canonical(change.old, nobody), current_api):
        raise PreviousSettingValueMismatchedError()
    new = canonical(change.new, nobody)
    if same_value(new, current_api):
        return None
    return await check_new_value(conn, new, setting_name, config)

"""User groups: GET/POST /user_groups..., members, subgroups, deactivation."""

from __future__ import annotations

from teamchat.actions.org import group_settings, user_group_edit, user_group_members, user_groups
from teamchat.http.params import Params, as_bool, as_int_list, as_json, as_str, at_most
from teamchat.http.routing import get, patch, post
from teamchat.lib import limits
from teamchat.lib.api_types import JsonDict
from teamchat.lib.group_permissions import USER_GROUP_PERMISSIONS
from teamchat.lib.realm_settings import GroupSettingValue
from teamchat.records import UserRow
from teamchat.runtime import Runtime


def as_group_setting_value(name: str, raw: str) -> GroupSettingValue:
    return group_settings.decode_value(name, as_json(name, raw))


def as_group_setting_change(name: str, raw: str) -> group_settings.GroupSettingChange:
    return group_settings.decode_change(name, as_json(name, raw))


@get("/user_groups")
async def get_user_groups(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    include = params.first_of(("include_deactivated_groups", "allow_deactivated"), as_bool, False)
    groups = await user_groups.get_user_groups(rt, user, include_deactivated=include)
    return params.success(user_groups=groups)


# Users or subgroups named in one request (see lib/limits.py).
_users = at_most(limits.MAX_USERS_PER_REQUEST, as_int_list)


@post("/user_groups/create")
async def create_user_group(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    name = params.required("name", as_str)
    description = params.required("description", as_str)
    members = params.required("members", _users)
    subgroups: list[int] = params.optional("subgroups", _users, [])
    settings = {
        setting: params.required(setting, as_group_setting_value)
        for setting in USER_GROUP_PERMISSIONS
        if params.has(setting)
    }
    group_id = await user_group_edit.do_create_user_group(
        rt,
        user,
        name=name,
        description=description,
        members=members,
        subgroups=subgroups,
        settings=settings,
    )
    return params.success(group_id=group_id)


@patch("/user_groups/{user_group_id:int}")
async def update_user_group(
    user_group_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    settings = {
        setting: params.required(setting, as_group_setting_change)
        for setting in USER_GROUP_PERMISSIONS
        if params.has(setting)
    }
    await user_group_edit.do_update_user_group(
        rt,
        user,
        user_group_id,
        name=params.optional("name", as_str, None),
        description=params.optional("description", as_str, None),
        deactivated=params.optional("deactivated", as_bool, None),
        settings=settings,
    )
    return params.success()


@post("/user_groups/{user_group_id:int}/members")
async def update_user_group_members(
    user_group_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await user_group_members.do_update_user_group_members(
        rt,
        user,
        user_group_id,
        add=params.optional("add", _users, []),
        delete=params.optional("delete", _users, []),
        add_subgroups=params.optional("add_subgroups", _users, []),
        delete_subgroups=params.optional("delete_subgroups", _users, []),
        bots_allowed=True,  # SPEC: bots may call this from feature level 496
    )
    return params.success()


@post("/user_groups/{user_group_id:int}/subgroups")
async def update_user_group_subgroups(
    user_group_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await user_group_members.do_update_user_group_members(
        rt,
        user,
        user_group_id,
        add_subgroups=params.optional("add", _users, []),
        delete_subgroups=params.optional("delete", _users, []),
        nothing_to_do='Nothing to do. Specify at least one of "add" or "delete".',
    )
    return params.success()


@get("/user_groups/{user_group_id:int}/members")
async def get_user_group_members(
    user_group_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    direct = params.optional("direct_member_only", as_bool, False)
    members = await user_groups.get_group_members(rt, user, user_group_id, direct_only=direct)
    return params.success(members=members)


@get("/user_groups/{user_group_id:int}/members/{user_id:int}")
async def get_is_user_group_member(
    user_group_id: int, user_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    direct = params.optional("direct_member_only", as_bool, False)
    member = await user_groups.is_group_member(rt, user, user_group_id, user_id, direct_only=direct)
    return params.success(is_user_group_member=member)


@get("/user_groups/{user_group_id:int}/subgroups")
async def get_user_group_subgroups(
    user_group_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    direct = params.optional("direct_subgroup_only", as_bool, False)
    subgroups = await user_groups.get_subgroups(rt, user, user_group_id, direct_only=direct)
    return params.success(subgroups=subgroups)


@post("/user_groups/{user_group_id:int}/deactivate")
async def deactivate_user_group(
    user_group_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await user_group_edit.do_deactivate_user_group(rt, user, user_group_id)
    return params.success()

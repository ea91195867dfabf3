"""Events of organization administration: realm settings, user groups, channel folders,
linkifiers, code playgrounds, invitations and default channels.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from teamchat.events.queue import ACCEPT_RULES, SHAPERS, EventQueue
from teamchat.events.types import Event, JsonDict, register_event_types

# A group-setting value on the wire: a group id or {"direct_members", "direct_subgroups"}.
GroupSettingWire = int | dict[str, list[int]]
RealmValue = str | bool | int | None


class RealmUpdateEvent(Event, tag="realm", kw_only=True):
    op: Literal["update"] = "update"
    property: str
    value: RealmValue


class RealmDeactivatedEvent(Event, tag="realm", kw_only=True):
    op: Literal["deactivated"] = "deactivated"
    realm_id: int


class RealmUpdateDictEvent(Event, tag="realm", kw_only=True):
    op: Literal["update_dict"] = "update_dict"
    property: Literal["default"] = "default"
    data: JsonDict


class UserGroupObject(msgspec.Struct, kw_only=True):
    id: int
    name: str
    description: str
    members: list[int]
    direct_subgroup_ids: list[int]
    creator_id: int | None
    date_created: int | None
    is_system_group: bool
    deactivated: bool
    can_add_members_group: GroupSettingWire
    can_join_group: GroupSettingWire
    can_leave_group: GroupSettingWire
    can_manage_group: GroupSettingWire
    can_mention_group: GroupSettingWire
    can_remove_members_group: GroupSettingWire


class UserGroupAddEvent(Event, tag="user_group", kw_only=True):
    op: Literal["add"] = "add"
    group: UserGroupObject


class UserGroupUpdateEvent(Event, tag="user_group", kw_only=True):
    op: Literal["update"] = "update"
    group_id: int
    data: JsonDict


class UserGroupAddMembersEvent(Event, tag="user_group", kw_only=True):
    op: Literal["add_members"] = "add_members"
    group_id: int
    user_ids: list[int]


class UserGroupRemoveMembersEvent(Event, tag="user_group", kw_only=True):
    op: Literal["remove_members"] = "remove_members"
    group_id: int
    user_ids: list[int]


class UserGroupAddSubgroupsEvent(Event, tag="user_group", kw_only=True):
    op: Literal["add_subgroups"] = "add_subgroups"
    group_id: int
    direct_subgroup_ids: list[int]


class UserGroupRemoveSubgroupsEvent(Event, tag="user_group", kw_only=True):
    op: Literal["remove_subgroups"] = "remove_subgroups"
    group_id: int
    direct_subgroup_ids: list[int]


class UserGroupRemoveEvent(Event, tag="user_group", kw_only=True):
    op: Literal["remove"] = "remove"
    group_id: int


class ChannelFolderObject(msgspec.Struct, kw_only=True):
    id: int
    name: str
    description: str
    rendered_description: str
    order: int
    date_created: int | None
    creator_id: int | None
    is_archived: bool


class ChannelFolderAddEvent(Event, tag="channel_folder", kw_only=True):
    op: Literal["add"] = "add"
    channel_folder: ChannelFolderObject


class ChannelFolderUpdateEvent(Event, tag="channel_folder", kw_only=True):
    op: Literal["update"] = "update"
    channel_folder_id: int
    data: JsonDict


class ChannelFolderReorderEvent(Event, tag="channel_folder", kw_only=True):
    op: Literal["reorder"] = "reorder"
    order: list[int]


class LinkifierObject(msgspec.Struct, kw_only=True):
    id: int
    pattern: str
    url_template: str


class RealmLinkifiersEvent(Event, tag="realm_linkifiers", kw_only=True):
    realm_linkifiers: list[LinkifierObject]


class RealmFiltersEvent(Event, tag="realm_filters", kw_only=True):
    realm_filters: list[list[str | int]]


class PlaygroundObject(msgspec.Struct, kw_only=True):
    id: int
    name: str
    pygments_language: str
    url_template: str


class RealmPlaygroundsEvent(Event, tag="realm_playgrounds", kw_only=True):
    realm_playgrounds: list[PlaygroundObject]


class InvitesChangedEvent(Event, tag="invites_changed", kw_only=True):
    pass


class DefaultStreamsEvent(Event, tag="default_streams", kw_only=True):
    default_streams: list[int]


register_event_types(
    RealmUpdateEvent,
    RealmUpdateDictEvent,
    RealmDeactivatedEvent,
    UserGroupAddEvent,
    UserGroupUpdateEvent,
    UserGroupAddMembersEvent,
    UserGroupRemoveMembersEvent,
    UserGroupAddSubgroupsEvent,
    UserGroupRemoveSubgroupsEvent,
    UserGroupRemoveEvent,
    ChannelFolderAddEvent,
    ChannelFolderUpdateEvent,
    ChannelFolderReorderEvent,
    RealmLinkifiersEvent,
    RealmFiltersEvent,
    RealmPlaygroundsEvent,
    InvitesChangedEvent,
    DefaultStreamsEvent,
)


# zulip-compat: clients without the `include_deactivated_groups` capability never see
# deactivated groups: deactivation reaches them as user_group/remove, reactivation as
# user_group/add (actions publish both variants, marked with these keys).
LEGACY_ONLY = "_legacy_clients_only"
MODERN_ONLY = "_deactivated_groups_clients_only"


def _accept_user_group(queue: EventQueue, event: JsonDict) -> bool:
    if queue.caps.include_deactivated_groups:
        return LEGACY_ONLY not in event
    return MODERN_ONLY not in event


def _shape_user_group(queue: EventQueue, event: JsonDict) -> JsonDict:
    shaped = {k: v for k, v in event.items() if k not in (LEGACY_ONLY, MODERN_ONLY)}
    data = shaped.get("data")
    if (
        not queue.caps.include_deactivated_groups
        and shaped.get("op") == "update"
        and isinstance(data, dict)
        and data.get("deactivated") is True
    ):
        return {"type": "user_group", "op": "remove", "group_id": shaped["group_id"]}
    return shaped


ACCEPT_RULES["user_group"] = _accept_user_group
# zulip-compat: realm_linkifiers events reach only clients that declared linkifier_url_template.
ACCEPT_RULES["realm_linkifiers"] = lambda queue, event: queue.caps.linkifier_url_template
SHAPERS["user_group"] = _shape_user_group

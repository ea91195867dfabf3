"""Which groups each group-valued permission setting may hold (Zulip's GroupPermissionSetting).

Pure data: realm, user-group and channel settings, and the `server_supported_permission_settings`
shape of POST /register.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from teamchat.lib import system_groups as sg
from teamchat.lib.channels import CHANNEL_GROUP_SETTING_DEFAULTS
from teamchat.lib.channels import CREATOR as CHANNEL_CREATOR
from teamchat.lib.realm_settings import GROUP_SETTING_DEFAULTS

# A user group's own default "group_creator": an anonymous group holding just its creator.
GROUP_CREATOR = "group_creator"


class GroupPermission(msgspec.Struct, frozen=True, kw_only=True):
    """Where a permission setting may point, and its defaults."""

    require_system_group: bool = False
    allow_internet_group: bool = False
    allow_nobody_group: bool = True
    allow_everyone_group: bool = False
    default_group_name: str
    default_for_system_groups: str | None = None
    allowed_system_groups: list[str] = msgspec.field(default_factory=list)


def _realm(name: str, **overrides: object) -> GroupPermission:
    return GroupPermission(default_group_name=GROUP_SETTING_DEFAULTS[name], **overrides)  # type: ignore[arg-type]


_EVERYONE_OK = {
    "can_delete_own_message_group",
    "can_mention_many_users_group",
    "can_move_messages_between_topics_group",
    "can_resolve_topics_group",
    "can_set_topics_policy_group",
    "can_summarize_topics_group",
    "direct_message_initiator_group",
    "direct_message_permission_group",
}

REALM_PERMISSIONS: Mapping[str, GroupPermission] = {
    name: _realm(name, allow_everyone_group=name in _EVERYONE_OK) for name in GROUP_SETTING_DEFAULTS
} | {
    "can_access_all_users_group": _realm(
        "can_access_all_users_group",
        require_system_group=True,
        allow_nobody_group=False,
        allow_everyone_group=True,
        allowed_system_groups=[sg.EVERYONE, sg.MEMBERS],
    ),
    "can_create_web_public_channel_group": _realm(
        "can_create_web_public_channel_group",
        require_system_group=True,
        allowed_system_groups=[sg.MODERATORS, sg.ADMINISTRATORS, sg.OWNERS, sg.NOBODY],
    ),
    "can_manage_all_groups": _realm("can_manage_all_groups", allow_nobody_group=False),
    "can_manage_billing_group": _realm("can_manage_billing_group", allow_nobody_group=False),
}

USER_GROUP_PERMISSIONS: Mapping[str, GroupPermission] = {
    "can_add_members_group": GroupPermission(
        default_group_name=GROUP_CREATOR, default_for_system_groups=sg.NOBODY
    ),
    "can_join_group": GroupPermission(
        default_group_name=sg.NOBODY, default_for_system_groups=sg.NOBODY
    ),
    "can_leave_group": GroupPermission(
        allow_everyone_group=True,
        default_group_name=sg.EVERYONE,
        default_for_system_groups=sg.NOBODY,
    ),
    "can_manage_group": GroupPermission(
        default_group_name=GROUP_CREATOR, default_for_system_groups=sg.NOBODY
    ),
    "can_mention_group": GroupPermission(
        allow_everyone_group=True,
        default_group_name=sg.EVERYONE,
        default_for_system_groups=sg.NOBODY,
    ),
    "can_remove_members_group": GroupPermission(
        default_group_name=sg.NOBODY, default_for_system_groups=sg.NOBODY
    ),
}

# Zulip's Stream.stream_permission_group_settings, for the channel settings we have.
_STREAM_EVERYONE_NOT_ALLOWED = {
    "can_add_subscribers_group",
    "can_administer_channel_group",
    "can_subscribe_group",
}
STREAM_PERMISSIONS: Mapping[str, GroupPermission] = {
    name: GroupPermission(
        allow_everyone_group=name not in _STREAM_EVERYONE_NOT_ALLOWED,
        default_group_name="channel_creator" if default == CHANNEL_CREATOR else default,
    )
    for name, default in CHANNEL_GROUP_SETTING_DEFAULTS.items()
}

# kind ("realm", "group", "stream") -> setting name -> configuration.
SUPPORTED: dict[str, Mapping[str, GroupPermission]] = {
    "realm": REALM_PERMISSIONS,
    "stream": STREAM_PERMISSIONS,
    "group": USER_GROUP_PERMISSIONS,
}

# zulip-compat: `realm_wildcard_mention_policy` is derived from can_mention_many_users_group
# (the mobile app still requires it); any other value reads as 1 ("everyone"), as in Zulip.
WILDCARD_MENTION_POLICY = {
    sg.EVERYONE: 1,
    sg.MEMBERS: 2,
    sg.FULL_MEMBERS: 3,
    sg.ADMINISTRATORS: 5,
    sg.NOBODY: 6,
    sg.MODERATORS: 7,
}
# zulip-compat: the legacy channel-creation policies, derived the same way; other values read
# as the largest group the old enum allowed (members, or moderators for web-public).
COMMON_POLICY = {sg.MEMBERS: 1, sg.ADMINISTRATORS: 2, sg.FULL_MEMBERS: 3, sg.MODERATORS: 4}
WEB_PUBLIC_POLICY = {sg.ADMINISTRATORS: 2, sg.MODERATORS: 4, sg.NOBODY: 6, sg.OWNERS: 7}


def supported_settings_json() -> dict[str, dict[str, object]]:
    """`server_supported_permission_settings` for POST /register."""
    return {
        kind: {name: msgspec.to_builtins(config) for name, config in settings.items()}
        for kind, settings in SUPPORTED.items()
    }


def legacy_policy(setting: str, system_group_name: str | None) -> int:
    """The pre-group enum value Zulip still sends for a few settings (None: not a system group)."""
    if setting == "can_mention_many_users_group":
        return WILDCARD_MENTION_POLICY.get(system_group_name or "", 1)
    if setting == "can_create_web_public_channel_group":
        return WEB_PUBLIC_POLICY.get(system_group_name or "", 4)
    return COMMON_POLICY.get(system_group_name or "", 1)

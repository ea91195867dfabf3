"""PATCH /realm: changing organization settings and permission groups; `realm` events.

Properties are validated by `lib.realm_properties`; group-valued settings by
`actions.group_settings`. One transaction, one event per changed setting, to every active
user (Zulip's do_set_realm_property / do_change_realm_permission_group_setting).
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from teamchat import store
from teamchat.actions.channels.channel_access import access_stream_by_id
from teamchat.actions.messages.message_common import render
from teamchat.actions.org import group_settings, permissions
from teamchat.actions.org.user_group_edit import publish_to_active
from teamchat.actions.org.user_groups import system_group_members
from teamchat.actions.people import guest_access
from teamchat.errors import OrganizationOwnerRequiredError, ZulipError
from teamchat.events.types import Event
from teamchat.events.types_org import (
    RealmUpdateDictEvent,
    RealmUpdateEvent,
    UserGroupAddMembersEvent,
    UserGroupRemoveMembersEvent,
)
from teamchat.lib import realm_properties as props
from teamchat.lib import realm_settings
from teamchat.lib import system_groups as sg
from teamchat.lib.group_permissions import REALM_PERMISSIONS, legacy_policy
from teamchat.records import RealmRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store.db import Tx

# zulip-compat: these settings are announced as realm/update_dict for historical reasons.
UPDATE_DICT_PROPERTIES = frozenset({"allow_message_editing", "message_content_edit_limit_seconds"})
AUTHENTICATION_METHODS = ("Email",)


def is_setting(name: str) -> bool:
    """Whether PATCH /realm takes a parameter `name`."""
    return props.is_property(name) or name in REALM_PERMISSIONS or name == "authentication_methods"


def decode(name: str, raw: str) -> object:
    """A request value for setting `name` (JSON unless the setting is a plain string)."""
    return props.decode(name, raw)


async def check_update_realm(
    rt: Runtime, user: UserRow, changes: Mapping[str, object]
) -> dict[str, object]:
    """Validate and apply `changes` (setting name -> decoded value); return what changed.

    The result maps each changed setting to its new value ("updated" for strings), as
    Zulip's PATCH /realm response does.
    """
    permissions.require_realm_admin(user)
    if any(name in props.OWNER_ONLY for name in changes) and not user.is_owner:
        raise OrganizationOwnerRequiredError()
    for name in changes:
        if not is_setting(name):
            raise ZulipError(f"Invalid property {name}")
    values = {n: props.check_value(n, v) for n, v in changes.items() if props.is_property(n)}
    groups = {
        n: group_settings.decode_change(n, v) for n, v in changes.items() if n in REALM_PERMISSIONS
    }
    if "authentication_methods" in changes:
        _check_authentication_methods(changes["authentication_methods"])
    if "allow_edit_history" in values:
        # zulip-compat: the old boolean maps onto the visibility policy.
        allowed = values.pop("allow_edit_history")
        values.setdefault("message_edit_history_visibility_policy", "all" if allowed else "none")
    rendered = None
    if isinstance(values.get("description"), str):
        rendered = await render_realm_description(rt, user, values["description"])  # type: ignore[arg-type]
    return await do_update_realm(rt, user, values, groups, rendered_description=rendered)


async def render_realm_description(rt: Runtime, user: UserRow, description: str) -> str:
    """The organization description as sanitized HTML (Zulip-flavoured Markdown)."""
    if not description:
        return ""
    async with rt.db.read() as conn:
        return (await render(conn, user, description, "")).html


async def _access_channel(tx: Tx, user: UserRow, stream_id: int) -> None:
    """A channel-valued setting names a channel the administrator can see (Zulip's
    access_stream_by_id with require_content_access=False)."""
    stream, _ = await access_stream_by_id(tx, user, stream_id, content=False)
    if stream.is_archived:
        raise ZulipError("Invalid channel ID")


def _check_authentication_methods(value: object) -> None:
    if not isinstance(value, dict):
        raise ZulipError("authentication_methods is not a dict")
    for name in value:
        if name not in AUTHENTICATION_METHODS:
            raise ZulipError(
                f"Invalid authentication method: {name}. "
                f"Valid methods are: {sorted(AUTHENTICATION_METHODS)}"
            )
    if True not in value.values():
        raise ZulipError("At least one authentication method must be enabled.")


def current_value(realm: RealmRow, settings: realm_settings.RealmSettings, name: str) -> object:
    """The value a realm property has now (name and description are columns)."""
    if name in ("name", "description"):
        return getattr(realm, name)
    return getattr(settings, name)


def property_event(name: str, value: object) -> Event:
    """The realm event Zulip sends when property `name` changes to `value`."""
    if name in UPDATE_DICT_PROPERTIES:
        return RealmUpdateDictEvent(data={name: value})
    if name == "topics_policy":
        return RealmUpdateDictEvent(
            data={name: value, "mandatory_topics": value == "disable_empty_topic"}
        )
    return RealmUpdateEvent(property=name, value=value)  # type: ignore[arg-type]


async def do_update_realm(
    rt: Runtime,
    user: UserRow,
    values: Mapping[str, object],
    groups: Mapping[str, group_settings.GroupSettingChange],
    *,
    rendered_description: str | None = None,
) -> dict[str, object]:
    """Store every changed value in one transaction and announce each change.

    A new `description` comes with its `rendered_description` (rendered before the write).
    """
    now = rt.now()
    async with rt.db.write() as tx:
        realm = await store.realm.get_realm(tx)
        assert realm is not None
        stored: dict[str, object] = msgspec.json.decode(realm.settings_json or "{}")
        settings = realm_settings.load(realm.settings_json)
        full_before = (await system_group_members(tx, now))[sg.FULL_MEMBERS]
        guests = guest_access.GuestAccess(before={})
        if "can_access_all_users_group" in groups:
            guests = await guest_access.snapshot_all_guests(tx)
        data: dict[str, object] = {}
        events: list[Event] = []
        columns = {
            "name": realm.name,
            "description": realm.description,
            "rendered_description": realm.rendered_description,
        }
        for name, value in values.items():
            if value == current_value(realm, settings, name):
                continue
            if name in props.CHANNEL_PROPERTIES and value != -1:
                await _access_channel(tx, user, value)  # type: ignore[arg-type]
            if name in columns:
                columns[name] = value  # type: ignore[assignment]
            else:
                stored[name] = value
                if name == "topics_policy":
                    stored["mandatory_topics"] = value == "disable_empty_topic"
            data[name] = "updated" if isinstance(value, str) else value
            if name == "description":
                # zulip-compat: register's realm_description is the rendered HTML (SPEC), so
                # the event carries that form too: applying it reaches the fetched state.
                assert rendered_description is not None
                columns["rendered_description"] = value = rendered_description
            events.append(property_event(name, value))
        events += await _change_groups(tx, realm, groups, stored, data)
        await store.realm.update_settings_json(tx, realm.id, msgspec.json.encode(stored).decode())
        await store.realm.update_name_description(tx, realm.id, **columns)
        events += await _full_member_events(tx, full_before, now)
        await publish_to_active(rt, tx, events)
        # Guests see people come and go as `can_access_all_users_group` changes.
        await guest_access.publish_changes(rt, tx, guests)
    return data


async def _change_groups(
    tx: Tx,
    realm: RealmRow,
    changes: Mapping[str, group_settings.GroupSettingChange],
    stored: dict[str, object],
    data: dict[str, object],
) -> list[Event]:
    system_ids = await store.groups.system_group_ids(tx)
    current = await permissions.realm_group_settings(tx, realm)
    active = set(await store.users.list_active_user_ids(tx))
    events: list[Event] = []
    for name, change in changes.items():
        new = await group_settings.check_change(
            tx, change, current[name], name, REALM_PERMISSIONS[name], system_ids
        )
        if new is None:
            continue
        old_legacy = _legacy_policy(name, current[name], system_ids)
        stored[name] = new
        shown = group_settings.api_value(new, active)
        data[name] = shown
        events.append(RealmUpdateDictEvent(data={name: shown}))
        new_legacy = _legacy_policy(name, new, system_ids)
        if new_legacy is not None and new_legacy != old_legacy:
            events.append(RealmUpdateEvent(property=new_legacy[0], value=new_legacy[1]))
    return events


# zulip-compat: enum settings that group settings replaced; clients still read these.
LEGACY_POLICY_PROPERTIES = {
    "can_mention_many_users_group": "wildcard_mention_policy",
    "can_create_public_channel_group": "create_public_stream_policy",
    "can_create_private_channel_group": "create_private_stream_policy",
    "can_create_web_public_channel_group": "create_web_public_stream_policy",
}


def _legacy_policy(
    setting: str, value: object, system_ids: Mapping[str, int]
) -> tuple[str, int] | None:
    """(legacy property, value) derived from a group setting, or None if there is none."""
    if setting not in LEGACY_POLICY_PROPERTIES:
        return None
    names = {group_id: name for name, group_id in system_ids.items()}
    group_name = names.get(value) if isinstance(value, int) else None
    return LEGACY_POLICY_PROPERTIES[setting], legacy_policy(setting, group_name)


async def _full_member_events(tx: Tx, before: list[int], now: int) -> list[Event]:
    """role:fullmembers membership changes after the waiting period setting changed."""
    after = (await system_group_members(tx, now))[sg.FULL_MEMBERS]
    group_id = (await store.groups.system_group_ids(tx))[sg.FULL_MEMBERS]
    events: list[Event] = []
    removed = sorted(set(before) - set(after))
    added = sorted(set(after) - set(before))
    if removed:
        events.append(UserGroupRemoveMembersEvent(group_id=group_id, user_ids=removed))
    if added:
        events.append(UserGroupAddMembersEvent(group_id=group_id, user_ids=added))
    return events

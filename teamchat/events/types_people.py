"""Event Structs for people: settings, realm defaults, custom profile fields, presence,
user status, alert words, muted users, and the bot `delete` op. No SQLite, no awaiting.
"""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

from teamchat.events.types import Event, register_event_types

SettingValue = bool | int | str


class UserSettingsUpdateEvent(Event, tag="user_settings", kw_only=True):
    op: Literal["update"] = "update"
    property: str
    value: SettingValue
    language_name: str | UnsetType = UNSET


class UpdateDisplaySettingsEvent(Event, tag="update_display_settings", kw_only=True):
    user: str
    setting_name: str
    setting: SettingValue
    language_name: str | UnsetType = UNSET


class UpdateGlobalNotificationsEvent(Event, tag="update_global_notifications", kw_only=True):
    user: str
    notification_name: str
    setting: SettingValue


class RealmUserSettingsDefaultsEvent(Event, tag="realm_user_settings_defaults", kw_only=True):
    op: Literal["update"] = "update"
    property: str
    value: SettingValue


class CustomProfileFieldObject(msgspec.Struct, kw_only=True):
    id: int
    name: str
    type: int
    hint: str
    field_data: str
    order: int
    required: bool
    editable_by_user: bool
    display_in_profile_summary: bool | UnsetType = UNSET
    use_for_user_matching: bool | UnsetType = UNSET


class CustomProfileFieldsEvent(Event, tag="custom_profile_fields", kw_only=True):
    fields: list[CustomProfileFieldObject]


class LegacyPresence(msgspec.Struct, kw_only=True):
    client: str
    status: Literal["active", "idle"]
    timestamp: int
    pushable: bool


class ModernPresence(msgspec.Struct, kw_only=True):
    active_timestamp: int
    idle_timestamp: int


class PresenceEvent(Event, tag="presence", kw_only=True):
    """Published with both formats; each queue's copy keeps the one its client declared.

    Clients with `simplified_presence_events` get `presences` alone; the others get the
    legacy fields alone (see events/rules_people.py).
    """

    user_id: int | UnsetType = UNSET
    email: str | UnsetType = UNSET
    server_timestamp: float | UnsetType = UNSET
    presence: dict[str, LegacyPresence] | UnsetType = UNSET
    presences: dict[str, ModernPresence] | UnsetType = UNSET


class UserStatusEvent(Event, tag="user_status", kw_only=True):
    user_id: int
    away: bool | UnsetType = UNSET
    status_text: str | UnsetType = UNSET
    emoji_name: str | UnsetType = UNSET
    emoji_code: str | UnsetType = UNSET
    reaction_type: str | UnsetType = UNSET


class AlertWordsEvent(Event, tag="alert_words", kw_only=True):
    alert_words: list[str]


class MutedUserObject(msgspec.Struct, kw_only=True):
    id: int
    timestamp: int


class MutedUsersEvent(Event, tag="muted_users", kw_only=True):
    muted_users: list[MutedUserObject]


class RealmBotDeleteEvent(Event, tag="realm_bot", kw_only=True):
    op: Literal["delete"] = "delete"
    bot: dict[str, int]


register_event_types(
    UserSettingsUpdateEvent,
    UpdateDisplaySettingsEvent,
    UpdateGlobalNotificationsEvent,
    RealmUserSettingsDefaultsEvent,
    CustomProfileFieldsEvent,
    PresenceEvent,
    UserStatusEvent,
    AlertWordsEvent,
    MutedUsersEvent,
    RealmBotDeleteEvent,
)

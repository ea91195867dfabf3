"""Frozen row Structs returned by the store, and the enums their columns hold.

A leaf module: stdlib and msgspec only. Rows are plain data; Zulip's JSON shapes are built
from them in `teamchat.lib.wire`.
"""

from __future__ import annotations

from enum import IntEnum

import msgspec


class Role(IntEnum):
    OWNER = 100
    ADMINISTRATOR = 200
    MODERATOR = 300
    MEMBER = 400
    GUEST = 600


ROLE_BY_NAME = {
    "owner": Role.OWNER,
    "admin": Role.ADMINISTRATOR,
    "administrator": Role.ADMINISTRATOR,
    "moderator": Role.MODERATOR,
    "member": Role.MEMBER,
    "guest": Role.GUEST,
}


class EmailVisibility(IntEnum):
    EVERYONE = 1
    MEMBERS = 2
    ADMINS = 3
    NOBODY = 4
    MODERATORS = 5


class BotType(IntEnum):
    GENERIC = 1
    INCOMING_WEBHOOK = 2
    OUTGOING_WEBHOOK = 3
    EMBEDDED = 4


class RealmRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    string_id: str
    name: str
    description: str
    host: str
    date_created: int
    # JSON object of the realm settings that differ from their defaults.
    settings_json: str


class UserRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    delivery_email: str
    full_name: str
    api_key: str
    password_hash: str | None
    role: Role
    is_active: bool
    is_bot: bool
    bot_type: int | None
    bot_owner_id: int | None
    date_joined: int
    timezone: str
    avatar_source: str
    avatar_version: int
    email_address_visibility: EmailVisibility
    # JSON object of the user's own settings (copied from the realm defaults at creation).
    settings_json: str

    @property
    def is_admin(self) -> bool:
        return self.role <= Role.ADMINISTRATOR

    @property
    def is_owner(self) -> bool:
        return self.role == Role.OWNER

    @property
    def is_moderator(self) -> bool:
        return self.role <= Role.MODERATOR

    @property
    def is_guest(self) -> bool:
        return self.role == Role.GUEST


class CustomProfileFieldRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    name: str
    hint: str
    field_type: int
    # JSON text for Dropdown (3) and External account (7) fields, else "".
    field_data: str
    order: int
    display_in_profile_summary: bool
    required: bool
    editable_by_user: bool
    use_for_user_matching: bool


class ProfileValueRow(msgspec.Struct, frozen=True, kw_only=True):
    user_id: int
    field_id: int
    value: str
    rendered_value: str | None


class PresenceRow(msgspec.Struct, frozen=True, kw_only=True):
    user_id: int
    last_active_time: int | None
    last_connected_time: int | None
    last_update_id: int


class UserStatusRow(msgspec.Struct, frozen=True, kw_only=True):
    user_id: int
    timestamp: int
    status_text: str
    emoji_name: str
    emoji_code: str
    reaction_type: str


class BotServiceRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    bot_id: int
    name: str
    base_url: str
    interface: int
    token: str


class MutedUserRow(msgspec.Struct, frozen=True, kw_only=True):
    user_id: int
    muted_user_id: int
    date_muted: int


class AttachmentRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    path_id: str
    file_name: str
    content_type: str
    size: int
    owner_id: int
    create_time: int

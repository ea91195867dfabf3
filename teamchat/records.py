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


class AttachmentRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    path_id: str
    file_name: str
    content_type: str
    size: int
    owner_id: int
    create_time: int


class RealmEmojiRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    name: str
    file_name: str
    content_type: str
    author_id: int | None
    date_created: int
    deactivated: bool
    # Whether a still (first frame) of an animated image is stored.
    has_still: bool

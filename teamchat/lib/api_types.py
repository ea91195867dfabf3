"""msgspec Structs for Zulip's JSON objects: the one definition of each wire shape.

Builders in `wire.py` fill them; tests decode responses and events into them with
`strict=True`. Optional keys use msgspec.UNSET, so an absent key stays absent on the wire.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

JsonDict = dict[str, object]


class Wire(msgspec.Struct, kw_only=True):
    """Base: keyword-only; UNSET fields are left out when encoded."""


class ProfileValue(Wire, kw_only=True):
    value: str
    rendered_value: str | UnsetType = UNSET


class UserObject(Wire, kw_only=True):
    user_id: int
    email: str
    delivery_email: str | None
    full_name: str
    avatar_url: str | UnsetType | None = UNSET
    avatar_version: int
    # zulip-compat: format_user_row gives bot_type to bots only.
    bot_type: int | UnsetType | None = UNSET
    # Bots only (null for system bots); humans never carry it.
    bot_owner_id: int | UnsetType | None = UNSET
    date_joined: str
    # Absent only from POST /register's realm_users lists, as in Zulip (the list says it).
    is_active: bool | UnsetType = UNSET
    is_admin: bool
    is_owner: bool
    is_guest: bool
    is_bot: bool
    is_imported_stub: bool = False
    role: int
    timezone: str
    # Humans only, and only when asked for.
    profile_data: dict[str, ProfileValue] | UnsetType = UNSET


class CrossRealmBot(UserObject, kw_only=True):
    is_system_bot: bool = True


class AuthenticationMethods(Wire, kw_only=True):
    password: bool
    dev: bool
    email: bool
    ldap: bool
    remoteuser: bool
    github: bool
    azuread: bool
    gitlab: bool
    apple: bool
    google: bool
    saml: bool
    openid_connect: bool = msgspec.field(name="openid connect")


class ExternalAuthenticationMethod(Wire, kw_only=True):
    name: str
    display_name: str
    display_icon: str | None
    login_url: str
    signup_url: str


class ServerSettings(Wire, kw_only=True):
    authentication_methods: AuthenticationMethods
    external_authentication_methods: list[ExternalAuthenticationMethod]
    zulip_feature_level: int
    zulip_version: str
    zulip_merge_base: str
    service_feature_level: int
    service_version: str
    service_merge_base: str
    push_notifications_enabled: bool
    is_incompatible: bool
    email_auth_enabled: bool
    require_email_format_usernames: bool
    realm_uri: str
    realm_url: str
    realm_name: str
    realm_icon: str
    realm_description: str
    realm_web_public_access_enabled: bool


def fields_of(obj: msgspec.Struct) -> JsonDict:
    """A Struct's fields as a dict, leaving out UNSET ones (for top-level response keys)."""
    values = {name: getattr(obj, name) for name in obj.__struct_fields__}
    return {name: value for name, value in values.items() if value is not UNSET}

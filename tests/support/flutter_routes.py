"""The mobile app's route results (lib/api/route/*.g.dart), decoded strictly like the
snapshot and events in flutter_types.py."""

from __future__ import annotations

from msgspec import Struct

from tests.support.flutter_types import Message

# --- GET /server_settings (realm.g.dart) ---------------------------------------------------


class AuthenticationMethods(Struct):
    ldap: bool


class ExternalAuthenticationMethod(Struct):
    name: str
    display_name: str
    login_url: str
    signup_url: str
    display_icon: str | None = None


class ServerSettings(Struct):
    authentication_methods: AuthenticationMethods
    external_authentication_methods: list[ExternalAuthenticationMethod]
    zulip_feature_level: int
    zulip_version: str
    zulip_merge_base: str
    push_notifications_enabled: bool
    is_incompatible: bool
    email_auth_enabled: bool
    require_email_format_usernames: bool
    realm_uri: str
    realm_name: str
    realm_icon: str
    realm_description: str
    realm_web_public_access_enabled: bool


class FetchApiKeyResult(Struct):
    api_key: str
    email: str
    user_id: int | None = None


# --- lib/api/route/messages.dart -----------------------------------------------------------


class GetMessagesResult(Struct):
    anchor: int
    found_newest: bool
    found_oldest: bool
    found_anchor: bool
    history_limited: bool
    messages: list[Message]


class GetMessageResult(Struct):
    message: Message


class SendMessageResult(Struct):
    id: int


class UpdateMessageFlagsResult(Struct):
    messages: list[int]


class UpdateMessageFlagsForNarrowResult(Struct):
    processed_count: int
    updated_count: int
    found_oldest: bool
    found_newest: bool
    first_processed_id: int | None = None
    last_processed_id: int | None = None


class UploadFileResult(Struct):
    uri: str


class TemporaryUploadUrlResult(Struct):
    url: str


class ServerEmojiData(Struct):
    code_to_names: dict[str, list[str]]


class GetStreamTopicsEntry(Struct):
    max_id: int
    name: str


class GetStreamTopicsResult(Struct):
    topics: list[GetStreamTopicsEntry]


class GetReadReceiptsResult(Struct):
    user_ids: list[int]

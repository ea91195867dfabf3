"""What zulip-terminal reads from POST /register and GET /messages, as msgspec Structs.

ZT keeps the raw dicts and indexes them (`initial_data["x"]`, `user["email"]`); a missing key
is a KeyError that crashes it at start-up. So a field without a default here is a key ZT
indexes (its value may be null where the type says so); extra keys are ignored, as ZT ignores
them. Sources: zulipterminal/{model,helper}.py of 0.7.0 and HEAD (CLIENTS.md 1.2 and 3a).
ZT registers without `client_capabilities` or `slim_presence`, so it gets the legacy shapes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta, Struct

# POST /register parameters, exactly as each version sends them (Model._fetch_initial_data).
_FETCH_COMMON = [
    "realm",
    "presence",
    "subscription",
    "message",
    "starred_messages",
    "update_message_flags",
    "muted_topics",
    "realm_user",
    "realm_user_groups",
]
REGISTER_0_7_0: dict[str, Any] = {
    "event_types": [
        "message",
        "update_message",
        "reaction",
        "subscription",
        "typing",
        "update_message_flags",
        "update_global_notifications",
        "update_display_settings",
        "user_settings",
        "realm_emoji",
    ],
    "fetch_event_types": [
        *_FETCH_COMMON,
        "update_global_notifications",
        "update_display_settings",
        "user_settings",
        "realm_emoji",
        "zulip_version",
    ],
    "client_gravatar": True,
    "apply_markdown": True,
    "include_subscribers": True,
    "narrow": [],
}
REGISTER_HEAD: dict[str, Any] = {
    "event_types": [
        "message",
        "update_message",
        "reaction",
        "submessage",
        "subscription",
        "typing",
        "update_message_flags",
        "user_settings",
        "realm_emoji",
        "realm_user",
    ],
    "fetch_event_types": [
        *_FETCH_COMMON,
        "user_settings",
        "realm_emoji",
        "custom_profile_fields",
        "zulip_version",
    ],
    "client_gravatar": True,
    "apply_markdown": True,
    "include_subscribers": True,
    "narrow": [],
}
# GET /messages at start-up (both versions).
INITIAL_MESSAGES: dict[str, Any] = {
    "anchor": 0,
    "num_before": 30,
    "num_after": 10,
    "apply_markdown": True,
    "use_first_unread_anchor": True,
    "client_gravatar": True,
    "narrow": [],
}
Color = Annotated[str, Meta(pattern="^#[0-9a-f]{6}$")]


class ClientPresence(Struct):
    status: Literal["active", "idle", "offline"]
    timestamp: int


class User(Struct):
    user_id: int
    email: str
    full_name: str
    is_bot: bool
    role: int | None = None
    date_joined: str | None = None
    timezone: str | None = None
    bot_owner_id: int | None = None
    profile_data: dict[str, Any] | None = None


class CrossRealmBot(Struct):
    user_id: int
    email: str
    full_name: str


class Subscription(Struct):
    stream_id: int
    name: str
    color: Color
    description: str
    invite_only: bool
    pin_to_top: bool
    is_muted: bool
    in_home_view: bool
    desktop_notifications: bool | None
    message_retention_days: int | None
    subscribers: list[int]
    is_web_public: bool
    date_created: int
    stream_post_policy: int
    history_public_to_subscribers: bool
    rendered_description: str
    stream_weekly_traffic: int | None


class UserGroup(Struct):
    id: int
    name: str


class UnreadPm(Struct):
    sender_id: int
    unread_message_ids: list[int]


class UnreadStream(Struct):
    stream_id: int
    topic: str
    unread_message_ids: list[int]


class UnreadHuddle(Struct):
    user_ids_string: str
    unread_message_ids: list[int]


class UnreadMsgs(Struct):
    pms: list[UnreadPm]
    streams: list[UnreadStream]
    huddles: list[UnreadHuddle]
    mentions: list[int]


class RealmEmoji(Struct):
    name: str
    deactivated: bool


class UserSettings(Struct):
    send_private_typing_notifications: bool
    twenty_four_hour_time: bool
    pm_content_in_desktop_notifications: bool


class InitialData(Struct):
    queue_id: str
    last_event_id: int
    max_message_id: int
    user_id: int
    email: str
    full_name: str
    realm_name: str
    zulip_version: str
    zulip_feature_level: int
    # Legacy shape: email -> client name (and "aggregated") -> presence.
    presences: dict[str, dict[str, ClientPresence]]
    realm_users: list[User]
    cross_realm_bots: list[CrossRealmBot]
    subscriptions: list[Subscription]
    realm_message_retention_days: int | None
    muted_topics: list[tuple[str, str, int]]
    realm_user_groups: list[UserGroup]
    unread_msgs: UnreadMsgs
    realm_emoji: dict[str, RealmEmoji]
    starred_messages: list[int]
    user_settings: UserSettings
    # 0.7.0 reads these top-level copies even when user_settings is present.
    twenty_four_hour_time: bool
    pm_content_in_desktop_notifications: bool
    realm_allow_message_editing: bool
    realm_message_content_edit_limit_seconds: int | None
    realm_allow_edit_history: bool
    max_stream_name_length: int
    max_topic_length: int
    max_message_length: int


class InitialDataHead(InitialData, kw_only=True):
    custom_profile_fields: list[dict[str, Any]]


class Reaction(Struct):
    emoji_code: str
    emoji_name: str
    reaction_type: str
    user_id: int


class DmRecipient(Struct):
    id: int
    email: str
    full_name: str


class Message(Struct):
    id: int
    type: Literal["stream", "private"]
    sender_id: int
    sender_full_name: str
    sender_email: str
    timestamp: int
    content: str
    display_recipient: str | list[DmRecipient]
    subject: str
    reactions: list[Reaction]
    flags: list[str]
    is_me_message: bool
    stream_id: int | None = None


class GetMessages(Struct):
    messages: list[Message]
    anchor: int
    found_newest: bool | None = None


class RegisterAgain(Struct):
    """Re-registration after BAD_EVENT_QUEUE_ID: only these are read."""

    queue_id: str
    last_event_id: int
    max_message_id: int

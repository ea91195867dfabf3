"""The mobile app's (zulip-flutter) JSON decoders, mirrored as msgspec Structs.

Each Struct lists the fields the app's generated `fromJson` reads, with the same
strictness: a field without a default is required and non-null (Dart `json['x'] as T`),
`T | None = None` is `json['x'] as T?`, Literal types are `$enumDecode` without an
`unknownValue`. Unknown keys are ignored, as the app ignores them. Sources:
`lib/api/model/{initial_snapshot,model,events,reaction}.g.dart` and `lib/api/route/realm.g.dart`.
Decode raw JSON bytes with `decode(data, Type)` so that types are checked as the app sees them
(an int where a string is expected fails, a float where an int is expected fails).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

import msgspec
from msgspec import Meta, Struct

T = TypeVar("T")

MIN_ALLOWED_FEATURE_LEVEL = 277  # kMinAllowedZulipFeatureLevel, lib/api/core.dart
Color = Annotated[str, Meta(pattern="^#[0-9a-f]{6}$")]
MessageFlag = Literal[
    "read", "starred", "collapsed", "mentioned", "wildcard_mentioned", "has_alert_word",
    "historical", "stream_wildcard_mentioned", "topic_wildcard_mentioned",
]  # fmt: skip
ReactionType = Literal["unicode_emoji", "realm_emoji", "zulip_extra_emoji"]


def decode(data: bytes | str, kind: type[T]) -> T:
    """Decode like the app: strict types, required keys present, extra keys ignored."""
    return msgspec.json.decode(data, type=kind, strict=True)


def convert(value: object, kind: type[T]) -> T:
    """`decode` for an already-parsed JSON value (re-encoded so dict keys stay strings)."""
    return decode(msgspec.json.encode(value), kind)


# --- model.g.dart -------------------------------------------------------------------------


class GroupSettingValueNameless(Struct):
    direct_members: list[int]
    direct_subgroups: list[int]


GroupSettingValue = int | GroupSettingValueNameless


class CustomProfileField(Struct):
    id: int
    type: int
    order: int
    name: str
    hint: str
    field_data: str
    display_in_profile_summary: bool | None = None


class MutedUserItem(Struct):
    id: int


class RealmEmojiItem(Struct):
    id: str
    name: str
    source_url: str
    deactivated: bool
    still_url: str | None = None
    author_id: int | None = None


class UserGroup(Struct):
    id: int
    members: list[int]
    direct_subgroup_ids: list[int]
    name: str
    description: str
    is_system_group: bool
    deactivated: bool | None = None


class ProfileFieldUserData(Struct):
    value: str
    rendered_value: str | None = None


class User(Struct):
    user_id: int
    email: str
    full_name: str
    date_joined: str
    is_bot: bool
    role: Literal[100, 200, 300, 400, 600]
    timezone: str
    avatar_version: int
    # _readUsersIsActiveFallback* fills it in when absent.
    is_active: bool | None = None
    delivery_email: str | None = None
    bot_type: int | None = None
    bot_owner_id: int | None = None
    avatar_url: str | None = None
    profile_data: dict[int, ProfileFieldUserData] | None = None
    is_system_bot: bool | None = None


class PerUserPresence(Struct):
    active_timestamp: int
    idle_timestamp: int


class SavedSnippet(Struct):
    id: int
    title: str
    content: str
    date_created: int


class ZulipStream(Struct):
    stream_id: int
    name: str
    description: str
    rendered_description: str
    date_created: int
    invite_only: bool
    is_web_public: bool
    history_public_to_subscribers: bool
    is_archived: bool | None = None
    first_message_id: int | None = None
    message_retention_days: int | None = None
    stream_post_policy: Literal[1, 2, 3, 4] | None = None
    folder_id: int | None = None
    can_add_subscribers_group: GroupSettingValue | None = None
    can_delete_any_message_group: GroupSettingValue | None = None
    can_delete_own_message_group: GroupSettingValue | None = None
    can_send_message_group: GroupSettingValue | None = None
    can_subscribe_group: GroupSettingValue | None = None
    is_recently_active: bool | None = None
    stream_weekly_traffic: int | None = None


class Subscription(ZulipStream, kw_only=True):
    pin_to_top: bool
    is_muted: bool
    color: Color
    desktop_notifications: bool | None = None
    email_notifications: bool | None = None
    wildcard_mentions_notify: bool | None = None
    push_notifications: bool | None = None
    audible_notifications: bool | None = None


class ChannelFolder(Struct):
    id: int
    name: str
    description: str
    rendered_description: str
    is_archived: bool
    order: int | None = None
    date_created: int | None = None
    creator_id: int | None = None


class Reaction(Struct):
    emoji_name: str
    emoji_code: str
    reaction_type: ReactionType
    user_id: int


class DmRecipient(Struct):
    id: int


class _MessageBase(Struct, tag_field="type"):
    client: str
    content: str
    content_type: str
    id: int
    is_me_message: bool
    reactions: list[Reaction]
    recipient_id: int
    sender_email: str
    sender_full_name: str
    sender_id: int
    sender_realm_str: str
    timestamp: int
    flags: list[MessageFlag]
    last_edit_timestamp: int | None = None
    match_content: str | None = None
    match_subject: str | None = None
    submessages: list[dict[str, Any]] | None = None


class StreamMessage(_MessageBase, tag="stream", kw_only=True):
    stream_id: int
    subject: str
    display_recipient: str  # $checkKeys: required and non-null


class DmMessage(_MessageBase, tag="private", kw_only=True):
    display_recipient: list[DmRecipient]


Message = StreamMessage | DmMessage


# --- initial_snapshot.g.dart ---------------------------------------------------------------


class RealmDefaultExternalAccount(Struct):
    name: str
    text: str
    hint: str
    url_pattern: str


class RecentDmConversation(Struct):
    max_message_id: int
    user_ids: list[int]


class UserSettings(Struct):
    display_emoji_reaction_users: bool
    emojiset: str
    presence_enabled: bool
    starred_message_counts: bool
    twenty_four_hour_time: bool | None = None
    web_inbox_show_channel_folders: bool | None = None


class UserTopicItem(Struct):
    stream_id: int
    topic_name: str
    last_updated: int
    visibility_policy: Literal[0, 1, 2, 3]


class UnreadDm(Struct):
    other_user_id: int
    unread_message_ids: list[int]


class UnreadChannel(Struct):
    topic: str
    stream_id: int
    unread_message_ids: list[int]


class UnreadHuddle(Struct):
    user_ids_string: str
    unread_message_ids: list[int]


class UnreadMessagesSnapshot(Struct):
    count: int
    pms: list[UnreadDm]
    streams: list[UnreadChannel]
    huddles: list[UnreadHuddle]
    mentions: list[int]
    old_unreads_missing: bool


class UserStatusChange(Struct):
    away: bool | None = None
    status_text: str | None = None
    emoji_name: str | None = None
    emoji_code: str | None = None
    reaction_type: ReactionType | None = None


class InitialSnapshot(Struct):
    last_event_id: int
    zulip_feature_level: int
    zulip_version: str
    zulip_merge_base: str
    alert_words: list[str]
    custom_profile_fields: list[CustomProfileField]
    max_stream_name_length: int
    max_topic_length: int
    server_presence_ping_interval_seconds: int
    server_presence_offline_threshold_seconds: int
    muted_users: list[MutedUserItem]
    presences: dict[int, PerUserPresence]
    realm_emoji: dict[str, RealmEmojiItem]
    realm_user_groups: list[UserGroup]
    recent_private_conversations: list[RecentDmConversation]
    subscriptions: list[Subscription]
    unread_msgs: UnreadMessagesSnapshot
    starred_messages: list[int]
    streams: list[ZulipStream]
    user_status: dict[int, UserStatusChange]
    user_settings: UserSettings
    user_topics: list[UserTopicItem]
    realm_wildcard_mention_policy: Literal[1, 2, 3, 5, 6, 7]
    realm_mandatory_topics: bool
    realm_name: str
    realm_waiting_period_threshold: int
    realm_allow_message_editing: bool
    realm_enable_read_receipts: bool
    realm_icon_url: str
    realm_presence_disabled: bool
    realm_default_external_accounts: dict[str, RealmDefaultExternalAccount]
    max_file_upload_size_mib: int
    server_emoji_data_url: str
    event_queue_longpoll_timeout_seconds: int
    realm_users: list[User]
    realm_non_active_users: list[User]
    cross_realm_bots: list[User]
    queue_id: str | None = None
    email_address_visibility: Literal[1, 2, 3, 4, 5] | None = None
    server_typing_started_expiry_period_milliseconds: int | None = None
    server_typing_stopped_wait_period_milliseconds: int | None = None
    server_typing_started_wait_period_milliseconds: int | None = None
    saved_snippets: list[SavedSnippet] | None = None
    channel_folders: list[ChannelFolder] | None = None
    realm_can_delete_any_message_group: GroupSettingValue | None = None
    realm_can_delete_own_message_group: GroupSettingValue | None = None
    realm_delete_own_message_policy: Literal[1, 2, 3, 4, 5] | None = None
    realm_message_content_delete_limit_seconds: int | None = None
    realm_message_content_edit_limit_seconds: int | None = None
    realm_empty_topic_display_name: str | None = None

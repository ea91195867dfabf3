"""The mobile app's event decoders (`Event.fromJson`, lib/api/model/events.dart) as Structs.

`parse_event(event)` picks the class the app picks for (type, op) and decodes strictly. A
known type with a missing or mistyped field raises, which in the app throws the store away
and reloads everything; unknown types and ops are ignored there, and return None here.
"""

from __future__ import annotations

from typing import Any, Literal

from msgspec import Struct

from tests.support.flutter_types import (
    ChannelFolder,
    CustomProfileField,
    Message,
    MessageFlag,
    MutedUserItem,
    ReactionType,
    RealmEmojiItem,
    SavedSnippet,
    Subscription,
    User,
    UserGroup,
    UserStatusChange,
    ZulipStream,
    convert,
)

PropagateMode = Literal["change_one", "change_later", "change_all"]
MessageType = Literal["stream", "direct", "private"]


class Heartbeat(Struct):
    id: int


class MessageEvent(Struct):
    id: int
    flags: list[MessageFlag]
    message: dict[str, Any]
    local_message_id: str | None = None


class UpdateMessageEvent(Struct):
    id: int
    rendering_only: bool
    message_id: int
    message_ids: list[int]
    flags: list[MessageFlag]
    edit_timestamp: int
    user_id: int | None = None
    stream_id: int | None = None
    new_stream_id: int | None = None
    orig_subject: str | None = None
    subject: str | None = None
    propagate_mode: PropagateMode | None = None
    orig_content: str | None = None
    orig_rendered_content: str | None = None
    content: str | None = None
    rendered_content: str | None = None
    is_me_message: bool | None = None


class DeleteMessageEvent(Struct):
    id: int
    message_ids: list[int]
    message_type: MessageType
    stream_id: int | None = None
    topic: str | None = None


class FlagsAddEvent(Struct):
    id: int
    flag: str
    messages: list[int]
    all: bool


class MessageDetail(Struct):
    type: MessageType
    mentioned: bool | None = None
    user_ids: list[int] | None = None
    stream_id: int | None = None
    topic: str | None = None


class FlagsRemoveEvent(Struct):
    id: int
    flag: str
    messages: list[int]
    message_details: dict[int, MessageDetail] | None = None


class ReactionEvent(Struct):
    id: int
    op: Literal["add", "remove"]
    emoji_name: str
    emoji_code: str
    reaction_type: ReactionType
    user_id: int
    message_id: int


class TypingUser(Struct):
    user_id: int


class TypingEvent(Struct):
    id: int
    op: Literal["start", "stop"]
    message_type: MessageType
    sender: TypingUser
    recipients: list[TypingUser] | None = None
    stream_id: int | None = None
    topic: str | None = None


class PerClientPresence(Struct):
    client: str
    status: Literal["active", "idle"]
    timestamp: int
    pushable: bool


class PresenceEvent(Struct):
    id: int
    user_id: int
    # `(json['server_timestamp'] as num).toInt()`; Zulip sends a float here.
    server_timestamp: float
    presence: dict[str, PerClientPresence]


class SubscriptionAddEvent(Struct):
    id: int
    subscriptions: list[Subscription]


class StreamIdItem(Struct):
    stream_id: int


class SubscriptionRemoveEvent(Struct):
    id: int
    subscriptions: list[StreamIdItem]


class SubscriptionUpdateEvent(Struct):
    id: int
    stream_id: int
    property: str
    value: Any


class SubscriptionPeerEvent(Struct):
    id: int
    stream_ids: list[int]
    user_ids: list[int]


class ChannelCreateEvent(Struct):
    id: int
    streams: list[ZulipStream]


class ChannelDeleteEvent(Struct):
    id: int
    streams: list[ZulipStream]


class ChannelUpdateEvent(Struct):
    id: int
    stream_id: int
    name: str
    property: str
    value: Any
    rendered_description: str | None = None
    history_public_to_subscribers: bool | None = None
    is_web_public: bool | None = None


class RealmUserAddEvent(Struct):
    id: int
    person: User


class PersonId(Struct):
    user_id: int


class RealmUserIdEvent(Struct):
    id: int
    person: PersonId


class RealmEmojiUpdateEvent(Struct):
    id: int
    realm_emoji: dict[str, RealmEmojiItem]


class AlertWordsEvent(Struct):
    id: int
    alert_words: list[str]


class UserSettingsUpdateEvent(Struct):
    id: int
    property: str
    value: Any


class CustomProfileFieldsEvent(Struct):
    id: int
    fields: list[CustomProfileField]


class UserGroupAddEvent(Struct):
    id: int
    group: UserGroup


class UserGroupIdEvent(Struct):
    id: int
    group_id: int


class SavedSnippetEvent(Struct):
    id: int
    saved_snippet: SavedSnippet


class SavedSnippetRemoveEvent(Struct):
    id: int
    saved_snippet_id: int


class ChannelFolderAddEvent(Struct):
    id: int
    channel_folder: ChannelFolder


class UserStatusEvent(UserStatusChange, kw_only=True):
    id: int
    user_id: int


class UserTopicEvent(Struct):
    id: int
    stream_id: int
    topic_name: str
    last_updated: int
    visibility_policy: Literal[0, 1, 2, 3]


class MutedUsersEvent(Struct):
    id: int
    muted_users: list[MutedUserItem]


class SubmessageEvent(Struct):
    id: int
    msg_type: str
    content: str
    message_id: int
    sender_id: int
    submessage_id: int


# (type, op or None) -> decoder; op None means the app does not switch on op.
DECODERS: dict[tuple[str, str | None], type[Struct]] = {
    ("heartbeat", None): Heartbeat,
    ("message", None): MessageEvent,
    ("update_message", None): UpdateMessageEvent,
    ("delete_message", None): DeleteMessageEvent,
    ("update_message_flags", "add"): FlagsAddEvent,
    ("update_message_flags", "remove"): FlagsRemoveEvent,
    ("reaction", None): ReactionEvent,
    ("typing", None): TypingEvent,
    ("presence", None): PresenceEvent,
    ("subscription", "add"): SubscriptionAddEvent,
    ("subscription", "remove"): SubscriptionRemoveEvent,
    ("subscription", "update"): SubscriptionUpdateEvent,
    ("subscription", "peer_add"): SubscriptionPeerEvent,
    ("subscription", "peer_remove"): SubscriptionPeerEvent,
    ("stream", "create"): ChannelCreateEvent,
    ("stream", "delete"): ChannelDeleteEvent,
    ("stream", "update"): ChannelUpdateEvent,
    ("realm_user", "add"): RealmUserAddEvent,
    ("realm_user", "update"): RealmUserIdEvent,
    ("realm_user", "remove"): RealmUserIdEvent,
    ("realm_emoji", "update"): RealmEmojiUpdateEvent,
    ("alert_words", None): AlertWordsEvent,
    ("user_settings", "update"): UserSettingsUpdateEvent,
    ("custom_profile_fields", None): CustomProfileFieldsEvent,
    ("user_group", "add"): UserGroupAddEvent,
    ("user_group", "update"): UserGroupIdEvent,
    ("user_group", "remove"): UserGroupIdEvent,
    ("saved_snippets", "add"): SavedSnippetEvent,
    ("saved_snippets", "update"): SavedSnippetEvent,
    ("saved_snippets", "remove"): SavedSnippetRemoveEvent,
    ("channel_folder", "add"): ChannelFolderAddEvent,
    ("user_status", None): UserStatusEvent,
    ("user_topic", None): UserTopicEvent,
    ("muted_users", None): MutedUsersEvent,
    ("submessage", None): SubmessageEvent,
}


def parse_event(event: dict[str, Any]) -> Struct | None:
    """Decode `event` as the app does; None for the types and ops it ignores."""
    kind = DECODERS.get((event["type"], None)) or DECODERS.get((event["type"], event.get("op")))
    if kind is None:
        return None
    parsed = convert(event, kind)
    if isinstance(parsed, MessageEvent):
        # _readMessageValue: the event-level flags go into the message.
        convert({**event["message"], "flags": event["flags"]}, Message)  # type: ignore[arg-type]
    elif isinstance(parsed, UpdateMessageEvent):
        _check_move_data(parsed)
    elif isinstance(parsed, DeleteMessageEvent) and parsed.message_type == "stream":
        assert parsed.stream_id is not None and parsed.topic is not None, event
    elif isinstance(parsed, FlagsRemoveEvent) and parsed.flag == "read":
        assert parsed.message_details is not None, event
    return parsed


def _check_move_data(event: UpdateMessageEvent) -> None:
    """UpdateMessageMoveData.tryParseFromJson: propagate_mode exactly when something moved."""
    new_stream = event.new_stream_id if event.new_stream_id is not None else event.stream_id
    new_topic = event.subject if event.subject is not None else event.orig_subject
    if new_stream == event.stream_id and new_topic == event.orig_subject:
        assert event.propagate_mode is None, f"propagate_mode without a move: {event}"
        return
    assert event.stream_id is not None, event
    assert event.orig_subject is not None, event
    assert event.propagate_mode is not None, event

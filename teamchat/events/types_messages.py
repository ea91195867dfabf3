"""Message events: message, update_message, delete_message, update_message_flags, reaction,
typing, user_topic and the legacy muted_topics. Per-queue rules: `events.rules_messages`.
"""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

from teamchat.events.types import Event, register_event_types
from teamchat.lib.message_types import MessageObject, TopicLink


class MessageEvent(Event, tag="message", kw_only=True):
    message: MessageObject
    flags: list[str]
    local_message_id: str | UnsetType = UNSET


class UpdateMessageEvent(Event, tag="update_message", kw_only=True):
    user_id: int | None
    edit_timestamp: int
    message_id: int
    message_ids: list[int]
    flags: list[str]
    rendering_only: bool
    stream_name: str | UnsetType = UNSET
    stream_id: int | UnsetType = UNSET
    new_stream_id: int | UnsetType = UNSET
    propagate_mode: str | UnsetType = UNSET
    orig_subject: str | UnsetType = UNSET
    subject: str | UnsetType = UNSET
    topic_links: list[TopicLink] | UnsetType = UNSET
    orig_content: str | UnsetType = UNSET
    orig_rendered_content: str | UnsetType = UNSET
    content: str | UnsetType = UNSET
    rendered_content: str | UnsetType = UNSET
    is_me_message: bool | UnsetType = UNSET


class DeleteMessageEvent(Event, tag="delete_message", kw_only=True):
    message_type: Literal["stream", "private"]
    message_ids: list[int] | UnsetType = UNSET
    # Clients without the bulk_message_deletion capability get one event per message.
    message_id: int | UnsetType = UNSET
    stream_id: int | UnsetType = UNSET
    topic: str | UnsetType = UNSET


class MessageDetails(msgspec.Struct, kw_only=True):
    type: Literal["stream", "private"]
    mentioned: bool | UnsetType = UNSET
    user_ids: list[int] | UnsetType = UNSET
    stream_id: int | UnsetType = UNSET
    topic: str | UnsetType = UNSET
    unmuted_stream_msg: bool | UnsetType = UNSET


class UpdateMessageFlagsAddEvent(Event, tag="update_message_flags", kw_only=True):
    op: Literal["add"] = "add"
    # Deprecated name of `op`.
    operation: str | UnsetType = UNSET
    flag: str
    messages: list[int]
    all: bool


class UpdateMessageFlagsRemoveEvent(Event, tag="update_message_flags", kw_only=True):
    op: Literal["remove"] = "remove"
    operation: str | UnsetType = UNSET
    flag: str
    messages: list[int]
    all: bool
    message_details: dict[str, MessageDetails] | UnsetType = UNSET


class ReactionUser(msgspec.Struct, kw_only=True):
    user_id: int
    email: str
    full_name: str


class _ReactionFields(Event, kw_only=True):
    message_id: int
    emoji_name: str
    emoji_code: str
    reaction_type: Literal["unicode_emoji", "realm_emoji", "zulip_extra_emoji"]
    user_id: int
    # Deprecated, still read by older clients (zulip-terminal reads user.user_id).
    user: ReactionUser


class ReactionAddEvent(_ReactionFields, tag="reaction", kw_only=True):
    op: Literal["add"] = "add"


class ReactionRemoveEvent(_ReactionFields, tag="reaction", kw_only=True):
    op: Literal["remove"] = "remove"


class TypingUser(msgspec.Struct, kw_only=True):
    user_id: int
    email: str


class _TypingFields(Event, kw_only=True):
    message_type: Literal["direct", "stream", "private"]
    sender: TypingUser
    recipients: list[TypingUser] | UnsetType = UNSET
    stream_id: int | UnsetType = UNSET
    topic: str | UnsetType = UNSET


class TypingStartEvent(_TypingFields, tag="typing", kw_only=True):
    op: Literal["start"] = "start"


class TypingStopEvent(_TypingFields, tag="typing", kw_only=True):
    op: Literal["stop"] = "stop"


class TypingEditRecipient(msgspec.Struct, kw_only=True, omit_defaults=True):
    type: Literal["direct", "channel"]
    channel_id: int | UnsetType = UNSET
    topic: str | UnsetType = UNSET
    user_ids: list[int] | UnsetType = UNSET


class _TypingEditFields(Event, kw_only=True):
    sender_id: int
    message_id: int
    recipient: TypingEditRecipient


class TypingEditStartEvent(_TypingEditFields, tag="typing_edit_message", kw_only=True):
    op: Literal["start"] = "start"


class TypingEditStopEvent(_TypingEditFields, tag="typing_edit_message", kw_only=True):
    op: Literal["stop"] = "stop"


class SubmessageEvent(Event, tag="submessage", kw_only=True):
    msg_type: str
    content: str
    message_id: int
    submessage_id: int
    sender_id: int


class UserTopicEvent(Event, tag="user_topic", kw_only=True):
    stream_id: int
    topic_name: str
    last_updated: int
    visibility_policy: int


class MutedTopicsEvent(Event, tag="muted_topics", kw_only=True):
    # [channel name, topic, time muted]
    muted_topics: list[tuple[str, str, int]]


register_event_types(
    MessageEvent,
    UpdateMessageEvent,
    DeleteMessageEvent,
    UpdateMessageFlagsAddEvent,
    UpdateMessageFlagsRemoveEvent,
    ReactionAddEvent,
    ReactionRemoveEvent,
    TypingStartEvent,
    TypingStopEvent,
    TypingEditStartEvent,
    TypingEditStopEvent,
    SubmessageEvent,
    UserTopicEvent,
    MutedTopicsEvent,
)

"""msgspec Structs for Zulip's message objects (GET /messages and message events).

`teamchat.lib.message_wire` builds them as dicts; tests and event checks decode them into
these Structs with `strict=True`. UNSET fields are absent on the wire.
"""

from __future__ import annotations

from msgspec import UNSET, UnsetType

from teamchat.lib.api_types import Wire


class DisplayRecipientUser(Wire, kw_only=True):
    id: int
    email: str
    full_name: str
    is_mirror_dummy: bool


class Reaction(Wire, kw_only=True):
    emoji_name: str
    emoji_code: str
    reaction_type: str
    user_id: int


class TopicLink(Wire, kw_only=True):
    text: str
    url: str


class EditHistoryEntry(Wire, kw_only=True):
    user_id: int | None
    timestamp: int
    prev_content: str | UnsetType = UNSET
    prev_rendered_content: str | UnsetType = UNSET
    prev_stream: int | UnsetType = UNSET
    stream: int | UnsetType = UNSET
    prev_topic: str | UnsetType = UNSET
    topic: str | UnsetType = UNSET


class MessageObject(Wire, kw_only=True):
    id: int
    type: str
    content: str
    content_type: str
    client: str
    timestamp: int
    sender_id: int
    sender_email: str
    sender_full_name: str
    sender_realm_str: str
    avatar_url: str | None
    display_recipient: str | list[DisplayRecipientUser]
    recipient_id: int
    stream_id: int | UnsetType = UNSET
    subject: str
    topic_links: list[TopicLink]
    is_me_message: bool
    reactions: list[Reaction]
    submessages: list[dict[str, object]]
    flags: list[str] | UnsetType = UNSET
    last_edit_timestamp: int | UnsetType = UNSET
    last_moved_timestamp: int | UnsetType = UNSET
    edit_history: list[EditHistoryEntry] | UnsetType = UNSET

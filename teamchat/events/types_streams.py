"""Channel events: `stream` create/update/delete and `subscription` add/remove/update/peer_*.

Their per-queue rules live in `teamchat.events.rules_streams`.
"""

from __future__ import annotations

from typing import Literal

from msgspec import UNSET, UnsetType

from teamchat.events.types import Event, register_event_types
from teamchat.lib.channel_types import ChannelObject, SubscriptionObject, SubscriptionRef

# Private key of `subscription` add events: property -> the user's default for null values.
NOTIFICATION_DEFAULTS = "_notification_defaults"


class StreamCreateEvent(Event, tag="stream", kw_only=True):
    op: Literal["create"] = "create"
    streams: list[ChannelObject]


class StreamDeleteEvent(Event, tag="stream", kw_only=True):
    op: Literal["delete"] = "delete"
    streams: list[ChannelObject]
    stream_ids: list[int]


class StreamUpdateEvent(Event, tag="stream", kw_only=True):
    op: Literal["update"] = "update"
    stream_id: int
    name: str
    property: str
    value: object
    rendered_description: str | UnsetType = UNSET
    history_public_to_subscribers: bool | UnsetType = UNSET
    is_web_public: bool | UnsetType = UNSET


class SubscriptionAddEvent(Event, tag="subscription", kw_only=True):
    op: Literal["add"] = "add"
    subscriptions: list[SubscriptionObject]


class SubscriptionRemoveEvent(Event, tag="subscription", kw_only=True):
    op: Literal["remove"] = "remove"
    subscriptions: list[SubscriptionRef]


class SubscriptionUpdateEvent(Event, tag="subscription", kw_only=True):
    op: Literal["update"] = "update"
    stream_id: int
    property: str
    value: object


class SubscriptionPeerAddEvent(Event, tag="subscription", kw_only=True):
    op: Literal["peer_add"] = "peer_add"
    stream_ids: list[int]
    user_ids: list[int]


class SubscriptionPeerRemoveEvent(Event, tag="subscription", kw_only=True):
    op: Literal["peer_remove"] = "peer_remove"
    stream_ids: list[int]
    user_ids: list[int]


register_event_types(
    StreamCreateEvent,
    StreamDeleteEvent,
    StreamUpdateEvent,
    SubscriptionAddEvent,
    SubscriptionRemoveEvent,
    SubscriptionUpdateEvent,
    SubscriptionPeerAddEvent,
    SubscriptionPeerRemoveEvent,
)

"""msgspec Structs for Zulip's channel and subscription objects (one definition of each shape).

Builders in `teamchat.lib.channels` fill them; tests decode responses and events into them with
`strict=True`. UNSET fields are left out on the wire.
"""

from __future__ import annotations

from msgspec import UNSET, UnsetType

from teamchat.lib.api_types import Wire


class GroupMembers(Wire, kw_only=True):
    """An anonymous group as a group-valued setting's value."""

    direct_members: list[int]
    direct_subgroups: list[int]


# A group-valued setting on the wire: a named group's id, or an anonymous group.
GroupSettingWire = int | GroupMembers


class ChannelObject(Wire, kw_only=True):
    """A channel as GET /streams, the `streams` state and `stream` events show it."""

    stream_id: int
    name: str
    description: str
    rendered_description: str
    date_created: int
    creator_id: int | None
    invite_only: bool
    is_web_public: bool
    is_announcement_only: bool
    stream_post_policy: int
    history_public_to_subscribers: bool
    message_retention_days: int | None
    first_message_id: int | None
    folder_id: int | None
    is_archived: bool
    is_recently_active: bool
    topics_policy: str
    stream_weekly_traffic: int | None
    subscriber_count: int
    can_add_subscribers_group: GroupSettingWire
    can_administer_channel_group: GroupSettingWire
    can_delete_any_message_group: GroupSettingWire
    can_delete_own_message_group: GroupSettingWire
    can_move_messages_out_of_channel_group: GroupSettingWire
    can_move_messages_within_channel_group: GroupSettingWire
    can_remove_subscribers_group: GroupSettingWire
    can_resolve_topics_group: GroupSettingWire
    can_send_message_group: GroupSettingWire
    can_subscribe_group: GroupSettingWire


class NeverSubscribedObject(ChannelObject, kw_only=True):
    """A channel in `never_subscribed`: the channel plus, when asked for, its subscribers."""

    subscribers: list[int] | UnsetType = UNSET


class SubscriptionObject(ChannelObject, kw_only=True):
    """A channel with the user's own subscription settings."""

    color: str
    is_muted: bool
    in_home_view: bool
    pin_to_top: bool
    desktop_notifications: bool | None
    audible_notifications: bool | None
    push_notifications: bool | None
    email_notifications: bool | None
    wildcard_mentions_notify: bool | None
    subscribers: list[int] | UnsetType = UNSET


class SubscriptionRef(Wire, kw_only=True):
    """A removed subscription in `subscription` `remove` events."""

    name: str
    stream_id: int

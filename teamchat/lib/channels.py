"""Channel rules that need no I/O: names, colors, permission-setting defaults, wire objects.

Pure functions over rows; the actions fetch what these need.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Mapping

import msgspec

from teamchat.errors import ZulipError
from teamchat.lib import system_groups as sg
from teamchat.lib.channel_types import (
    ChannelObject,
    GroupMembers,
    GroupSettingWire,
    NeverSubscribedObject,
    SubscriptionObject,
)
from teamchat.lib.realm_settings import GroupSettingValue
from teamchat.lib.text import first_unprintable
from teamchat.records import StreamRow, SubscriptionRow

MAX_NAME_LENGTH = 60
MAX_DESCRIPTION_LENGTH = 1024
# zulip-compat: Realm.WILDCARD_MENTION_THRESHOLD: more subscribers (or topic participants)
# than this makes a channel (or topic) "large" for wildcard mentions.
WILDCARD_MENTION_THRESHOLD = 15
DAY_SECS = 24 * 3600
WEEKLY_TRAFFIC_WINDOW_DAYS = 28
RECENTLY_ACTIVE_DAYS = 180

# zulip-compat: Zulip's STREAM_ASSIGNMENT_COLORS, in its order.
STREAM_ASSIGNMENT_COLORS = (
    "#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55",
    "#b0a5fd", "#addfe5", "#f5ce6e", "#c2726a", "#94c849", "#bd86e5",
    "#ee7e4a", "#a6dcbf", "#95a5fd", "#53a063", "#9987e1", "#e4523d",
    "#c2c2c2", "#4f8de4", "#c6a8ad", "#e7cc4d", "#c8bebf", "#a47462",
)  # fmt: skip

CREATOR = "creator"
# Channel permission settings and their defaults (a system group name, or the creator).
CHANNEL_GROUP_SETTING_DEFAULTS: Mapping[str, str] = {
    "can_add_subscribers_group": sg.NOBODY,
    "can_administer_channel_group": CREATOR,
    "can_delete_any_message_group": sg.NOBODY,
    "can_delete_own_message_group": sg.NOBODY,
    "can_move_messages_out_of_channel_group": sg.NOBODY,
    "can_move_messages_within_channel_group": sg.NOBODY,
    "can_remove_subscribers_group": sg.ADMINISTRATORS,
    "can_resolve_topics_group": sg.NOBODY,
    "can_send_message_group": sg.EVERYONE,
    "can_subscribe_group": sg.NOBODY,
}
# zulip-compat: the deprecated stream_post_policy derived from can_send_message_group.
_POST_POLICY_BY_GROUP = {sg.ADMINISTRATORS: 2, sg.FULL_MEMBERS: 3, sg.MODERATORS: 4}
TOPICS_POLICIES = ("inherit", "allow_empty_topic", "disable_empty_topic", "empty_topic_only")
NOTIFICATION_PROPERTIES = (
    "desktop_notifications",
    "audible_notifications",
    "push_notifications",
    "email_notifications",
    "wildcard_mentions_notify",
)
# Subscription notification property -> the user setting a null value inherits.
# zulip-compat: the four that Zulip fills in for clients without notification_settings_null;
# wildcard_mentions_notify stays null for them too.
NOTIFICATION_DEFAULT_SETTINGS = {
    "desktop_notifications": "enable_stream_desktop_notifications",
    "audible_notifications": "enable_stream_audible_notifications",
    "push_notifications": "enable_stream_push_notifications",
    "email_notifications": "enable_stream_email_notifications",
}
_COLOR = re.compile(r"^#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$")


def check_stream_name(name: str) -> None:
    """Raise Zulip's error when `name` cannot name a channel."""
    if not name.strip():
        raise ZulipError("Channel name can't be empty.")
    if len(name) > MAX_NAME_LENGTH:
        raise ZulipError(f"Channel name too long (limit: {MAX_NAME_LENGTH} characters).")
    position = first_unprintable(name)
    if position is not None:
        raise ZulipError(f"Invalid character in channel name, at position {position}.")


def normalize_color(name: str, value: object) -> str:
    """A valid hex color as lowercase #rrggbb; Zulip's error otherwise."""
    if not isinstance(value, str) or not _COLOR.match(value):
        raise ZulipError(f"{name} is not a valid hex color code")
    digits = value[1:].lower()
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    return "#" + digits


def pick_colors(used: Collection[str], count: int) -> list[str]:
    """Colors for `count` new subscriptions: unused palette colors first, then cycling."""
    available = [color for color in STREAM_ASSIGNMENT_COLORS if color not in used]
    palette = len(STREAM_ASSIGNMENT_COLORS)
    return [
        available[i] if i < len(available) else STREAM_ASSIGNMENT_COLORS[(len(used) + i) % palette]
        for i in range(count)
    ]


def default_group_settings(
    system_group_ids: Mapping[str, int], creator_id: int | None
) -> dict[str, GroupSettingValue]:
    """Every channel permission setting at its default for a new channel."""
    values: dict[str, GroupSettingValue] = {}
    for name, default in CHANNEL_GROUP_SETTING_DEFAULTS.items():
        if default == CREATOR:
            if creator_id is None:
                values[name] = system_group_ids[sg.NOBODY]
            else:
                values[name] = {"direct_members": [creator_id], "direct_subgroups": []}
        else:
            values[name] = system_group_ids[default]
    return values


def group_settings(stream: StreamRow) -> dict[str, GroupSettingValue]:
    settings: dict[str, GroupSettingValue] = msgspec.json.decode(stream.settings_json or "{}")
    return settings


def is_in_setting(value: GroupSettingValue, user_id: int, group_ids: Collection[int]) -> bool:
    """Whether a user (active, in `group_ids` transitively) satisfies a group setting."""
    if isinstance(value, int):
        return value in group_ids
    if user_id in value.get("direct_members", []):
        return True
    return any(group in group_ids for group in value.get("direct_subgroups", []))


def wire_setting(value: GroupSettingValue) -> GroupSettingWire:
    if isinstance(value, int):
        return value
    return GroupMembers(
        direct_members=sorted(value.get("direct_members", [])),
        direct_subgroups=sorted(value.get("direct_subgroups", [])),
    )


class ChannelFacts(msgspec.Struct, frozen=True, kw_only=True):
    """What a channel object needs beyond its row: counts and the system group names."""

    subscriber_count: int
    weekly_traffic: int | None
    recently_active: bool
    group_names: Mapping[int, str]


def channel_fields(stream: StreamRow, facts: ChannelFacts) -> dict[str, object]:
    """The fields every channel object has, as keyword arguments."""
    send_group = (
        group_settings(stream).get("can_send_message_group") if stream.settings_json else None
    )
    post_policy = 1
    if isinstance(send_group, int):
        post_policy = _POST_POLICY_BY_GROUP.get(facts.group_names.get(send_group, ""), 1)
    fields = dict(_row_fields(stream, post_policy))
    fields["is_recently_active"] = facts.recently_active
    fields["stream_weekly_traffic"] = facts.weekly_traffic
    fields["subscriber_count"] = facts.subscriber_count
    return fields


@functools.lru_cache(maxsize=4096)
def _send_group(settings_json: str | None) -> GroupSettingValue | None:
    return msgspec.json.decode(settings_json or "{}").get("can_send_message_group")  # type: ignore[no-any-return]


@functools.lru_cache(maxsize=4096)
def _row_fields(stream: StreamRow, post_policy: int) -> dict[str, object]:
    """The fields that come from the row alone (a pure function: big organizations ask for
    a thousand channels per POST /register). Callers copy the dict."""
    settings = group_settings(stream)
    fields: dict[str, object] = {
        "stream_id": stream.id,
        "name": stream.name,
        "description": stream.description,
        "rendered_description": stream.rendered_description,
        "date_created": stream.date_created,
        "creator_id": stream.creator_id,
        "invite_only": stream.invite_only,
        "is_web_public": stream.is_web_public,
        "is_announcement_only": post_policy == 2,
        "stream_post_policy": post_policy,
        "history_public_to_subscribers": stream.history_public_to_subscribers,
        "message_retention_days": stream.message_retention_days,
        "first_message_id": stream.first_message_id,
        "folder_id": stream.folder_id,
        "is_archived": stream.is_archived,
        "is_recently_active": False,
        "topics_policy": stream.topics_policy,
        "stream_weekly_traffic": None,
        "subscriber_count": 0,
    }
    for name in CHANNEL_GROUP_SETTING_DEFAULTS:
        fields[name] = wire_setting(settings[name])
    return fields


def channel_object(stream: StreamRow, facts: ChannelFacts) -> ChannelObject:
    return ChannelObject(**channel_fields(stream, facts))  # type: ignore[arg-type]


def never_subscribed_object(
    stream: StreamRow, facts: ChannelFacts, subscribers: list[int] | None
) -> NeverSubscribedObject:
    obj = NeverSubscribedObject(**channel_fields(stream, facts))  # type: ignore[arg-type]
    if subscribers is not None:
        obj.subscribers = subscribers
    return obj


def subscription_object(
    stream: StreamRow,
    sub: SubscriptionRow,
    facts: ChannelFacts,
    subscribers: list[int] | None,
) -> SubscriptionObject:
    """The user's subscription to `stream`; notification settings stay null (inherit)."""
    obj = SubscriptionObject(
        **channel_fields(stream, facts),  # type: ignore[arg-type]
        color=sub.color,
        is_muted=sub.is_muted,
        in_home_view=not sub.is_muted,
        pin_to_top=sub.pin_to_top,
        desktop_notifications=sub.desktop_notifications,
        audible_notifications=sub.audible_notifications,
        push_notifications=sub.push_notifications,
        email_notifications=sub.email_notifications,
        wildcard_mentions_notify=sub.wildcard_mentions_notify,
    )
    if subscribers is not None:
        obj.subscribers = subscribers
    return obj


def weekly_traffic(
    date_created: int, daily: Mapping[int, int], now: int
) -> tuple[int | None, bool]:
    """(stream_weekly_traffic, is_recently_active) from messages per UTC day.

    zulip-compat: null until the channel is a week old; the average over the last four weeks.
    """
    today = now // DAY_SECS
    recent_day = max([date_created // DAY_SECS, *daily.keys()])
    recently_active = today - recent_day <= RECENTLY_ACTIVE_DAYS
    age_days = (now - date_created) // DAY_SECS
    if age_days < 7:
        return None, recently_active
    window = min(age_days, WEEKLY_TRAFFIC_WINDOW_DAYS)
    count = sum(n for day, n in daily.items() if today - day < window)
    return round(count * 7 / window), recently_active

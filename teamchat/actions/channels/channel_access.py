"""Who may see or use a channel, and the channel objects and audiences built from that.

`access_stream_*` load a channel the user may see or raise Zulip's error (the same message
for channels that do not exist and channels the user may not see).
"""

from __future__ import annotations

from collections.abc import Iterable

from teamchat.errors import ZulipError
from teamchat.events import rules_streams  # noqa: F401 (registers channel event rules)
from teamchat.lib import channels as ch
from teamchat.lib.channel_types import ChannelObject
from teamchat.records import StreamRow, SubscriptionRow, UserRow
from teamchat.store import streams as stream_store
from teamchat.store import subscriptions as sub_store
from teamchat.store import users as user_store
from teamchat.store.db import Conn


def can_see_stream(user: UserRow, stream: StreamRow, subscribed: bool) -> bool:
    """Metadata access: name, description, subscribers (realm admins see private channels)."""
    if stream.is_web_public or subscribed:
        return True
    if stream.is_public and not user.is_guest:
        return True
    return stream.invite_only and user.is_admin


def has_content_access(
    user: UserRow, stream: StreamRow, subscribed: bool, group_ids: frozenset[int]
) -> bool:
    """Whether `user` may read the channel's messages (or join it by themselves)."""
    if stream.is_web_public or subscribed:
        return True
    if stream.is_public and not user.is_guest:
        return True
    settings = ch.group_settings(stream)
    return any(
        ch.is_in_setting(settings[name], user.id, group_ids)
        for name in ("can_add_subscribers_group", "can_subscribe_group")
    )


def can_access_history(user: UserRow, stream: StreamRow, subscribed: bool) -> bool:
    """Whether `user` sees the channel's messages sent before they subscribed."""
    if stream.is_web_public:
        return True
    if stream.is_public and not user.is_guest:
        return True
    return stream.history_public_to_subscribers and subscribed


async def _active_sub(conn: Conn, user: UserRow, stream: StreamRow) -> SubscriptionRow | None:
    sub = await sub_store.get_subscription(conn, user.id, stream.id)
    return sub if sub is not None and sub.active else None


async def access_stream(
    conn: Conn, user: UserRow, stream: StreamRow | None, error: str, *, content: bool
) -> tuple[StreamRow, SubscriptionRow | None]:
    """The channel and the user's active subscription, or `error` if they may not see it."""
    if stream is None:
        raise ZulipError(error)
    sub = await _active_sub(conn, user, stream)
    if content:
        if sub is None and not (stream.is_web_public or (stream.is_public and not user.is_guest)):
            group_ids = await stream_store.user_group_ids(conn, user)
            if not has_content_access(user, stream, False, group_ids):
                raise ZulipError(error)
    elif not can_see_stream(user, stream, sub is not None):
        raise ZulipError(error)
    return stream, sub


async def access_stream_by_id(
    conn: Conn, user: UserRow, stream_id: int, *, content: bool = True
) -> tuple[StreamRow, SubscriptionRow | None]:
    """The channel with this id and the user's subscription, or "Invalid channel ID"."""
    stream = await stream_store.get_stream_by_id(conn, stream_id)
    return await access_stream(conn, user, stream, "Invalid channel ID", content=content)


async def access_stream_by_name(
    conn: Conn, user: UserRow, name: str, *, content: bool = True
) -> tuple[StreamRow, SubscriptionRow | None]:
    """The channel with this name and the user's subscription, or "Invalid channel name"."""
    stream = await stream_store.get_stream_by_name(conn, name)
    error = f"Invalid channel name '{name}'"
    return await access_stream(conn, user, stream, error, content=content)


async def channel_facts(
    conn: Conn, streams: Iterable[StreamRow], now: int
) -> dict[int, ch.ChannelFacts]:
    """Counts, traffic and system group names for building channel objects."""
    streams = list(streams)
    ids = [stream.id for stream in streams]
    counts = await sub_store.subscriber_counts(conn, ids)
    since = now // ch.DAY_SECS - ch.WEEKLY_TRAFFIC_WINDOW_DAYS
    traffic = await stream_store.daily_traffic(conn, ids, since)
    names = await stream_store.system_group_names(conn)
    facts = {}
    for stream in streams:
        weekly, recent = ch.weekly_traffic(stream.date_created, traffic.get(stream.id, {}), now)
        facts[stream.id] = ch.ChannelFacts(
            subscriber_count=counts.get(stream.id, 0),
            weekly_traffic=weekly,
            recently_active=recent,
            group_names=names,
        )
    return facts


async def channel_objects(
    conn: Conn, streams: Iterable[StreamRow], now: int
) -> list[ChannelObject]:
    """Channel objects (GET /streams shape) for the given channels, in order."""
    streams = list(streams)
    facts = await channel_facts(conn, streams, now)
    return [ch.channel_object(stream, facts[stream.id]) for stream in streams]


async def stream_audience(conn: Conn, stream: StreamRow) -> list[int]:
    """Active users who can see the channel's metadata (and so receive its events)."""
    users = await user_store.list_users(conn, is_active=True)
    subscribers = set((await sub_store.subscriber_ids(conn, [stream.id])).get(stream.id, []))
    return [u.id for u in users if can_see_stream(u, stream, u.id in subscribers)]

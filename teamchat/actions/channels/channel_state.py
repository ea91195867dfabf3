"""Reading channels as a user sees them: subscriptions, unsubscribed and never-subscribed
channels, `streams`, and the register state built from them.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from teamchat.actions.channels.channel_access import can_see_stream, channel_facts
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.lib import channels as ch
from teamchat.lib import user_settings
from teamchat.lib.channel_types import ChannelObject, NeverSubscribedObject, SubscriptionObject
from teamchat.records import StreamRow, SubscriptionRow, UserRow
from teamchat.store import streams as stream_store
from teamchat.store import subscriptions as sub_store
from teamchat.store.db import Conn


class GatheredSubscriptions(msgspec.Struct, kw_only=True):
    subscriptions: list[SubscriptionObject]
    unsubscribed: list[SubscriptionObject]
    never_subscribed: list[NeverSubscribedObject]


async def subscription_objects(
    conn: Conn,
    pairs: Sequence[tuple[StreamRow, SubscriptionRow]],
    now: int,
    *,
    include_subscribers: bool,
) -> list[SubscriptionObject]:
    """The subscription objects of (channel, subscription) pairs, in the given order."""
    streams = [stream for stream, _ in pairs]
    facts = await channel_facts(conn, streams, now)
    subscribers = (
        await sub_store.subscriber_ids(conn, [s.id for s in streams]) if include_subscribers else {}
    )
    return [
        ch.subscription_object(
            stream,
            sub,
            facts[stream.id],
            subscribers.get(stream.id, []) if include_subscribers else None,
        )
        for stream, sub in pairs
    ]


async def gather_subscriptions(
    conn: Conn, user: UserRow, now: int, *, include_subscribers: bool, include_archived: bool
) -> GatheredSubscriptions:
    """The user's channels split as Zulip's register state splits them."""
    subs = {sub.stream_id: sub for sub in await sub_store.list_user_subscriptions(conn, user.id)}
    streams = await stream_store.list_streams(conn, include_archived=include_archived)
    active, former, never = [], [], []
    for stream in streams:
        sub = subs.get(stream.id)
        if sub is not None and sub.active:
            active.append((stream, sub))
        elif not can_see_stream(user, stream, False):
            continue
        elif sub is not None:
            former.append((stream, sub))
        else:
            never.append(stream)
    by_name = sorted(active, key=lambda pair: pair[0].name.lower())
    facts = await channel_facts(conn, never, now)
    subscribers = (
        await sub_store.subscriber_ids(conn, [s.id for s in never]) if include_subscribers else {}
    )
    never_objects = [
        ch.never_subscribed_object(
            stream,
            facts[stream.id],
            subscribers.get(stream.id, []) if include_subscribers else None,
        )
        for stream in sorted(never, key=lambda s: s.name.lower())
    ]
    return GatheredSubscriptions(
        subscriptions=await subscription_objects(
            conn, by_name, now, include_subscribers=include_subscribers
        ),
        unsubscribed=await subscription_objects(
            conn,
            sorted(former, key=lambda pair: pair[0].name.lower()),
            now,
            include_subscribers=include_subscribers,
        ),
        never_subscribed=never_objects,
    )


async def visible_streams(conn: Conn, user: UserRow, *, include_archived: bool) -> list[StreamRow]:
    """Every channel whose metadata the user may see, by id."""
    subscribed = await sub_store.active_stream_ids(conn, user.id)
    streams = await stream_store.list_streams(conn, include_archived=include_archived)
    return [s for s in streams if can_see_stream(user, s, s.id in subscribed)]


def notification_defaults(user: UserRow) -> dict[str, bool]:
    """What each null subscription notification setting inherits for `user`."""
    settings = user_settings.load(user.settings_json)
    return {
        prop: bool(getattr(settings, setting))
        for prop, setting in ch.NOTIFICATION_DEFAULT_SETTINGS.items()
    }


def fill_notification_defaults(subs: list[SubscriptionObject], defaults: dict[str, bool]) -> None:
    """For clients without `notification_settings_null`: replace nulls with the defaults."""
    for sub in subs:
        for prop, value in defaults.items():
            if getattr(sub, prop) is None:
                setattr(sub, prop, value)


@state_fetcher("subscription")
async def _subscription_state(ctx: StateContext) -> None:
    gathered = await gather_subscriptions(
        ctx.conn,
        ctx.user,
        ctx.rt.now(),
        include_subscribers=ctx.caps.include_subscribers,
        include_archived=ctx.caps.archived_channels,
    )
    if not ctx.caps.notification_settings_null:
        defaults = notification_defaults(ctx.user)
        fill_notification_defaults(gathered.subscriptions, defaults)
        fill_notification_defaults(gathered.unsubscribed, defaults)
    ctx.state["subscriptions"] = gathered.subscriptions
    ctx.state["unsubscribed"] = gathered.unsubscribed
    ctx.state["never_subscribed"] = gathered.never_subscribed


@state_fetcher("stream")
async def _streams_state(ctx: StateContext) -> None:
    streams = await visible_streams(ctx.conn, ctx.user, include_archived=ctx.caps.archived_channels)
    facts = await channel_facts(ctx.conn, streams, ctx.rt.now())
    objects: list[ChannelObject] = [ch.channel_object(s, facts[s.id]) for s in streams]
    ctx.state["streams"] = objects

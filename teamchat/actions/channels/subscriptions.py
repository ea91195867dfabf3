"""Subscribing (creating channels on the way), unsubscribing, and subscription settings.

Events: `stream` create for channels a user starts to see, `subscription` add/remove to the
users concerned, `peer_add`/`peer_remove` to everyone else who can see the channel.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from teamchat.actions.channels import channel_access as access
from teamchat.actions.channels.channel_state import notification_defaults, subscription_objects
from teamchat.actions.org.permissions import has_realm_permission
from teamchat.actions.people import guest_access
from teamchat.actions.people.user_lookup import find_user_by_email
from teamchat.errors import ZulipError
from teamchat.events.internal import public_copy
from teamchat.events.types_streams import (
    NOTIFICATION_DEFAULTS,
    StreamCreateEvent,
    StreamDeleteEvent,
    SubscriptionAddEvent,
    SubscriptionPeerAddEvent,
    SubscriptionPeerRemoveEvent,
    SubscriptionRemoveEvent,
    SubscriptionUpdateEvent,
)
from teamchat.lib import channels as ch
from teamchat.lib.api_types import JsonDict
from teamchat.lib.channel_types import SubscriptionRef
from teamchat.lib.limits import check_subscription_count
from teamchat.records import StreamRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import realm as realm_store
from teamchat.store import streams as stream_store
from teamchat.store import subscriptions as sub_store
from teamchat.store import users as user_store
from teamchat.store.db import Conn, Tx

Principals = list[str] | list[int]


class SubscriptionChange(msgspec.Struct, kw_only=True):
    """Who was (or already was) subscribed to what, by user id."""

    done: list[tuple[UserRow, StreamRow]]
    unchanged: list[tuple[UserRow, StreamRow]]


async def access_principals(conn: Conn, principals: Principals) -> list[UserRow]:
    """The active users named by emails or ids (Zulip's `principals`)."""
    found: dict[int, UserRow] = {}
    for principal in principals:
        if isinstance(principal, str):
            user = await find_user_by_email(conn, principal.strip())
        else:
            user = await user_store.get_user_by_id(conn, principal)
        if user is None or not user.is_active:
            raise ZulipError("No such user")
        found[user.id] = user
    return list(found.values())


def controls(actor: UserRow, target: UserRow) -> bool:
    """Whether `target` is `actor` or a bot `actor` owns."""
    return actor.id == target.id or (target.is_bot and target.bot_owner_id == actor.id)


async def may_add_subscribers(conn: Conn, user: UserRow, stream: StreamRow) -> bool:
    """Whether `user` may subscribe other users to the existing channel `stream`."""
    if user.is_admin:
        return True
    realm = await realm_store.get_realm(conn)
    assert realm is not None
    group_ids = await stream_store.user_group_ids(conn, user)
    settings = ch.group_settings(stream)
    in_channel_group = any(
        ch.is_in_setting(settings[name], user.id, group_ids)
        for name in ("can_add_subscribers_group", "can_administer_channel_group")
    )
    if in_channel_group:
        return True
    sub = await sub_store.get_subscription(conn, user.id, stream.id)
    subscribed = sub is not None and sub.active
    if not access.has_content_access(user, stream, subscribed, group_ids):
        return False
    return await has_realm_permission(conn, realm, user, "can_add_subscribers_group")


async def subscribe_users(
    rt: Runtime, tx: Tx, streams: Sequence[StreamRow], users: Sequence[UserRow],
    colors: dict[str, str],
) -> SubscriptionChange:  # fmt: skip
    """Subscribe every user to every channel inside `tx`; queue the events."""
    change = SubscriptionChange(done=[], unchanged=[])
    guests = await guest_access.snapshot(
        tx, user_ids=[u.id for u in users], stream_ids=[s.id for s in streams]
    )
    for user in users:
        used = await sub_store.used_colors(tx, user.id)
        active = await sub_store.active_stream_ids(tx, user.id)
        new = [s for s in streams if s.id not in active]
        change.unchanged += [(user, s) for s in streams if s.id in active]
        picked = iter(ch.pick_colors(used, len(new)))
        for stream in new:
            color = colors.get(stream.name) or next(picked)
            await sub_store.upsert_active(tx, stream.id, user.id, color)
            change.done.append((user, stream))
    await _publish_subscribed(rt, tx, change)
    await guest_access.publish_changes(rt, tx, guests)
    return change


async def _publish_subscribed(rt: Runtime, tx: Tx, change: SubscriptionChange) -> None:
    now = rt.now()
    added_by_stream: dict[int, list[UserRow]] = {}
    streams: dict[int, StreamRow] = {}
    for user, stream in change.done:
        added_by_stream.setdefault(stream.id, []).append(user)
        streams[stream.id] = stream
    for stream in streams.values():
        added = added_by_stream[stream.id]
        # Users who could not see the channel before learn about it first.
        newcomers = [u.id for u in added if not access.can_see_stream(u, stream, False)]
        if newcomers:
            objects = await access.channel_objects(tx, [stream], now)
            _after(rt, tx, StreamCreateEvent(streams=objects), newcomers)
        added_ids = {u.id for u in added}
        audience = await access.stream_audience(tx, stream)
        peers = [uid for uid in audience if uid not in added_ids]
        if peers:
            event = SubscriptionPeerAddEvent(stream_ids=[stream.id], user_ids=sorted(added_ids))
            _after(rt, tx, event, peers)
    users = {user.id: user for user, _ in change.done}
    for user in users.values():
        pairs = []
        for stream in [s for u, s in change.done if u.id == user.id]:
            sub = await sub_store.get_subscription(tx, user.id, stream.id)
            assert sub is not None
            pairs.append((stream, sub))
        sub_objects = await subscription_objects(tx, pairs, now, include_subscribers=True)
        payload = msgspec.to_builtins(SubscriptionAddEvent(subscriptions=sub_objects))
        payload[NOTIFICATION_DEFAULTS] = notification_defaults(user)
        _after(rt, tx, payload, [user.id])


def _after(rt: Runtime, tx: Tx, event: object, audience: list[int]) -> None:
    payload = event if isinstance(event, dict) else msgspec.to_builtins(event)
    tx.after_commit(lambda: rt.broker.publish(payload, audience))


async def check_remove_subscriptions(
    rt: Runtime, user: UserRow, names: Sequence[str], principals: Principals | None
) -> JsonDict:
    """DELETE /users/me/subscriptions: unsubscribe the user (or principals) from channels."""
    async with rt.db.read() as conn:
        check_subscription_count(len(names), len(principals) if principals else 1)
        targets = await access_principals(conn, principals) if principals else [user]
        others = any(not controls(user, target) for target in targets)
        streams: list[StreamRow] = []
        missing: list[str] = []
        for raw_name in names:
            name = raw_name.strip()
            ch.check_stream_name(name)
            stream = await stream_store.get_stream_by_name(conn, name)
            if stream is None:
                missing.append(name)
            elif stream.id not in {s.id for s in streams}:
                streams.append(stream)
        if missing:
            raise ZulipError(f"Channel(s) ({', '.join(missing)}) do not exist")
        if others:
            for stream in streams:
                if not await may_remove_subscribers(conn, user, stream):
                    raise ZulipError("Insufficient permission")
    change = await do_remove_subscriptions(rt, streams, targets)
    return {
        "removed": [stream.name for _, stream in change.done],
        "not_removed": [stream.name for _, stream in change.unchanged],
    }


async def may_remove_subscribers(conn: Conn, user: UserRow, stream: StreamRow) -> bool:
    """Whether `user` may unsubscribe other people from `stream`."""
    sub = await sub_store.get_subscription(conn, user.id, stream.id)
    if not access.can_see_stream(user, stream, sub is not None and sub.active):
        return False
    if user.is_admin:
        return True
    group_ids = await stream_store.user_group_ids(conn, user)
    settings = ch.group_settings(stream)
    return any(
        ch.is_in_setting(settings[name], user.id, group_ids)
        for name in ("can_remove_subscribers_group", "can_administer_channel_group")
    )


async def do_remove_subscriptions(
    rt: Runtime, streams: Sequence[StreamRow], users: Sequence[UserRow]
) -> SubscriptionChange:
    """Unsubscribe users; send subscription/remove, peer_remove, and stream/delete to users
    who can no longer see a private channel."""
    change = SubscriptionChange(done=[], unchanged=[])
    async with rt.db.write() as tx:
        guests = await guest_access.snapshot(
            tx, user_ids=[u.id for u in users], stream_ids=[s.id for s in streams]
        )
        for stream in streams:
            audience = await access.stream_audience(tx, stream)
            removed = []
            for user in users:
                sub = await sub_store.get_subscription(tx, user.id, stream.id)
                if sub is None or not sub.active:
                    change.unchanged.append((user, stream))
                    continue
                await sub_store.deactivate(tx, stream.id, user.id)
                change.done.append((user, stream))
                removed.append(user)
            if not removed:
                continue
            removed_ids = {u.id for u in removed}
            peers = [uid for uid in audience if uid not in removed_ids]
            if peers:
                peer_event = SubscriptionPeerRemoveEvent(
                    stream_ids=[stream.id], user_ids=sorted(removed_ids)
                )
                _after(rt, tx, peer_event, peers)
            for user in removed:
                ref = SubscriptionRef(name=stream.name, stream_id=stream.id)
                _after(rt, tx, SubscriptionRemoveEvent(subscriptions=[ref]), [user.id])
            losing = [u.id for u in removed if not access.can_see_stream(u, stream, False)]
            if losing:
                # Clients drop the channel entirely; so does the state (no "unsubscribed").
                await sub_store.delete_inactive(tx, stream.id, losing)
                objects = await access.channel_objects(tx, [stream], rt.now())
                event = StreamDeleteEvent(streams=objects, stream_ids=[stream.id])
                _after(rt, tx, event, losing)
        await guest_access.publish_changes(rt, tx, guests)
    return change


async def check_subscription_property(
    rt: Runtime, user: UserRow, stream_id: int, prop: str, value: object
) -> None:
    """Validate one subscription property change and apply it."""
    async with rt.db.read() as conn:
        stream, sub = await access.access_stream_by_id(conn, user, stream_id)
    if sub is None:
        raise ZulipError(f"Not subscribed to channel ID {stream_id}")
    if prop == "color":
        value = ch.normalize_color("color", value)
    elif prop in ("in_home_view", "is_muted", "pin_to_top", *ch.NOTIFICATION_PROPERTIES):
        if not isinstance(value, bool):
            raise ZulipError(f"{prop} is not a boolean")
    else:
        raise ZulipError(f"Unknown subscription property: {prop}")
    await do_change_subscription_property(rt, user, stream, prop, value)


async def do_change_subscription_property(
    rt: Runtime, user: UserRow, stream: StreamRow, prop: str, value: object
) -> None:
    """Store the property; send subscription/update (twice for mutes, like Zulip)."""
    column, stored = prop, value
    if prop == "in_home_view":
        column, stored = "is_muted", not value
    events: list[JsonDict] = []
    if column == "is_muted":
        # zulip-compat: the deprecated in_home_view event comes first.
        events.append(_update_event(stream.id, "in_home_view", not stored))
    events.append(_update_event(stream.id, column, stored))
    async with rt.db.write() as tx:
        await sub_store.update_property(tx, stream.id, user.id, column, stored)
        for event in events:
            _after(rt, tx, event, [user.id])


def _update_event(stream_id: int, prop: str, value: object) -> JsonDict:
    event = SubscriptionUpdateEvent(stream_id=stream_id, property=prop, value=value)
    return public_copy(msgspec.to_builtins(event))

"""Channel events caused by account changes rather than by subscribing.

Deactivating users removes them from every subscriber list (`peer_remove`), reactivating adds
them back (`peer_add`), and a role change that changes which channels a user can see sends
that user `stream` create/delete, plus the subscribers of newly visible channels
(Zulip's `send_stream_events_for_role_update`).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from teamchat.actions.channels.channel_access import channel_objects, stream_audience
from teamchat.actions.channels.channel_state import visible_streams
from teamchat.events.types_streams import (
    StreamCreateEvent,
    StreamDeleteEvent,
    SubscriptionPeerAddEvent,
    SubscriptionPeerRemoveEvent,
)
from teamchat.records import StreamRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import streams as stream_store
from teamchat.store import subscriptions as sub_store
from teamchat.store.db import Conn, Tx


def _after(rt: Runtime, tx: Tx, event: object, audience: list[int]) -> None:
    payload = msgspec.to_builtins(event)
    tx.after_commit(lambda: rt.broker.publish(payload, audience))


async def publish_peer_changes(
    rt: Runtime, tx: Tx, users: Sequence[UserRow], *, added: bool
) -> None:
    """Queue peer_add (or peer_remove) for `users` in each channel they are subscribed to,
    for everyone else who can see that channel. Call after the users' is_active changed."""
    ids = {user.id for user in users}
    members: dict[int, set[int]] = {}
    for user in users:
        for stream_id in await sub_store.active_stream_ids(tx, user.id):
            members.setdefault(stream_id, set()).add(user.id)
    for stream_id in sorted(members):
        stream = await stream_store.get_stream_by_id(tx, stream_id)
        if stream is None:
            continue
        audience = [uid for uid in await stream_audience(tx, stream) if uid not in ids]
        if not audience:
            continue
        kind = SubscriptionPeerAddEvent if added else SubscriptionPeerRemoveEvent
        _after(rt, tx, kind(stream_ids=[stream_id], user_ids=sorted(members[stream_id])), audience)


async def accessible_streams(conn: Conn, user: UserRow) -> list[StreamRow]:
    """The channels whose metadata `user` can see now (before a role change)."""
    return await visible_streams(conn, user, include_archived=False)


async def publish_role_stream_changes(
    rt: Runtime, tx: Tx, user: UserRow, before: Sequence[StreamRow]
) -> None:
    """After `user`'s role changed: stream/create (then each channel's subscribers as
    peer_add) for channels they now see, stream/delete for those they no longer see."""
    now = await accessible_streams(tx, user)
    old_ids = {stream.id for stream in before}
    new_ids = {stream.id for stream in now}
    gained = [stream for stream in now if stream.id not in old_ids]
    lost = [stream for stream in before if stream.id not in new_ids]
    if gained:
        objects = await channel_objects(tx, gained, rt.now())
        _after(rt, tx, StreamCreateEvent(streams=objects), [user.id])
        subscribers = await sub_store.subscriber_ids(tx, [stream.id for stream in gained])
        for stream in gained:
            if subscribers.get(stream.id):
                event = SubscriptionPeerAddEvent(
                    stream_ids=[stream.id], user_ids=subscribers[stream.id]
                )
                _after(rt, tx, event, [user.id])
    if lost:
        objects = await channel_objects(tx, lost, rt.now())
        event_delete = StreamDeleteEvent(streams=objects, stream_ids=[s.id for s in lost])
        _after(rt, tx, event_delete, [user.id])

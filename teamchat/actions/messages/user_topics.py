"""Topic visibility policies (mute, unmute, follow): POST /user_topics, the legacy mute
endpoint, the `user_topics`/`muted_topics` register state, and the events that follow them.

Events: `muted_topics` (legacy, the full list) then `user_topic`, to the user's own clients.
"""

from __future__ import annotations

import msgspec

from teamchat.actions.channels import channel_access as access
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import ZulipError
from teamchat.events import rules_messages  # noqa: F401 (registers message event rules)
from teamchat.events.types_messages import MutedTopicsEvent, UserTopicEvent
from teamchat.lib.api_types import JsonDict
from teamchat.lib.messages import display_topic
from teamchat.records import StreamRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import streams as stream_store
from teamchat.store import user_topics as user_topic_store
from teamchat.store.db import Conn, Tx

INHERIT, MUTED, UNMUTED, FOLLOWED = 0, 1, 2, 3


async def muted_topics(conn: Conn, user_id: int) -> list[tuple[str, str, int]]:
    """The legacy list: [channel name, topic, time muted] for every muted topic."""
    rows = await user_topic_store.list_user_topics(conn, user_id)
    streams = {s.id: s for s in await stream_store.list_streams(conn, include_archived=False)}
    return [
        (streams[r.stream_id].name, r.topic_name, r.last_updated)
        for r in rows
        if r.visibility_policy == MUTED and r.stream_id in streams
    ]


async def set_policy_in_tx(
    rt: Runtime,
    tx: Tx,
    user: UserRow,
    stream: StreamRow,
    topic: str,
    policy: int,
    *,
    skip_muted_topics_event: bool = False,
) -> bool:
    """Store the user's policy for the topic inside `tx`; queue the events. False: no change.

    `skip_muted_topics_event`: another change follows in the same transaction and sends the
    legacy list once (Zulip's order for a moved topic: user_topic, muted_topics, user_topic).
    """
    current = await user_topic_store.get_user_topic(tx, user.id, stream.id, topic)
    if (current.visibility_policy if current else INHERIT) == policy:
        return False
    now = rt.now()
    name = current.topic_name if current is not None and policy == INHERIT else topic
    await user_topic_store.set_policy(tx, user.id, stream.id, topic, policy, now)
    legacy = MutedTopicsEvent(muted_topics=await muted_topics(tx, user.id))
    event = UserTopicEvent(
        stream_id=stream.id, topic_name=name, last_updated=now, visibility_policy=policy
    )
    legacy_payload, payload = msgspec.to_builtins(legacy), msgspec.to_builtins(event)
    if not skip_muted_topics_event:
        tx.after_commit(lambda: rt.broker.publish(legacy_payload, [user.id]))
    tx.after_commit(lambda: rt.broker.publish(payload, [user.id]))
    return True


async def check_set_user_topic(
    rt: Runtime, user: UserRow, stream_id: int, topic: str, policy: int
) -> None:
    """POST /user_topics: validate the channel (any channel for INHERIT) and store."""
    if policy not in (INHERIT, MUTED, UNMUTED, FOLLOWED):
        raise ZulipError("Invalid visibility_policy")
    async with rt.db.read() as conn:
        if policy == INHERIT:
            stream = await stream_store.get_stream_by_id(conn, stream_id)
            if stream is None:
                raise ZulipError("Invalid channel ID")
        else:
            stream, _ = await access.access_stream_by_id(conn, user, stream_id)
    async with rt.db.write() as tx:
        await set_policy_in_tx(rt, tx, user, stream, topic, policy)


async def check_legacy_mute(
    rt: Runtime, user: UserRow, stream: StreamRow, topic: str, *, mute: bool
) -> None:
    """PATCH /users/me/subscriptions/muted_topics (op add/remove)."""
    async with rt.db.write() as tx:
        current = await user_topic_store.get_user_topic(tx, user.id, stream.id, topic)
        is_muted = current is not None and current.visibility_policy == MUTED
        if mute and is_muted:
            raise ZulipError("Topic already muted")
        if not mute and not is_muted:
            raise ZulipError("Topic is not muted")
        await set_policy_in_tx(rt, tx, user, stream, topic, MUTED if mute else INHERIT)


@state_fetcher("user_topic")
async def _user_topics_state(ctx: StateContext) -> None:
    rows = await user_topic_store.list_user_topics(ctx.conn, ctx.user.id)
    active = {s.id for s in await stream_store.list_streams(ctx.conn, include_archived=False)}
    topics: list[JsonDict] = [
        {
            "stream_id": r.stream_id,
            "topic_name": display_topic(r.topic_name, ctx.caps.empty_topic_name),
            "last_updated": r.last_updated,
            "visibility_policy": r.visibility_policy,
        }
        for r in rows
        if r.stream_id in active
    ]
    ctx.state["user_topics"] = topics


@state_fetcher("muted_topics")
async def _muted_topics_state(ctx: StateContext) -> None:
    # zulip-compat: a client that names user_topic explicitly gets no legacy muted_topics.
    if ctx.fetch_event_types is not None and "user_topic" in ctx.fetch_event_types:
        return
    ctx.state["muted_topics"] = [list(t) for t in await muted_topics(ctx.conn, ctx.user.id)]

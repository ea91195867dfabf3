"""The unread-message state clients keep: `unread_msgs` in the register state, and the
`message_details` of read-flag removals. Zulip's get_raw_unread_data + aggregate_unread_data.
"""

from __future__ import annotations

from typing import Any

import msgspec

from teamchat.actions.messages.user_topics import FOLLOWED, MUTED, UNMUTED
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.lib import flags as fl
from teamchat.lib.api_types import JsonDict
from teamchat.lib.messages import display_topic
from teamchat.store import message_flags as flag_store
from teamchat.store import messages as message_store
from teamchat.store import subscriptions as sub_store
from teamchat.store import user_topics as user_topic_store
from teamchat.store.db import Conn

# zulip-compat: MAX_UNREAD_MESSAGES; beyond it old_unreads_missing is true.
MAX_UNREAD_MESSAGES = 50000


class Muting(msgspec.Struct, kw_only=True):
    """A user's muted channels and topic policies, to tell muted unread messages apart."""

    muted_streams: set[int]
    policies: dict[tuple[int, str], int]

    def is_muted(self, stream_id: int, topic: str) -> bool:
        policy = self.policies.get((stream_id, topic.lower()), 0)
        if stream_id in self.muted_streams:
            return policy not in (UNMUTED, FOLLOWED)
        return policy == MUTED


async def load_muting(conn: Conn, user_id: int) -> Muting:
    """The user's muted channels and topic policies."""
    subs = await sub_store.list_user_subscriptions(conn, user_id)
    topics = await user_topic_store.list_user_topics(conn, user_id)
    return Muting(
        muted_streams={s.stream_id for s in subs if s.active and s.is_muted},
        policies={(t.stream_id, t.topic_name.lower()): t.visibility_policy for t in topics},
    )


def _conversation(participants: list[int], user_id: int) -> tuple[str, object]:
    """("pm", other user id) for one-on-one (or self) messages, else ("huddle", ids string)."""
    others = [uid for uid in participants if uid != user_id]
    if len(others) <= 1:
        return "pm", others[0] if others else user_id
    return "huddle", ",".join(str(uid) for uid in sorted(participants))


class _Buckets(msgspec.Struct, kw_only=True):
    pms: dict[int, list[int]] = msgspec.field(default_factory=dict)
    huddles: dict[str, list[int]] = msgspec.field(default_factory=dict)
    streams: dict[tuple[int, str], list[int]] = msgspec.field(default_factory=dict)
    mentions: list[int] = msgspec.field(default_factory=list)
    unmuted_stream_messages: int = 0


async def _buckets(conn: Conn, user_id: int, rows: list[Any]) -> _Buckets:
    """Unread rows (oldest first) sorted into conversations, with mentions and mute status."""
    muting = await load_muting(conn, user_id)
    participants = await message_store.dm_participants(
        conn, {int(r["recipient_id"]) for r in rows if r["stream_id"] is None}
    )
    buckets = _Buckets()
    for row in rows:
        message_id, bits = int(row["message_id"]), int(row["flags"])
        muted = False
        if row["stream_id"] is not None:
            stream_id, topic = int(row["stream_id"]), str(row["topic"])
            buckets.streams.setdefault((stream_id, topic), []).append(message_id)
            muted = muting.is_muted(stream_id, topic)
            buckets.unmuted_stream_messages += not muted
        else:
            kind, key = _conversation(participants[int(row["recipient_id"])], user_id)
            if kind == "pm":
                buckets.pms.setdefault(int(str(key)), []).append(message_id)
            else:
                buckets.huddles.setdefault(str(key), []).append(message_id)
        wildcard = bits & (fl.STREAM_WILDCARD_MENTIONED | fl.TOPIC_WILDCARD_MENTIONED)
        if bits & fl.MENTIONED or (wildcard and not muted):
            buckets.mentions.append(message_id)
    return buckets


async def unread_msgs(conn: Conn, user_id: int, allow_empty_topic_name: bool) -> JsonDict:
    """The `unread_msgs` register state."""
    rows = await flag_store.unread_rows(conn, user_id, MAX_UNREAD_MESSAGES)
    b = await _buckets(conn, user_id, list(reversed(rows)))
    direct = sum(len(ids) for ids in [*b.pms.values(), *b.huddles.values()])
    return {
        "pms": [
            {"other_user_id": uid, "sender_id": uid, "unread_message_ids": ids}
            for uid, ids in sorted(b.pms.items())
        ],
        "streams": [
            {
                "stream_id": stream_id,
                "topic": display_topic(topic, allow_empty_topic_name),
                "unread_message_ids": ids,
            }
            for (stream_id, topic), ids in sorted(b.streams.items())
        ],
        "huddles": [
            {"user_ids_string": key, "unread_message_ids": ids}
            for key, ids in sorted(b.huddles.items())
        ],
        "mentions": b.mentions,
        "count": direct + b.unmuted_stream_messages,
        "old_unreads_missing": len(rows) == MAX_UNREAD_MESSAGES,
    }


async def message_details(conn: Conn, user_id: int, message_ids: list[int]) -> JsonDict:
    """What clients need to put messages back into their unread state (read removed)."""
    messages = await message_store.list_messages(conn, message_ids)
    flags = await flag_store.user_flags(conn, user_id, message_ids)
    muting = await load_muting(conn, user_id)
    participants = await message_store.dm_participants(
        conn, {m.recipient_id for m in messages if m.stream_id is None}
    )
    details: JsonDict = {}
    for message in messages:
        bits = flags.get(message.id, 0)
        item: JsonDict
        if message.stream_id is not None:
            unmuted = not muting.is_muted(message.stream_id, message.topic)
            item = {
                "type": "stream",
                "stream_id": message.stream_id,
                "topic": message.topic,
                "unmuted_stream_msg": unmuted,
            }
            wildcard = bool(bits & (fl.STREAM_WILDCARD_MENTIONED | fl.TOPIC_WILDCARD_MENTIONED))
            mentioned = bool(bits & fl.MENTIONED) or (wildcard and unmuted)
        else:
            others = [u for u in participants[message.recipient_id] if u != user_id]
            item = {"type": "private", "user_ids": sorted(others)}
            mentioned = bool(bits & fl.ANY_MENTION)
        if mentioned:
            item["mentioned"] = True
        details[str(message.id)] = item
    return details


@state_fetcher("update_message_flags")
async def _unread_state(ctx: StateContext) -> None:
    ctx.state["unread_msgs"] = await unread_msgs(ctx.conn, ctx.user.id, ctx.caps.empty_topic_name)

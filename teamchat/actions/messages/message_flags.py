"""Message flags: POST /messages/flags, /messages/flags/narrow, mark_all/stream/topic_as_read;
the `starred_messages` and `recent_private_conversations` register state.

Events: `update_message_flags` to the user's own clients (with `message_details` when
messages become unread; `all: true` for mark-all-as-read).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from teamchat.actions.channels import channel_access as access
from teamchat.actions.messages import message_fetch
from teamchat.actions.messages.message_common import has_stream_message_access
from teamchat.actions.messages.unread import message_details
from teamchat.actions.notifications import mobile_push
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import ZulipError
from teamchat.events import rules_messages  # noqa: F401 (registers message event rules)
from teamchat.events.types_messages import (
    UpdateMessageFlagsAddEvent,
    UpdateMessageFlagsRemoveEvent,
)
from teamchat.lib import flags as fl
from teamchat.lib.api_types import JsonDict
from teamchat.lib.narrow import NarrowTerm
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import message_flags as flag_store
from teamchat.store import messages as message_store
from teamchat.store import streams as stream_store
from teamchat.store import subscriptions as sub_store
from teamchat.store.db import Conn, Tx

MAX_MESSAGES_PER_UPDATE = 5000
MARK_ALL_BATCH = 2000
MAX_STARRED = 10000
RECENT_CONVERSATIONS_LIMIT = 1000


def check_flag(op: str, flag: str) -> None:
    """Raise Zulip's error unless `flag` is editable and `op` is add or remove."""
    if flag not in fl.FLAG_BITS and flag != "wildcard_mentioned":
        raise ZulipError(f"Invalid flag: '{flag}'")
    if flag in fl.NON_EDITABLE:
        raise ZulipError(f"Flag not editable: '{flag}'")
    if op not in ("add", "remove"):
        raise ZulipError(f"Invalid message flag operation: '{op}'")


async def _checked_ids(conn: Conn, user: UserRow, op: str, flag: str, ids: list[int]) -> tuple[
    list[int], list[int]
]:  # fmt: skip
    """(message ids to change, accessible messages without a row for the user)."""
    if flag == "read" and op == "remove":
        # zulip-compat: unread messages must be in channels the user is subscribed to.
        subscribed = await sub_store.active_stream_ids(conn, user.id)
        rows = await message_store.list_messages(conn, ids)
        ids = [m.id for m in rows if m.stream_id is None or m.stream_id in subscribed]
    have = await flag_store.user_flags(conn, user.id, ids)
    missing = [mid for mid in ids if mid not in have]
    for message in await message_store.list_messages(conn, missing):
        stream = (
            await stream_store.get_stream_by_id(conn, message.stream_id)
            if message.stream_id is not None
            else None
        )
        if stream is None or not await has_stream_message_access(
            conn, user, stream, has_user_message=False
        ):
            raise ZulipError("Invalid message(s)")
    if len(await message_store.list_messages(conn, missing)) != len(missing):
        raise ZulipError("Invalid message(s)")
    historical = missing if op == "add" and flag != "read" else []
    return [mid for mid in ids if mid in have or mid in historical], historical


async def check_update_message_flags(
    rt: Runtime, user: UserRow, op: str, flag: str, message_ids: Sequence[int]
) -> int:
    """POST /messages/flags: change one flag on some messages; return how many changed."""
    check_flag(op, flag)
    async with rt.db.read() as conn:
        ids, historical = await _checked_ids(conn, user, op, flag, sorted(set(message_ids)))
    return await do_update_message_flags(rt, user, op, flag, ids, historical=historical)


async def do_update_message_flags(
    rt: Runtime,
    user: UserRow,
    op: str,
    flag: str,
    message_ids: Sequence[int],
    *,
    historical: Sequence[int] = (),
) -> int:
    """Change the flag inside one transaction and tell the user's clients."""
    bit = fl.FLAG_BITS[flag]
    async with rt.db.write() as tx:
        if historical:
            await flag_store.add_user_messages(tx, [user.id], list(historical), fl.HISTORICAL_FLAGS)
        changed = await flag_store.update_user_flag(tx, user.id, message_ids, bit, add=op == "add")
        if not changed:
            return 0
        if flag == "read" and op == "add":
            await mobile_push.remove_notifications(rt, tx, user, changed)
        event: JsonDict
        if op == "add":
            event = msgspec.to_builtins(
                UpdateMessageFlagsAddEvent(flag=flag, messages=changed, all=False)
            )
        else:
            details = None
            if flag == "read":
                details = await message_details(tx, user.id, changed)
            remove = UpdateMessageFlagsRemoveEvent(flag=flag, messages=changed, all=False)
            event = msgspec.to_builtins(remove)
            if details is not None:
                event["message_details"] = details
        # zulip-compat: `operation` is the deprecated name of `op`, still read by old clients.
        event["operation"] = op
        tx.after_commit(lambda: rt.broker.publish(event, [user.id]))
    return len(changed)


async def check_update_flags_for_narrow(
    rt: Runtime,
    user: UserRow,
    narrow: list[NarrowTerm],
    anchor: message_fetch.Anchor,
    op: str,
    flag: str,
) -> JsonDict:
    """POST /messages/flags/narrow: the flag on a window of a narrow (at most 5000)."""
    check_flag(op, flag)
    if not anchor.include_anchor and anchor.num_before > 0 and anchor.num_after > 0:
        raise ZulipError("The anchor can only be excluded at an end of the range")
    num_before = min(
        anchor.num_before,
        max(MAX_MESSAGES_PER_UPDATE - anchor.num_after, MAX_MESSAGES_PER_UPDATE // 2),
    )
    num_after = min(anchor.num_after, MAX_MESSAGES_PER_UPDATE - num_before)
    window = msgspec.structs.replace(anchor, num_before=num_before, num_after=num_after)
    async with rt.db.read() as conn:
        found, ids = await message_fetch.window_ids(conn, user, narrow, window)
        ids_to_change, historical = await _checked_ids(conn, user, op, flag, ids)
    updated = await do_update_message_flags(
        rt, user, op, flag, ids_to_change, historical=historical
    )
    return {
        "processed_count": len(ids),
        "updated_count": updated,
        "first_processed_id": ids[0] if ids else None,
        "last_processed_id": ids[-1] if ids else None,
        "found_oldest": found["found_oldest"],
        "found_newest": found["found_newest"],
    }


async def do_mark_all_as_read(rt: Runtime, user: UserRow) -> int:
    """Mark every message read, in batches; one `all: true` event at the end."""
    count = 0
    while True:
        async with rt.db.write() as tx:
            ids = await flag_store.all_unread_ids(tx, user.id, MARK_ALL_BATCH)
            read = await flag_store.update_user_flag(tx, user.id, ids, fl.READ, add=True)
            await mobile_push.remove_notifications(rt, tx, user, read)
            count += len(read)
            if len(ids) < MARK_ALL_BATCH:
                event = msgspec.to_builtins(
                    UpdateMessageFlagsAddEvent(flag="read", messages=[], all=True)
                )
                event["operation"] = "add"
                _publish_to(rt, tx, event, user.id)
                return count


async def check_mark_stream_as_read(
    rt: Runtime, user: UserRow, stream_id: int, topic: str | None
) -> int:
    """mark_stream_as_read / mark_topic_as_read."""
    async with rt.db.read() as conn:
        stream, _ = await access.access_stream_by_id(conn, user, stream_id)
        if topic is not None:
            mine = await message_store.topic_message_ids(
                conn, stream.recipient_id, topic, visible_to=user.id
            )
            if not mine:
                raise ZulipError(f"No such topic '{topic}'")
        ids = await flag_store.unread_ids_in(
            conn, user.id, stream.recipient_id, topic, limit=MAX_MESSAGES_PER_UPDATE * 20
        )
    # Bounded transactions: a channel with 100,000 unread messages must not hold the writer
    # for all of them at once (each batch sends its own update_message_flags event).
    count = 0
    for start in range(0, len(ids), MARK_ALL_BATCH):
        batch = ids[start : start + MARK_ALL_BATCH]
        count += await do_update_message_flags(rt, user, "add", "read", batch)
    return count


def _publish_to(rt: Runtime, tx: Tx, event: JsonDict, user_id: int) -> None:
    tx.after_commit(lambda: rt.broker.publish(event, [user_id]))


@state_fetcher("starred_messages")
async def _starred_state(ctx: StateContext) -> None:
    ctx.state["starred_messages"] = await flag_store.flagged_ids(
        ctx.conn, ctx.user.id, fl.STARRED, MAX_STARRED
    )


@state_fetcher("recent_private_conversations")
async def _recent_conversations_state(ctx: StateContext) -> None:
    rows = await flag_store.recent_dm_conversations(
        ctx.conn, ctx.user.id, RECENT_CONVERSATIONS_LIMIT
    )
    participants = await message_store.dm_participants(ctx.conn, [r for r, _ in rows])
    conversations = [
        {
            "user_ids": [u for u in participants[recipient_id] if u != ctx.user.id],
            "max_message_id": max_id,
        }
        for recipient_id, max_id in rows
    ]
    conversations.sort(key=lambda c: -int(c["max_message_id"]))  # type: ignore[call-overload]
    ctx.state["recent_private_conversations"] = conversations

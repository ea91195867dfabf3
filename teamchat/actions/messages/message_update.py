"""Storing a checked message edit: content, topic and channel moves with edit history,
changed user_message rows, migrated topic policies, and the `update_message` event.

Events: `update_message` to users with the message (and, for channels with shared history,
their subscribers); `delete_message` to users who lose access by a move; `user_topic` when a
whole topic moves.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

import msgspec

from teamchat.actions.channels import channel_access as access
from teamchat.actions.messages import hook_modules, thumbnails
from teamchat.actions.messages.message_common import links_for_topic
from teamchat.actions.messages.user_topics import (
    FOLLOWED,
    INHERIT,
    MUTED,
    UNMUTED,
    set_policy_in_tx,
)
from teamchat.events import rules_messages  # noqa: F401 (registers message event rules)
from teamchat.events.types_messages import DeleteMessageEvent
from teamchat.lib import flags as fl
from teamchat.lib import user_settings
from teamchat.lib.api_types import JsonDict
from teamchat.lib.messages import RESOLVED_TOPIC_PREFIX
from teamchat.records import MessageRow, RealmRow, StreamRow, UserRow
from teamchat.render.markdown import Rendered
from teamchat.runtime import Runtime
from teamchat.store import message_flags as flag_store
from teamchat.store import messages as message_store
from teamchat.store import subscriptions as sub_store
from teamchat.store import user_topics as user_topic_store
from teamchat.store import users as user_store
from teamchat.store.db import Tx

__all__ = ["EditPlan", "Rendered", "do_update_message"]
_MENTION_BITS = fl.ANY_MENTION | fl.HAS_ALERT_WORD


class EditPlan(msgspec.Struct, kw_only=True):
    """A checked edit: new content (rendered) and/or a new place for the message."""

    content: str | None = None
    rendered: Rendered | None = None
    group_member_ids: set[int] = msgspec.field(default_factory=set)
    stream: StreamRow | None = None
    target_stream: StreamRow | None = None
    topic: str | None = None
    propagate_mode: str = "change_one"
    # The organization URL the editor used (links in notifications about the edit).
    realm_url: str = ""


class Edited(msgspec.Struct, kw_only=True):
    """What edit hooks see of a channel message whose new content mentions people who were
    not mentioned before (inside the edit's transaction)."""

    realm: RealmRow
    message: MessageRow  # as it was before the edit
    rendered_html: str  # the new content
    stream: StreamRow
    topic: str
    realm_url: str
    # The newly mentioned recipients' new flags.
    flags: dict[int, int]


EditHook = Callable[[Runtime, Tx, Edited], Awaitable[None]]
# Notifications register here (missed-message emails, mobile push), so this module needs no
# import of theirs; hook_modules.py names them and loads them when serving.
EDIT_HOOKS: list[EditHook] = []


def edit_hook(hook: EditHook) -> EditHook:
    EDIT_HOOKS.append(hook)
    return hook


def _resolve_only(old: str, new: str | None) -> bool:
    if new is None:
        return False
    n = len(RESOLVED_TOPIC_PREFIX)
    return (new.startswith(RESOLVED_TOPIC_PREFIX) and new[n:] == old) or (
        old.startswith(RESOLVED_TOPIC_PREFIX) and old[n:] == new
    )


async def do_update_message(
    rt: Runtime, realm: RealmRow, user: UserRow, message: MessageRow, plan: EditPlan
) -> int:
    """Apply the edit in one transaction; return how many messages changed."""
    now = rt.now()
    event: JsonDict = {
        "type": "update_message",
        "user_id": user.id,
        "edit_timestamp": now,
        "message_id": message.id,
        "rendering_only": False,
    }
    entry: JsonDict = {"user_id": user.id, "timestamp": now}
    async with rt.db.write() as tx:
        if plan.content is not None:
            gained = await _edit_content(tx, message, plan, event, entry, now)
            assert plan.rendered is not None
            await thumbnails.show_ready_thumbnails(rt, tx, message.id, plan.rendered)
            if gained and plan.stream is not None:
                assert plan.rendered is not None
                edited = Edited(
                    realm=realm, message=message, rendered_html=plan.rendered.html,
                    stream=plan.target_stream or plan.stream, topic=plan.topic or message.topic,
                    realm_url=plan.realm_url, flags=gained,
                )  # fmt: skip
                for hook in hook_modules.load_into(EDIT_HOOKS):
                    await hook(rt, tx, edited)
        if message.stream_id is None:
            await message_store.append_edit_history(
                tx, [message.id], msgspec.json.encode(entry).decode()
            )
            event["message_ids"] = [message.id]
            await _publish_update(rt, tx, message.id, event, extra_readers=[])
            return 1
        assert plan.stream is not None and plan.target_stream is not None
        event["stream_name"] = plan.stream.name
        event["stream_id"] = plan.stream.id
        changed = [message.id]
        losers: list[int] = []
        if plan.topic is not None or plan.target_stream.id != plan.stream.id:
            changed, losers = await _move(rt, tx, user, message, plan, event, entry, now)
        else:
            await message_store.append_edit_history(
                tx, [message.id], msgspec.json.encode(entry).decode()
            )
        event["message_ids"] = sorted(changed)
        readers = await _history_readers(tx, message, plan, losers)
        await _publish_update(rt, tx, message.id, event, extra_readers=readers)
    return len(changed)


async def _edit_content(
    tx: Tx, message: MessageRow, plan: EditPlan, event: JsonDict, entry: JsonDict, now: int
) -> dict[int, int]:
    """Store the new content and recompute mention flags; return the new flags of those it
    newly mentions (or alerts), who have not read the message."""
    rendered = plan.rendered
    assert rendered is not None and plan.content is not None
    entry.update(prev_content=message.content, prev_rendered_content=message.rendered_content)
    event.update(
        orig_content=message.content,
        orig_rendered_content=message.rendered_content,
        content=plan.content,
        rendered_content=rendered.html,
        is_me_message=rendered.is_me_message,
    )
    await message_store.update_content(
        tx,
        message.id,
        content=plan.content,
        rendered_content=rendered.html,
        has_link=rendered.has_link,
        has_image=rendered.has_image,
        has_attachment=rendered.has_attachment,
        is_me_message=rendered.is_me_message,
        last_edit_time=now,
    )
    participants: set[int] = set()
    if rendered.topic_wildcard:
        participants = await message_store.topic_participants(
            tx, message.recipient_id, message.topic
        )
        if message.stream_id is None:
            participants = set(await flag_store.message_user_ids(tx, message.id))
    mentioned = set(rendered.mentioned_user_ids) | plan.group_member_ids
    current = await flag_store.message_user_flags(tx, [message.id])
    changes = {}
    for user_id, by_message in current.items():
        old = by_message[message.id]
        bits = old & ~_MENTION_BITS
        bits |= fl.MENTIONED if user_id in mentioned else 0
        bits |= fl.STREAM_WILDCARD_MENTIONED if rendered.stream_wildcard else 0
        bits |= fl.TOPIC_WILDCARD_MENTIONED if user_id in participants else 0
        bits |= fl.HAS_ALERT_WORD if user_id in rendered.alert_word_user_ids else 0
        if bits != old:
            changes[user_id] = bits
    await flag_store.set_user_flags(tx, message.id, changes)
    return {
        uid: bits
        for uid, bits in changes.items()
        if bits & _MENTION_BITS & ~current[uid][message.id] and not bits & fl.READ
    }


async def _move(
    rt: Runtime, tx: Tx, user: UserRow, message: MessageRow, plan: EditPlan,
    event: JsonDict, entry: JsonDict, now: int,
) -> tuple[list[int], list[int]]:  # fmt: skip
    """Move the selected messages; return (their ids, users who lost access)."""
    assert plan.stream is not None and plan.target_stream is not None
    old, new = plan.stream, plan.target_stream
    topic = message.topic if plan.topic is None else plan.topic
    event["propagate_mode"] = plan.propagate_mode
    event["orig_subject"] = message.topic
    move_entry: JsonDict = {"user_id": user.id, "timestamp": now}
    if plan.topic is not None:
        event["subject"] = plan.topic
        event["topic_links"] = await links_for_topic(tx, plan.topic)
        move_entry.update(prev_topic=message.topic, topic=plan.topic)
    if new.id != old.id:
        event["new_stream_id"] = new.id
        move_entry.update(prev_stream=old.id, stream=new.id)
    entry.update(move_entry)
    visible_to, changed = await _messages_to_move(tx, user, message, plan)
    target_had_messages = bool(
        await message_store.topic_message_ids(tx, new.recipient_id, topic, visible_to=None)
    )
    moved_time = None if new.id == old.id and _resolve_only(message.topic, plan.topic) else now
    await message_store.move_messages(
        tx, changed, stream_id=new.id, recipient_id=new.recipient_id, topic=topic,
        last_moved_time=moved_time,
    )  # fmt: skip
    await message_store.append_edit_history(tx, [message.id], msgspec.json.encode(entry).decode())
    others = [mid for mid in changed if mid != message.id]
    if others:
        await message_store.append_edit_history(
            tx, others, msgspec.json.encode(move_entry).decode()
        )
    losers: list[int] = []
    if new.id != old.id:
        losers = await _change_access(rt, tx, old, new, message.topic, changed)
    remaining = await message_store.topic_message_ids(
        tx, message.recipient_id, message.topic, visible_to=visible_to
    )
    if plan.propagate_mode == "change_all" or not remaining:
        await _migrate_topic_policies(
            rt, tx, old, message.topic, new, topic, losers, target_had_messages
        )
    else:
        await _maybe_follow_moved_topic(rt, tx, message, new, topic, losers)
    return changed, losers


async def _messages_to_move(
    tx: Tx, user: UserRow, message: MessageRow, plan: EditPlan
) -> tuple[int | None, list[int]]:
    """(whose rows limit what the user sees of the topic, the ids propagate_mode selects)."""
    assert plan.stream is not None
    sub = await sub_store.get_subscription(tx, user.id, plan.stream.id)
    history = access.can_access_history(user, plan.stream, sub is not None and sub.active)
    visible_to = None if history else user.id
    if plan.propagate_mode == "change_one":
        return visible_to, [message.id]
    min_id = message.id if plan.propagate_mode == "change_later" else 0
    changed = await message_store.topic_message_ids(
        tx, message.recipient_id, message.topic, min_id=min_id, visible_to=visible_to
    )
    return visible_to, changed


async def _change_access(
    rt: Runtime, tx: Tx, old: StreamRow, new: StreamRow, topic: str, changed: list[int]
) -> list[int]:
    """Move user_message rows with the messages; return users who lost access."""
    old_subscribers = await sub_store.all_subscriber_ids(tx, old.id)
    new_subscribers = set((await sub_store.subscriber_ids(tx, [new.id])).get(new.id, []))
    losing_rows = old_subscribers - new_subscribers
    if new.is_public:
        guests = {u.id for u in await user_store.list_users(tx, user_ids=sorted(losing_rows))
                  if u.is_guest}  # fmt: skip
        losing_access = sorted(guests)
    else:
        losing_access = sorted(losing_rows)
    if not new.history_public_to_subscribers:
        await flag_store.add_user_messages(tx, new_subscribers, changed, fl.READ)
    await flag_store.delete_user_messages(tx, losing_rows, changed)
    if losing_access:
        event = DeleteMessageEvent(
            message_type="stream", message_ids=sorted(changed), stream_id=old.id, topic=topic
        )
        payload = msgspec.to_builtins(event)
        tx.after_commit(lambda: rt.broker.publish(payload, losing_access))
    return losing_access


def policy_after_merge(orig: int, target: int) -> int:
    """Zulip's get_visibility_policy_after_merge: the more visible policy wins."""
    policies = {orig, target}
    for policy in (FOLLOWED, UNMUTED, INHERIT):
        if policy in policies:
            return policy
    return MUTED


async def _migrate_topic_policies(
    rt: Runtime, tx: Tx, old: StreamRow, old_topic: str, new: StreamRow, new_topic: str,
    losers: Sequence[int], target_had_messages: bool,
) -> None:  # fmt: skip
    """A whole topic moved: users' policies move with it (merged with the target's)."""
    orig = await user_topic_store.list_topic_policies(tx, old.id, old_topic)
    target = await user_topic_store.list_topic_policies(tx, new.id, new_topic)
    for user_id in sorted(set(orig) | set(target)):
        user = await user_store.get_user_by_id(tx, user_id)
        assert user is not None
        orig_policy = orig[user_id].visibility_policy if user_id in orig else INHERIT
        target_policy = target[user_id].visibility_policy if user_id in target else INHERIT
        policy = orig_policy
        if target_had_messages:
            policy = policy_after_merge(orig_policy, target_policy)
        moves = user_id not in losers and policy != target_policy
        if orig_policy != INHERIT:
            await set_policy_in_tx(
                rt, tx, user, old, old_topic, INHERIT, skip_muted_topics_event=moves
            )
        if moves:
            await set_policy_in_tx(rt, tx, user, new, new_topic, policy)


async def _maybe_follow_moved_topic(
    rt: Runtime, tx: Tx, message: MessageRow, new: StreamRow, topic: str, losers: list[int]
) -> None:
    """Part of a topic moved: the sender follows the new topic if their message starts it."""
    sender = await user_store.get_user_by_id(tx, message.sender_id)
    if sender is None or sender.is_bot or sender.id in losers:
        return
    ids = await message_store.topic_message_ids(tx, new.recipient_id, topic)
    if ids and ids[0] != message.id:
        return
    settings = user_settings.load(sender.settings_json)
    initiation = user_settings.AUTOMATICALLY_CHANGE_VISIBILITY_POLICY_ON_INITIATION
    if settings.automatically_follow_topics_policy == initiation:
        await set_policy_in_tx(rt, tx, sender, new, topic, FOLLOWED)
    elif settings.automatically_unmute_topics_in_muted_streams_policy == initiation:
        sub = await sub_store.get_subscription(tx, sender.id, new.id)
        if sub is not None and sub.active and sub.is_muted:
            await set_policy_in_tx(rt, tx, sender, new, topic, UNMUTED)


async def _history_readers(
    tx: Tx, message: MessageRow, plan: EditPlan, losers: list[int]
) -> list[int]:
    """Subscribers who may see the message without a row (shared history) get the event too."""
    if plan.stream is None or plan.target_stream is None:
        return []
    if not plan.stream.history_public_to_subscribers:
        return []
    ids = set(
        (await sub_store.subscriber_ids(tx, [plan.target_stream.id])).get(plan.target_stream.id, [])
    )
    if plan.target_stream.id != plan.stream.id:
        ids |= set((await sub_store.subscriber_ids(tx, [plan.stream.id])).get(plan.stream.id, []))
    return sorted(ids - set(losers))


async def _publish_update(
    rt: Runtime, tx: Tx, message_id: int, event: JsonDict, *, extra_readers: list[int]
) -> None:
    holders = await flag_store.message_user_flags(tx, [message_id])
    audience: dict[int, JsonDict] = {
        user_id: {"flags": fl.flag_names(by_message[message_id])}
        for user_id, by_message in holders.items()
    }
    for user_id in extra_readers:
        audience.setdefault(user_id, {"flags": ["read"]})
    tx.after_commit(lambda: rt.broker.publish(event, audience))

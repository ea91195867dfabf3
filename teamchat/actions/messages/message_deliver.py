"""Delivering a checked message: one transaction stores the message, every recipient's flags,
channel traffic and automatic topic policies; then the events go out.

Events: `message` to every recipient (sender included) with their own flags; `stream` update
for a channel's first message or renewed activity; `user_topic` for automatic follows.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import msgspec

from teamchat.actions.channels import channel_access as access
from teamchat.actions.messages import hook_modules
from teamchat.actions.messages.message_common import links_for_topic
from teamchat.actions.messages.uploads import link_attachments
from teamchat.actions.messages.user_topics import (
    FOLLOWED,
    INHERIT,
    MUTED,
    UNMUTED,
    set_policy_in_tx,
)
from teamchat.actions.people import guest_access
from teamchat.actions.people.user_access import access_restricted, user_ids_who_can_access
from teamchat.events import rules_messages as rules
from teamchat.events.types_streams import StreamUpdateEvent
from teamchat.lib import channels as ch
from teamchat.lib import flags as fl
from teamchat.lib import user_settings, wire
from teamchat.lib.api_types import JsonDict
from teamchat.lib.message_wire import MessageExtras, message_dict
from teamchat.records import (
    EmailVisibility,
    MessageRow,
    RealmRow,
    StreamRow,
    SubmessageRow,
    UserRow,
)
from teamchat.render.markdown import Rendered
from teamchat.runtime import Runtime
from teamchat.store import message_context as context_store
from teamchat.store import messages as message_store
from teamchat.store import streams as stream_store
from teamchat.store import submessages as submessage_store
from teamchat.store import subscriptions as sub_store
from teamchat.store import user_topics as user_topic_store
from teamchat.store import users as user_store
from teamchat.store.db import Tx

__all__ = ["Draft", "Rendered", "SentMessage", "do_send_message"]


class Draft(msgspec.Struct, kw_only=True):
    """A checked message: where it goes, its content and how it was rendered."""

    stream: StreamRow | None
    topic: str
    participant_ids: list[int]
    content: str
    rendered: Rendered
    group_member_ids: set[int]
    client: str
    read_by_sender: bool
    # Other users for whom it arrives already read.
    read_by: frozenset[int] = frozenset()
    queue_id: str | None = None
    local_id: str | None = None
    # The organization URL the sender used (links in notices about the message).
    realm_url: str = ""
    # The widget submessage's content ({widget_type, extra_data}) for /poll, /todo, zform.
    widget: JsonDict | None = None
    # Read with the checks, in their snapshot (None: read in the transaction): the topic's
    # links, and whether guests may access only some users.
    topic_links: list[dict[str, str]] | None = None
    access_restricted: bool | None = None
    # Writes that must commit with the message (a scheduled message leaving its queue).
    with_message: Callable[[Tx], Awaitable[None]] | None = None


class SentMessage(msgspec.Struct, kw_only=True):
    id: int
    automatic_new_visibility_policy: int | None = None


class Delivered(msgspec.Struct, kw_only=True):
    """What send hooks see of a message being delivered (inside its transaction)."""

    realm: RealmRow
    sender: UserRow
    draft: Draft
    # The message object, as every recipient's event carries it (rendered content).
    message: JsonDict
    # Each recipient's flag bits (teamchat.lib.flags).
    flags: dict[int, int]


SendHook = Callable[[Runtime, Tx, Delivered], Awaitable[None]]
# Modules that react to every delivered message register here (outgoing webhooks), so this
# module needs no import of theirs; hook_modules.py names them and loads them when serving.
SEND_HOOKS: list[SendHook] = []


def send_hook(hook: SendHook) -> SendHook:
    SEND_HOOKS.append(hook)
    return hook


async def do_send_message(
    rt: Runtime, realm: RealmRow, sender: UserRow, draft: Draft
) -> SentMessage:
    """Store the message and its user_message rows; publish after commit."""
    now = rt.now()
    stream = draft.stream
    async with rt.db.write() as tx:
        if stream is not None:
            recipient_id = stream.recipient_id
            guests = guest_access.GuestAccess(before={})
        else:
            guests = await guest_access.snapshot(tx, user_ids=draft.participant_ids)
            recipient_id = await message_store.ensure_dm_recipient(tx, draft.participant_ids)
        row = MessageRow(
            id=0,
            sender_id=sender.id,
            recipient_id=recipient_id,
            stream_id=stream.id if stream else None,
            topic=draft.topic,
            content=draft.content,
            rendered_content=draft.rendered.html,
            client=draft.client,
            date_sent=now,
            last_edit_time=None,
            last_moved_time=None,
            edit_history=None,
            has_link=draft.rendered.has_link,
            has_image=draft.rendered.has_image,
            has_attachment=draft.rendered.has_attachment,
            is_me_message=draft.rendered.is_me_message,
        )
        message_id = await message_store.insert_message(
            tx, **{k: v for k, v in msgspec.structs.asdict(row).items() if k not in _NOT_INSERTED}
        )
        row = msgspec.structs.replace(row, id=message_id)
        flags = await _recipient_flags(tx, sender, draft, recipient_id)
        await message_store.insert_user_messages(
            tx, message_id, flags, stream_id=stream.id if stream else None
        )
        await link_attachments(rt, tx, sender, message_id, now, draft.rendered.attachment_path_ids)
        submessages = []
        if draft.widget is not None:
            content = msgspec.json.encode(draft.widget).decode()
            submessages.append(
                await submessage_store.insert(tx, message_id, sender.id, "widget", content)
            )
        policy = None
        if stream is not None:
            await _channel_bookkeeping(rt, tx, stream, message_id, now)
            policy = await _automatic_policies(rt, tx, sender, stream, draft, row)
        # Guests who now share a conversation learn who the others are before the message.
        await guest_access.publish_changes(rt, tx, guests)
        message = await _publish_message(rt, tx, realm, sender, row, draft, flags, submessages)
        for hook in hook_modules.load_into(SEND_HOOKS):
            delivered = Delivered(
                realm=realm, sender=sender, draft=draft, message=message, flags=flags
            )
            await hook(rt, tx, delivered)
        if draft.with_message is not None:
            await draft.with_message(tx)
    return SentMessage(id=message_id, automatic_new_visibility_policy=policy)


_NOT_INSERTED = frozenset({"id", "last_edit_time", "last_moved_time", "edit_history"})


async def _recipient_flags(
    tx: Tx, sender: UserRow, draft: Draft, recipient_id: int
) -> dict[int, int]:
    """user id -> flags of the new message, for everyone who receives it."""
    rendered = draft.rendered
    if draft.stream is not None:
        subscribers = (await sub_store.subscriber_ids(tx, [draft.stream.id])).get(
            draft.stream.id, []
        )
        receivers = {*subscribers, sender.id}
        base = 0
        topic_participants: set[int] = set()
        if rendered.topic_wildcard:
            topic_participants = await message_store.topic_participants(
                tx, recipient_id, draft.topic
            )
            topic_participants.add(sender.id)
    else:
        receivers = set(draft.participant_ids)
        base = fl.IS_PRIVATE
        topic_participants = receivers
    mentioned = set(rendered.mentioned_user_ids) | draft.group_member_ids
    # zulip-compat: messages from a user you muted arrive already read.
    muting = await context_store.muting_user_ids(tx, sender.id)
    flags = {}
    for user_id in sorted(receivers):
        bits = base
        read = user_id == sender.id and draft.read_by_sender
        if read or user_id in muting or user_id in draft.read_by:
            bits |= fl.READ
        if user_id in mentioned:
            bits |= fl.MENTIONED
        if rendered.stream_wildcard:
            bits |= fl.STREAM_WILDCARD_MENTIONED
        if rendered.topic_wildcard and user_id in topic_participants:
            bits |= fl.TOPIC_WILDCARD_MENTIONED
        if user_id in rendered.alert_word_user_ids:
            bits |= fl.HAS_ALERT_WORD
        flags[user_id] = bits
    return flags


async def _channel_bookkeeping(
    rt: Runtime, tx: Tx, stream: StreamRow, message_id: int, now: int
) -> None:
    """Traffic counts, first_message_id and is_recently_active (with their events)."""
    day = now // ch.DAY_SECS
    # The day's first message asks which day had the one before; later ones know: today.
    if await stream_store.add_traffic(tx, stream.id, day) > 1:
        last_day: int | None = day
    else:
        last_day = await stream_store.last_traffic_day(tx, stream.id, other_than=day)
    was_active = day - max(stream.date_created // ch.DAY_SECS, last_day or 0) <= (
        ch.RECENTLY_ACTIVE_DAYS
    )
    changes: list[tuple[str, object]] = []
    if stream.first_message_id is None:
        await stream_store.update_stream(tx, stream.id, first_message_id=message_id)
        changes.append(("first_message_id", message_id))
    if not was_active:
        changes.append(("is_recently_active", True))
    if changes:
        audience = await access.stream_audience(tx, stream)
        for prop, value in changes:
            event = StreamUpdateEvent(
                stream_id=stream.id, name=stream.name, property=prop, value=value
            )
            _publish(rt, tx, msgspec.to_builtins(event), audience)


async def _automatic_policies(
    rt: Runtime, tx: Tx, sender: UserRow, stream: StreamRow, draft: Draft, row: MessageRow
) -> int | None:
    """Zulip's automatic follow/unmute on send, and following topics where mentioned."""
    for user_id in sorted(draft.rendered.mentioned_user_ids - {sender.id}):
        user = await user_store.get_user_by_id(tx, user_id)
        if user is None or user.is_bot or not user.is_active:
            continue
        if not user_settings.load(user.settings_json).automatically_follow_topics_where_mentioned:
            continue
        current = await user_topic_store.get_user_topic(tx, user.id, stream.id, draft.topic)
        if current is None or current.visibility_policy not in (MUTED, FOLLOWED):
            await set_policy_in_tx(rt, tx, user, stream, draft.topic, FOLLOWED)
    if sender.is_bot:
        return None
    policy = await _policy_for_sender(tx, sender, stream, row)
    if policy is not None and await set_policy_in_tx(rt, tx, sender, stream, draft.topic, policy):
        return policy
    return None


async def _policy_for_sender(
    tx: Tx, sender: UserRow, stream: StreamRow, row: MessageRow
) -> int | None:
    """Zulip's visibility_policy_for_send_message: only ever raises visibility."""
    settings = user_settings.load(sender.settings_json)
    current_row = await user_topic_store.get_user_topic(tx, sender.id, stream.id, row.topic)
    current = current_row.visibility_policy if current_row else INHERIT
    if current == FOLLOWED:
        return None
    sub = await sub_store.get_subscription(tx, sender.id, stream.id)
    stream_muted = sub is not None and sub.active and sub.is_muted
    follow, unmute = (
        settings.automatically_follow_topics_policy,
        (settings.automatically_unmute_topics_in_muted_streams_policy),
    )
    if follow in (user_settings.AUTOMATICALLY_CHANGE_VISIBILITY_POLICY_ON_PARTICIPATION,
                  user_settings.AUTOMATICALLY_CHANGE_VISIBILITY_POLICY_ON_SEND):  # fmt: skip
        return FOLLOWED
    policy = None
    if stream_muted and unmute in (
        user_settings.AUTOMATICALLY_CHANGE_VISIBILITY_POLICY_ON_PARTICIPATION,
        user_settings.AUTOMATICALLY_CHANGE_VISIBILITY_POLICY_ON_SEND,
    ):
        policy = UNMUTED
    if current != INHERIT:
        return None if policy == current else policy
    initiation = user_settings.AUTOMATICALLY_CHANGE_VISIBILITY_POLICY_ON_INITIATION
    if follow == initiation or (stream_muted and unmute == initiation):
        history = access.can_access_history(sender, stream, sub is not None and sub.active)
        earlier = await context_store.topic_has_earlier_messages(
            tx, stream.recipient_id, row.topic, row.id, visible_to=None if history else sender.id
        )
        if follow == initiation and not earlier:
            return FOLLOWED
        if stream_muted and unmute == initiation and not earlier:
            policy = UNMUTED
    return policy


async def _publish_message(
    rt: Runtime,
    tx: Tx,
    realm: RealmRow,
    sender: UserRow,
    row: MessageRow,
    draft: Draft,
    flags: dict[int, int],
    submessages: list[SubmessageRow],
) -> JsonDict:
    topic_links = draft.topic_links
    if topic_links is None:
        topic_links = await links_for_topic(tx, row.topic) if draft.stream else []
    extras = MessageExtras(
        sender=sender,
        stream_name=draft.stream.name if draft.stream else None,
        participants=await user_store.list_users(tx, user_ids=draft.participant_ids)
        if draft.stream is None
        else [],
        topic_links=topic_links,
        submessages=submessages,
    )
    event: JsonDict = {
        "type": "message",
        "message": message_dict(row, extras, realm),
        rules.RAW_CONTENT: row.content,
        rules.SENDER_GRAVATAR: sender.avatar_source == "G",
    }
    if draft.queue_id is not None and draft.local_id is not None:
        event[rules.LOCAL] = {"queue_id": draft.queue_id, "local_id": draft.local_id}
    visible = await _email_visibility(tx, sender, list(flags))
    # Recipients with the same flags and email visibility share one extras dict (the
    # broker encodes each distinct one once).
    shared: dict[tuple[int, bool], JsonDict] = {}
    audience: dict[int, JsonDict] = {}
    for user_id, bits in flags.items():
        key = (bits, visible[user_id])
        extra = shared.get(key)
        if extra is None:
            extra = shared[key] = {"flags": fl.flag_names(bits), rules.EMAIL_VISIBLE: key[1]}
        audience[user_id] = extra
    restricted = draft.access_restricted
    if (
        draft.stream is not None
        and not sender.is_bot
        and (restricted if restricted is not None else await access_restricted(tx))
    ):
        # zulip-compat: user_ids_without_access_to_sender (a non-subscriber's channel message).
        can_access = set(await user_ids_who_can_access(tx, sender))
        for user_id in set(flags) - can_access:
            audience[user_id] = {
                **audience[user_id],
                rules.SENDER_PLACEHOLDER: wire.inaccessible_sender_fields(sender.id, realm.host),
            }
    tx.after_commit(lambda: rt.broker.publish(event, audience))
    if draft.stream is not None and draft.stream.is_public:
        tx.after_commit(lambda: _publish_to_all_public_streams_queues(rt, event, set(flags)))
    message = event["message"]
    assert isinstance(message, dict)
    return message


def _publish_to_all_public_streams_queues(
    rt: Runtime, event: JsonDict, receivers: set[int]
) -> None:
    """Queues registered with all_public_streams get public channel messages they were not
    sent (with no flags), like Zulip's all_public_streams clients."""
    extra = {"flags": [], rules.EMAIL_VISIBLE: False}
    rt.broker.publish_to_public_watchers(event, receivers, extra)


async def _email_visibility(tx: Tx, sender: UserRow, user_ids: list[int]) -> dict[int, bool]:
    """viewer id -> whether they may see the sender's real email (decides client Gravatar)."""
    if sender.is_bot or sender.email_address_visibility == EmailVisibility.EVERYONE:
        return dict.fromkeys(user_ids, True)
    viewers = await user_store.list_users(tx, user_ids=user_ids)
    return {v.id: wire.can_see_delivery_email(v, sender) for v in viewers}


def _publish(rt: Runtime, tx: Tx, payload: JsonDict, audience: list[int]) -> None:
    tx.after_commit(lambda: rt.broker.publish(payload, audience))

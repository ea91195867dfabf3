"""Deleting messages: DELETE /messages/{id} and POST /streams/{id}/delete_topic.

Events: `delete_message` (bulk `message_ids` for `bulk_message_deletion` clients, one event
per message for the others) to everyone who could see the messages; `stream` update when a
channel's first message goes; `user_topic` when a whole topic goes.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from teamchat.actions.channels import channel_access as access
from teamchat.actions.messages.message_common import access_message
from teamchat.actions.messages.uploads import drop_uploads_of
from teamchat.actions.messages.user_topics import INHERIT, set_policy_in_tx
from teamchat.actions.notifications import mobile_push
from teamchat.actions.org.permissions import has_realm_permission, require_realm_admin
from teamchat.errors import ZulipError
from teamchat.events.internal import IF_CAPS
from teamchat.events.types_messages import DeleteMessageEvent
from teamchat.events.types_streams import StreamUpdateEvent
from teamchat.lib import channels as ch
from teamchat.lib import realm_settings
from teamchat.lib.messages import normalize_topic
from teamchat.records import MessageRow, RealmRow, StreamRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import message_flags as flag_store
from teamchat.store import messages as message_store
from teamchat.store import realm as realm_store
from teamchat.store import streams as stream_store
from teamchat.store import subscriptions as sub_store
from teamchat.store import user_topics as user_topic_store
from teamchat.store import users as user_store
from teamchat.store.db import Conn, Tx

DELETE_TOPIC_BATCH = 1000


async def _may_delete(
    conn: Conn, realm: RealmRow, user: UserRow, message: MessageRow, now: int
) -> None:
    """Zulip's validate_can_delete_message."""
    stream = None
    if message.stream_id is not None:
        stream = await stream_store.get_stream_by_id(conn, message.stream_id)
    group_ids = await stream_store.user_group_ids(conn, user)

    def in_channel(name: str) -> bool:
        return stream is not None and ch.is_in_setting(
            ch.group_settings(stream)[name], user.id, group_ids
        )

    if await has_realm_permission(conn, realm, user, "can_delete_any_message_group") or in_channel(
        "can_delete_any_message_group"
    ):
        return
    sender = await user_store.get_user_by_id(conn, message.sender_id)
    assert sender is not None
    if sender.id != user.id and sender.bot_owner_id != user.id:
        raise ZulipError("You don't have permission to delete this message")
    if not (
        await has_realm_permission(conn, realm, user, "can_delete_own_message_group")
        or in_channel("can_delete_own_message_group")
    ):
        raise ZulipError("You don't have permission to delete this message")
    limit = realm_settings.load(realm.settings_json).message_content_delete_limit_seconds
    if limit is not None and now - message.date_sent > limit:
        raise ZulipError("The time limit for deleting this message has passed")


async def check_delete_message(rt: Runtime, user: UserRow, message_id: int) -> None:
    """DELETE /messages/{id}: check access and permission, then delete."""
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        assert realm is not None
        message, _ = await access_message(conn, user, message_id)
        await _may_delete(conn, realm, user, message, rt.now())
    if not await do_delete_messages(rt, [message]):
        raise ZulipError("Invalid message(s)")  # deleted meanwhile, by someone else


async def _audience(tx: Tx, messages: Sequence[MessageRow], stream: StreamRow | None) -> list[int]:
    """Users with the messages, plus subscribers who can read a shared history."""
    holders = set((await flag_store.message_user_flags(tx, [m.id for m in messages])).keys())
    if stream is not None and stream.history_public_to_subscribers:
        holders |= set((await sub_store.subscriber_ids(tx, [stream.id])).get(stream.id, []))
    return sorted(holders)


async def do_delete_messages(
    rt: Runtime, messages: Sequence[MessageRow], *, drop_uploads: bool = False
) -> list[int]:
    """Delete messages of one conversation (one channel topic, or one direct message); with
    `drop_uploads`, also the uploads only they linked (message retention). Return the ids
    deleted: those another request or process deleted first get no second event."""
    sample = messages[0]
    async with rt.db.write() as tx:
        stream = None
        if sample.stream_id is not None:
            stream = await stream_store.get_stream_by_id(tx, sample.stream_id)
        audience = await _audience(tx, messages, stream)
        # Before the rows go (theirs go with them); a message deleted first by another
        # transaction has none left to remove.
        await mobile_push.remove_deleted_notifications(rt, tx, [m.id for m in messages])
        ids = await message_store.delete_messages(tx, [m.id for m in messages])
        if not ids:
            return []
        if drop_uploads:
            await drop_uploads_of(rt, tx, ids)
        fields: dict[str, object] = {"message_type": "private"}
        if stream is not None:
            fields = {"message_type": "stream", "stream_id": stream.id, "topic": sample.topic}
        bulk = msgspec.to_builtins(DeleteMessageEvent(message_ids=ids, **fields))  # type: ignore[arg-type]
        _publish(rt, tx, {**bulk, IF_CAPS: {"bulk_message_deletion": True}}, audience)
        for message_id in ids:
            one = msgspec.to_builtins(DeleteMessageEvent(message_id=message_id, **fields))  # type: ignore[arg-type]
            _publish(rt, tx, {**one, IF_CAPS: {"bulk_message_deletion": False}}, audience)
        if stream is not None:
            await _update_first_message_id(rt, tx, stream, ids)
    return ids


async def _update_first_message_id(
    rt: Runtime, tx: Tx, stream: StreamRow, deleted: list[int]
) -> None:
    if stream.first_message_id not in deleted:
        return
    first = await message_store.first_message_id(tx, stream.recipient_id)
    await stream_store.update_stream(tx, stream.id, first_message_id=first)
    event = StreamUpdateEvent(
        stream_id=stream.id, name=stream.name, property="first_message_id", value=first
    )
    _publish(rt, tx, msgspec.to_builtins(event), await access.stream_audience(tx, stream))


def _publish(rt: Runtime, tx: Tx, payload: dict[str, object], audience: list[int]) -> None:
    tx.after_commit(lambda: rt.broker.publish(payload, audience))


async def check_delete_topic(rt: Runtime, user: UserRow, stream_id: int, topic: str) -> bool:
    """POST /streams/{id}/delete_topic (admins): delete the topic's messages the admin can
    see, in batches; then forget everyone's policy for the topic. Returns `complete`."""
    require_realm_admin(user)
    topic = normalize_topic(topic)
    async with rt.db.read() as conn:
        stream, sub = await access.access_stream_by_id(conn, user, stream_id)
    visible_to = None if access.can_access_history(user, stream, sub is not None) else user.id
    while True:
        async with rt.db.read() as conn:
            ids = await message_store.topic_message_ids(
                conn, stream.recipient_id, topic, visible_to=visible_to
            )
            batch = await message_store.list_messages(conn, ids[-DELETE_TOPIC_BATCH:])
        if not batch:
            break
        await do_delete_messages(rt, batch)
    await _forget_topic_policies(rt, stream, topic)
    return True


async def _forget_topic_policies(rt: Runtime, stream: StreamRow, topic: str) -> None:
    async with rt.db.write() as tx:
        policies = await user_topic_store.list_topic_policies(tx, stream.id, topic)
        for user_id in sorted(policies):
            holder = await user_store.get_user_by_id(tx, user_id)
            if holder is not None:
                await set_policy_in_tx(rt, tx, holder, stream, topic, INHERIT)

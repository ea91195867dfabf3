"""POST /typing and POST /messages/{id}/typing: `typing` and `typing_edit_message` start/stop
events (ephemeral, published directly).

Direct messages reach every participant (the sender too); channel typing reaches the
subscribers of channels with at most 100 subscribers, like Zulip. Typing while editing a
message reaches whoever the saved edit would reach, if the user may edit it now.
"""

from __future__ import annotations

import msgspec

from teamchat.actions.channels import channel_access as access
from teamchat.actions.messages.message_common import access_message
from teamchat.actions.messages.message_edit import check_can_edit_content
from teamchat.errors import ZulipError
from teamchat.events import rules_messages  # noqa: F401 (registers message event rules)
from teamchat.events.types_messages import (
    TypingEditRecipient,
    TypingEditStartEvent,
    TypingEditStopEvent,
    TypingStartEvent,
    TypingStopEvent,
    TypingUser,
)
from teamchat.lib import realm_settings, user_settings, wire
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import messages as message_store
from teamchat.store import realm as realm_store
from teamchat.store import subscriptions as sub_store
from teamchat.store import users as user_store
from teamchat.store.db import Conn

MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS = 100


def _receives(user: UserRow) -> bool:
    return user.is_active and user_settings.load(user.settings_json).receives_typing_notifications


async def check_send_direct_typing(
    rt: Runtime, sender: UserRow, op: str, user_ids: list[int]
) -> None:
    """Typing in a direct-message conversation: every participant hears it."""
    settings = user_settings.load(sender.settings_json)
    if not settings.send_private_typing_notifications:
        raise ZulipError("User has disabled typing notifications for direct messages")
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        assert realm is not None
        recipients = []
        for user_id in [*user_ids, *([] if sender.id in user_ids else [sender.id])]:
            user = await user_store.get_user_by_id(conn, user_id)
            if user is None:
                raise ZulipError(f"Invalid user ID {user_id}")
            recipients.append(user)
    event_class = TypingStartEvent if op == "start" else TypingStopEvent
    event = event_class(
        message_type="direct",
        sender=TypingUser(user_id=sender.id, email=wire.api_email(sender, realm.host)),
        recipients=[
            TypingUser(user_id=u.id, email=wire.api_email(u, realm.host)) for u in recipients
        ],
    )
    rt.broker.publish(msgspec.to_builtins(event), [u.id for u in recipients if _receives(u)])


async def check_send_stream_typing(
    rt: Runtime, sender: UserRow, op: str, stream_id: int, topic: str
) -> None:
    """Typing in a channel topic: its subscribers hear it (small channels only)."""
    settings = user_settings.load(sender.settings_json)
    if not settings.send_stream_typing_notifications:
        raise ZulipError("User has disabled typing notifications for channel messages")
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        assert realm is not None
        stream, _ = await access.access_stream_by_id(conn, sender, stream_id)
        listeners = await _channel_listeners(conn, stream.id)
    event_class = TypingStartEvent if op == "start" else TypingStopEvent
    event = event_class(
        message_type="stream",
        sender=TypingUser(user_id=sender.id, email=wire.api_email(sender, realm.host)),
        stream_id=stream.id,
        topic=topic,
    )
    rt.broker.publish(msgspec.to_builtins(event), listeners)


async def _channel_listeners(conn: Conn, stream_id: int) -> list[int]:
    """Subscribers who hear typing in a channel: none when it has over 100 subscribers."""
    subscriber_ids = (await sub_store.subscriber_ids(conn, [stream_id])).get(stream_id, [])
    if len(subscriber_ids) > MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS:
        return []
    users = await user_store.list_users(conn, user_ids=subscriber_ids)
    return [u.id for u in users if _receives(u)]


async def check_send_edit_typing(rt: Runtime, sender: UserRow, op: str, message_id: int) -> None:
    """Typing while editing a message the sender may edit now (no grace period)."""
    settings = user_settings.load(sender.settings_json)
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        assert realm is not None
        message, _ = await access_message(conn, sender, message_id)
        realm_rules = realm_settings.load(realm.settings_json)
        check_can_edit_content(realm_rules, sender, message, rt.now(), 0)
        if message.stream_id is not None:
            if not settings.send_stream_typing_notifications:
                raise ZulipError("User has disabled typing notifications for channel messages")
            listeners = await _channel_listeners(conn, message.stream_id)
            recipient = TypingEditRecipient(
                type="channel", channel_id=message.stream_id, topic=message.topic
            )
        else:
            if not settings.send_private_typing_notifications:
                raise ZulipError("User has disabled typing notifications for direct messages")
            participants = await message_store.dm_participants(conn, [message.recipient_id])
            users = await user_store.list_users(conn, user_ids=participants[message.recipient_id])
            listeners = [u.id for u in users if _receives(u)]
            recipient = TypingEditRecipient(type="direct", user_ids=listeners)
    event_class = TypingEditStartEvent if op == "start" else TypingEditStopEvent
    event = event_class(sender_id=sender.id, message_id=message.id, recipient=recipient)
    rt.broker.publish(msgspec.to_builtins(event), listeners)

"""POST /typing: `typing` start/stop events (ephemeral, published directly).

Direct messages reach every participant (the sender too); channel typing reaches the
subscribers of channels with at most 100 subscribers, like Zulip.
"""

from __future__ import annotations

import msgspec

from teamchat.actions.channels import channel_access as access
from teamchat.errors import ZulipError
from teamchat.events import rules_messages  # noqa: F401 (registers message event rules)
from teamchat.events.types_messages import TypingStartEvent, TypingStopEvent, TypingUser
from teamchat.lib import user_settings, wire
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import realm as realm_store
from teamchat.store import subscriptions as sub_store
from teamchat.store import users as user_store

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
        subscriber_ids = (await sub_store.subscriber_ids(conn, [stream.id])).get(stream.id, [])
        if len(subscriber_ids) > MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS:
            return
        subscribers = await user_store.list_users(conn, user_ids=subscriber_ids)
    event_class = TypingStartEvent if op == "start" else TypingStopEvent
    event = event_class(
        message_type="stream",
        sender=TypingUser(user_id=sender.id, email=wire.api_email(sender, realm.host)),
        stream_id=stream.id,
        topic=topic,
    )
    rt.broker.publish(msgspec.to_builtins(event), [u.id for u in subscribers if _receives(u)])

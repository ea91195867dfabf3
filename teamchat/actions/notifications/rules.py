"""Who a delivered message should notify away from the screen, and why: the one set of rules
missed-message emails and mobile push share (Zulip's NotificationTriggers). Decides; sends nothing.
"""

from __future__ import annotations

from typing import Literal

from teamchat import store
from teamchat.actions.messages.message_deliver import Delivered
from teamchat.lib import flags as fl
from teamchat.lib import user_settings
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store.db import Conn

# Someone whose client polled for events this recently is reading (Zulip's presence window).
ONLINE_WINDOW_SECS = 140.0
DIRECT_MESSAGE = "direct_message"
MENTIONED = "mentioned"
WILDCARD_MENTIONED = "wildcard_mentioned"
ALERT_WORD = "alert_word"

Medium = Literal["email", "push"]


def is_online(rt: Runtime, user_id: int) -> bool:
    """Whether one of the user's clients polled for events within the presence window."""
    now = rt.broker.clock()
    queues = rt.broker.queues_by_user.get(user_id, [])
    return any(now - queue.last_contact < ONLINE_WINDOW_SECS for queue in queues)


def trigger(sent: Delivered, bits: int) -> str | None:
    """Why a recipient with these flags is notified of the message (None: not notified)."""
    if sent.draft.stream is None:
        return DIRECT_MESSAGE
    if bits & fl.MENTIONED:
        return MENTIONED
    if bits & (fl.STREAM_WILDCARD_MENTIONED | fl.TOPIC_WILDCARD_MENTIONED):
        return WILDCARD_MENTIONED
    if bits & fl.HAS_ALERT_WORD:
        return ALERT_WORD
    return None


def should_notify(rt: Runtime, user: UserRow, why: str, medium: Medium) -> bool:
    """Whether `user`'s settings ask for a `medium` notification for this trigger now.

    Email reaches only people with no client connected. Push also reaches people who are
    online when `enable_online_push_notifications` is on (Zulip's default).
    """
    settings = user_settings.load(user.settings_json)
    if not user.is_active or user.is_bot:
        return False
    if medium == "email":
        wanted = settings.enable_offline_email_notifications and not is_online(rt, user.id)
    else:
        wanted = settings.enable_offline_push_notifications and (
            settings.enable_online_push_notifications or not is_online(rt, user.id)
        )
    return wanted and (why != WILDCARD_MENTIONED or settings.wildcard_mentions_notify)


async def to_notify(
    rt: Runtime, conn: Conn, sent: Delivered, medium: Medium
) -> list[tuple[UserRow, str]]:
    """(recipient, trigger) for everyone but the sender who has not read the message and
    whose settings ask to be notified by `medium`."""
    triggers = {
        uid: why
        for uid, bits in sent.flags.items()
        if uid != sent.sender.id and not bits & fl.READ and (why := trigger(sent, bits))
    }
    if not triggers:
        return []
    users = await store.users.list_users(conn, user_ids=sorted(triggers))
    return [(u, triggers[u.id]) for u in users if should_notify(rt, u, triggers[u.id], medium)]

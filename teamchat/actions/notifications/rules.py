"""Who a delivered message should notify away from the screen, and why: the one set of rules
missed-message emails and mobile push share (Zulip's NotificationTriggers and
`user_allows_notifications_in_StreamTopic`). Decides; sends nothing.

Triggers, first match wins: a direct message; a personal or group mention; a wildcard
mention (in a followed topic, or where wildcard mentions notify); an alert word; a message
in a followed topic; a message in a channel with notifications on for the medium. Muted
channels and topics silence all but direct messages, personal mentions and alert words.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from teamchat import store
from teamchat.actions.messages.message_deliver import Delivered
from teamchat.actions.messages.user_topics import FOLLOWED, MUTED, UNMUTED
from teamchat.lib import flags as fl
from teamchat.lib import user_settings
from teamchat.records import StreamRow, SubscriptionRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import subscriptions as sub_store
from teamchat.store import user_topics as user_topic_store
from teamchat.store.db import Conn

# Someone whose client polled for events this recently is reading (Zulip's presence window).
ONLINE_WINDOW_SECS = 140.0
DIRECT_MESSAGE = "direct_message"
MENTIONED = "mentioned"
WILDCARD_MENTIONED = "wildcard_mentioned"
ALERT_WORD = "alert_word"
FOLLOWED_TOPIC = "followed_topic"
STREAM = "stream"

Medium = Literal["email", "push"]


class Notice(msgspec.Struct, frozen=True, kw_only=True):
    """A message that may notify its recipients: a new one, or an edit that mentions people."""

    sender_id: int
    stream: StreamRow | None
    topic: str
    # Flags of the recipients to consider (all of them for a new message).
    flags: dict[int, int]
    # An edit notifies only of mentions and alert words, never of channel or followed-topic
    # traffic, which its first sending already covered.
    mentions_only: bool = False


def notice_of(sent: Delivered) -> Notice:
    """The notice of a just-delivered message."""
    return Notice(
        sender_id=sent.sender.id, stream=sent.draft.stream, topic=sent.draft.topic, flags=sent.flags
    )


class Place(msgspec.Struct, frozen=True, kw_only=True):
    """A recipient's view of the channel and topic of a message (None for direct messages)."""

    subscription: SubscriptionRow | None
    topic_policy: int

    @property
    def muted(self) -> bool:
        sub_muted = self.subscription is not None and self.subscription.is_muted
        if self.topic_policy == MUTED:
            return True
        return sub_muted and self.topic_policy not in (UNMUTED, FOLLOWED)


def is_online(rt: Runtime, user_id: int) -> bool:
    """Whether one of the user's clients polled for events within the presence window."""
    now = rt.broker.clock()
    queues = rt.broker.queues_by_user.get(user_id, [])
    return any(now - queue.last_contact < ONLINE_WINDOW_SECS for queue in queues)


def reachable(rt: Runtime, user: UserRow, medium: Medium) -> bool:
    """Whether `medium` may reach `user` now: email only those with no client connected;
    push also those online when `enable_online_push_notifications` is on (the default)."""
    if not user.is_active or user.is_bot:
        return False
    if medium == "push" and user_settings.load(user.settings_json).enable_online_push_notifications:
        return True
    return not is_online(rt, user.id)


def trigger(user: UserRow, bits: int, place: Place | None, medium: Medium) -> str | None:
    """Why `user`, with these message flags, gets a `medium` notification (None: no)."""
    s = user_settings.load(user.settings_json)
    personal = (
        s.enable_offline_email_notifications if medium == "email"
        else s.enable_offline_push_notifications
    )  # fmt: skip
    if place is None:
        return DIRECT_MESSAGE if personal else None
    if bits & fl.MENTIONED and personal:
        return MENTIONED
    sub = place.subscription
    followed = place.topic_policy == FOLLOWED
    if bits & (fl.STREAM_WILDCARD_MENTIONED | fl.TOPIC_WILDCARD_MENTIONED) and personal:
        wildcards = s.wildcard_mentions_notify
        if sub is not None and sub.wildcard_mentions_notify is not None:
            wildcards = sub.wildcard_mentions_notify
        if (followed and s.enable_followed_topic_wildcard_mentions_notify) or (
            wildcards and not place.muted
        ):
            return WILDCARD_MENTIONED
    if bits & fl.HAS_ALERT_WORD and personal:
        return ALERT_WORD
    if medium == "email":
        follow_setting, stream_default = (
            s.enable_followed_topic_email_notifications, s.enable_stream_email_notifications
        )  # fmt: skip
        stream_setting = sub.email_notifications if sub else None
    else:
        follow_setting, stream_default = (
            s.enable_followed_topic_push_notifications, s.enable_stream_push_notifications
        )  # fmt: skip
        stream_setting = sub.push_notifications if sub else None
    if followed and follow_setting:
        return FOLLOWED_TOPIC
    wants_stream = stream_default if stream_setting is None else stream_setting
    return STREAM if wants_stream and not place.muted else None


async def _places(conn: Conn, notice: Notice, user_ids: list[int]) -> dict[int, Place]:
    stream = notice.stream
    assert stream is not None
    subs = await sub_store.list_stream_subscriptions(conn, stream.id, user_ids)
    policies = await user_topic_store.list_topic_policies(conn, stream.id, notice.topic, user_ids)
    return {
        uid: Place(
            subscription=subs.get(uid),
            topic_policy=policies[uid].visibility_policy if uid in policies else 0,
        )
        for uid in user_ids
    }


async def to_notify(
    rt: Runtime, conn: Conn, notice: Notice, medium: Medium, among: set[int] | None = None
) -> list[tuple[UserRow, str]]:
    """(recipient, trigger) for everyone but the sender (and only `among`, when given) who has
    not read the message, can be reached by `medium` now and whose settings ask for it."""
    unread = {
        uid: bits
        for uid, bits in notice.flags.items()
        if uid != notice.sender_id and not bits & fl.READ and (among is None or uid in among)
    }
    if not unread:
        return []
    users = [
        u
        for u in await store.users.list_users(conn, user_ids=sorted(unread))
        if reachable(rt, u, medium)
    ]
    places: dict[int, Place] = {}
    if notice.stream is not None and users:
        places = await _places(conn, notice, [u.id for u in users])
    chosen = []
    for user in users:
        why = trigger(user, unread[user.id], places.get(user.id), medium)
        if why is not None and not (notice.mentions_only and why in (FOLLOWED_TOPIC, STREAM)):
            chosen.append((user, why))
    return chosen

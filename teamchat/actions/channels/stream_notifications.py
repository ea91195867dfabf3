"""Notification Bot messages about subscriptions, as Zulip sends them.

After POST /users/me/subscriptions: a direct message to each person someone else subscribed
to existing channels ("you were subscribed"); with `announce`, a message announcing the
new channels in the realm's new-channel announcements channel (topic "new channels"); and in
each new channel (except public ones with protected history, as in Zulip) a first message
saying who created it, with its access policy and description (topic "channel events").
The actor's own notices arrive already read.
"""

from __future__ import annotations

from collections.abc import Sequence

from teamchat.actions.messages.message_send import (
    SendRequest,
    check_send_message,
    internal_request,
)
from teamchat.actions.org.system_bots import NOTIFICATION_BOT, ensure_system_bot
from teamchat.lib import realm_settings
from teamchat.records import StreamRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import realm as realm_store
from teamchat.store import streams as stream_store

# zulip-compat: no "you were subscribed" messages when subscribing more people than this.
MAX_BULK_NEW_SUBSCRIPTION_MESSAGES = 100
NEW_CHANNELS_TOPIC = "new channels"
CHANNEL_EVENTS_TOPIC = "channel events"


def you_were_subscribed_message(actor: UserRow, stream_names: Sequence[str]) -> str:
    """Zulip's text for a user whom `actor` subscribed to `stream_names`."""
    names = sorted(stream_names)
    mention = f"@**{actor.full_name}|{actor.id}**"
    if len(names) == 1:
        return f"{mention} subscribed you to the channel #**{names[0]}**."
    lines = "".join(f"* #**{name}**\n" for name in names)
    return f"{mention} subscribed you to the following channels:\n\n{lines}"


def new_channels_message(actor: UserRow, created: Sequence[StreamRow]) -> str:
    """Zulip's announcement of newly created channels."""
    mention = f"@_**{actor.full_name}|{actor.id}**"
    links = ", ".join(f"#**{stream.name}**" for stream in created)
    if len(created) > 1:
        return f"{mention} created the following channels: {links}."
    return f"{mention} created a new channel {links}."


def channel_policy_name(stream: StreamRow) -> str | None:
    """Zulip's name for a channel's access policy; None for public with protected history."""
    if stream.is_web_public:
        return "Web-public"
    if not stream.invite_only:
        return "Public" if stream.history_public_to_subscribers else None
    if stream.history_public_to_subscribers:
        return "Private, shared history"
    return "Private, protected history"


def channel_created_message(actor: UserRow, stream: StreamRow) -> str | None:
    """The Notification Bot's first message in a new channel (None when Zulip sends none)."""
    policy = channel_policy_name(stream)
    if policy is None:
        return None
    description = stream.description or "*No description.*"
    return (
        f"**{policy}** channel created by @_**{actor.full_name}|{actor.id}**. **Description:**"
        f"\n```` quote\n{description}\n````"
    )


async def send_subscription_messages(
    rt: Runtime,
    actor: UserRow,
    done: Sequence[tuple[UserRow, StreamRow]],
    created: Sequence[StreamRow],
    *,
    announce: bool,
    send_new_subscription_messages: bool,
    realm_url: str,
) -> None:
    """Send the Notification Bot's messages for one subscription request."""
    created_ids = {stream.id for stream in created}
    by_user: dict[int, tuple[UserRow, list[str]]] = {}
    for user, stream in done:
        by_user.setdefault(user.id, (user, []))[1].append(stream.name)
        if stream.id in created_ids:
            by_user[user.id][1].remove(stream.name)
    messages: list[SendRequest] = []
    if send_new_subscription_messages and len(by_user) <= MAX_BULK_NEW_SUBSCRIPTION_MESSAGES:
        for user, names in by_user.values():
            if user.id != actor.id and not user.is_bot and names:
                content = you_were_subscribed_message(actor, names)
                messages.append(internal_request("private", [user.id], None, content, realm_url))
    if announce and created:
        async with rt.db.read() as conn:
            realm = await realm_store.get_realm(conn)
            assert realm is not None
            target_id = realm_settings.load(realm.settings_json).new_stream_announcements_stream_id
            target = await stream_store.get_stream_by_id(conn, target_id)
        if target is not None and not target.is_archived:
            content = new_channels_message(actor, created)
            messages.append(
                internal_request(
                    "stream", target.id, NEW_CHANNELS_TOPIC, content, realm_url, (actor.id,)
                )
            )
    for stream in created:
        first = channel_created_message(actor, stream)
        if first is not None:
            messages.append(
                internal_request(
                    "stream", stream.id, CHANNEL_EVENTS_TOPIC, first, realm_url, (actor.id,)
                )
            )
    if messages:
        bot = await ensure_system_bot(rt, NOTIFICATION_BOT)
        for request in messages:
            await check_send_message(rt, bot, request)

"""POST /messages: validate the addressee, content and permissions, render, then deliver.

Every rule of SPEC's "Send a message" is checked here (read phase); `message_deliver`
writes the message and sends the events.
"""

from __future__ import annotations

import msgspec

from teamchat.actions.channels import channel_access as access
from teamchat.actions.messages import message_deliver
from teamchat.actions.messages.message_common import render
from teamchat.actions.org.permissions import has_realm_permission, realm_group_settings
from teamchat.actions.people.user_access import inaccessible_user_ids
from teamchat.actions.people.users import find_user_by_email
from teamchat.errors import StreamDoesNotExistError, StreamIdDoesNotExistError, ZulipError
from teamchat.lib import channels as ch
from teamchat.lib import realm_settings, widgets, wire
from teamchat.lib.api_types import JsonDict
from teamchat.lib.messages import (
    EMPTY_TOPIC_DISPLAY_NAME,
    default_read_by_sender,
    normalize_content,
    normalize_topic,
)
from teamchat.records import RealmRow, StreamRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import groups as group_store
from teamchat.store import message_context as context_store
from teamchat.store import messages as message_store
from teamchat.store import realm as realm_store
from teamchat.store import streams as stream_store
from teamchat.store import subscriptions as sub_store
from teamchat.store import users as user_store
from teamchat.store.db import Conn


class StreamWildcardMentionNotAllowedError(ZulipError):
    code = "STREAM_WILDCARD_MENTION_NOT_ALLOWED"

    def __init__(self) -> None:
        super().__init__(
            "You do not have permission to use channel wildcard mentions in this channel."
        )


class TopicWildcardMentionNotAllowedError(ZulipError):
    code = "TOPIC_WILDCARD_MENTION_NOT_ALLOWED"

    def __init__(self) -> None:
        super().__init__("You do not have permission to use topic wildcard mentions in this topic.")


class SendRequest(msgspec.Struct, kw_only=True):
    """POST /messages, parsed: `to` is a channel name or id, or user ids or emails."""

    recipient_type: str  # "stream" or "private"
    to: str | int | list[str] | list[int]
    topic: str | None
    content: str
    client: str
    realm_url: str
    queue_id: str | None = None
    local_id: str | None = None
    read_by_sender: bool | None = None
    # Users for whom the message arrives already read (Zulip's mark_as_read: the person whose
    # action a notice reports).
    read_by: tuple[int, ...] = ()
    # zulip-compat: internal sends (system bots' notifications) may post in any channel.
    internal: bool = False
    # A bot's JSON widget (Zulip's zform), checked before anything is stored.
    widget_content: str | None = None


INTERNAL_CLIENT = "Internal"


def internal_request(
    kind: str,
    to: str | int | list[int],
    topic: str | None,
    content: str,
    realm_url: str,
    read_by: tuple[int, ...] = (),
) -> SendRequest:
    """A system bot's message (Zulip's internal_send_*): read by its sender (and `read_by`),
    to any channel."""
    return SendRequest(
        recipient_type=kind, to=to, topic=topic, content=content, client=INTERNAL_CLIENT,
        realm_url=realm_url, read_by_sender=True, internal=True, read_by=read_by,
    )  # fmt: skip


async def check_send_message(
    rt: Runtime, sender: UserRow, request: SendRequest
) -> message_deliver.SentMessage:
    """Validate and send; return the new id (and any automatic topic policy change)."""
    realm, draft = await check_message(rt, sender, request)
    return await message_deliver.do_send_message(rt, realm, sender, draft)


async def check_message(
    rt: Runtime, sender: UserRow, request: SendRequest
) -> tuple[RealmRow, message_deliver.Draft]:
    """Every check of a send, without sending: the checked, rendered message (Zulip's
    check_message; scheduled messages are checked when scheduled and again when sent)."""
    content = normalize_content(request.content)
    widget = _widget(request.widget_content, content)
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        assert realm is not None
        stream, topic, participants = None, "", []
        if request.recipient_type == "stream":
            if request.topic is not None:
                # zulip-compat: the topic's characters are judged before the channel exists.
                normalize_topic(request.topic)
            stream = await _access_stream_for_send(conn, sender, request.to, request.internal)
            topic = _checked_topic(realm, stream, request.topic)
        else:
            participants = await _dm_participants(conn, realm, sender, request.to)
        rendered = await render(
            conn, sender, content, request.realm_url, previews=True, now=rt.clock()
        )
        if stream is not None:
            await _check_wildcards(conn, realm, sender, stream, topic, rendered)
        await _check_group_mentions(conn, sender, rendered.mentioned_group_ids)
        group_members = await context_store.group_member_ids(conn, rendered.mentioned_group_ids)
    read_by_sender = request.read_by_sender
    if read_by_sender is None:
        read_by_sender = default_read_by_sender(request.client)
    draft = message_deliver.Draft(
        stream=stream,
        topic=topic,
        participant_ids=[u.id for u in participants],
        content=content,
        rendered=rendered,
        group_member_ids=group_members,
        client=request.client,
        read_by_sender=read_by_sender,
        read_by=frozenset(request.read_by),
        queue_id=request.queue_id,
        local_id=request.local_id,
        realm_url=request.realm_url,
        widget=widget,
    )
    return realm, draft


def _widget(widget_content: str | None, content: str) -> JsonDict | None:
    """The widget a message carries: the sender's `widget_content`, else /poll or /todo."""
    if widget_content is None:
        return widgets.widget_from_content(content)
    try:
        value = msgspec.json.decode(widget_content)
    except msgspec.DecodeError:
        raise ZulipError("Widgets: API programmer sent invalid JSON content") from None
    try:
        return widgets.check_widget_content(value)
    except widgets.WidgetError as error:
        raise ZulipError(f"Widgets: {error}") from None


async def _access_stream_for_send(
    conn: Conn, sender: UserRow, to: str | int | list[str] | list[int], internal: bool
) -> StreamRow:
    if isinstance(to, list):
        if len(to) != 1:
            raise ZulipError("Expected exactly one channel")
        to = to[0]
    if isinstance(to, int):
        stream = await stream_store.get_stream_by_id(conn, to)
        if stream is None:
            raise StreamIdDoesNotExistError(to)
    else:
        name = to.strip()
        ch.check_stream_name(name)
        stream = await stream_store.get_stream_by_name(conn, name)
        if stream is None:
            raise StreamDoesNotExistError(name)
    if stream.is_archived:
        raise ZulipError(f"Not authorized to send to channel '{stream.name}'")
    if internal:
        return stream
    senders = [sender]
    if sender.is_bot and sender.bot_owner_id is not None:
        owner = await user_store.get_user_by_id(conn, sender.bot_owner_id)
        senders += [owner] if owner is not None else []
    if not any([await _may_post(conn, user, stream) for user in senders]):
        raise ZulipError("You do not have permission to post in this channel.")
    for user in senders:
        sub = await sub_store.get_subscription(conn, user.id, stream.id)
        if access.can_see_stream(user, stream, sub is not None and sub.active) and (
            stream.is_public or (sub is not None and sub.active)
        ):
            return stream
    raise ZulipError(f"Not authorized to send to channel '{stream.name}'")


async def _may_post(conn: Conn, user: UserRow, stream: StreamRow) -> bool:
    setting = ch.group_settings(stream)["can_send_message_group"]
    return ch.is_in_setting(setting, user.id, await stream_store.user_group_ids(conn, user))


def _checked_topic(realm: RealmRow, stream: StreamRow, topic: str | None) -> str:
    if topic is None:
        raise ZulipError("Missing topic")
    topic = normalize_topic(topic)
    policy = stream.topics_policy
    if policy == "inherit":
        settings = realm_settings.load(realm.settings_json)
        policy = "disable_empty_topic" if settings.mandatory_topics else settings.topics_policy
    if policy == "disable_empty_topic" and topic == "":
        raise ZulipError(
            f'Sending messages to "{EMPTY_TOPIC_DISPLAY_NAME}" is not allowed in this channel.'
        )
    if policy == "empty_topic_only" and topic != "":
        raise ZulipError(f'Only the "{EMPTY_TOPIC_DISPLAY_NAME}" topic is allowed in this channel.')
    return topic


async def _dm_participants(
    conn: Conn, realm: RealmRow, sender: UserRow, to: str | int | list[str] | list[int]
) -> list[UserRow]:
    """Every participant of the conversation, sender included, checked."""
    items = to if isinstance(to, list) else [to]
    if not items:
        raise ZulipError("Message must have recipients")
    recipients: dict[int, UserRow] = {}
    for item in items:
        if isinstance(item, str):
            user = await find_user_by_email(conn, item)
            if user is None:
                raise ZulipError(f"Invalid email '{item}'")
        else:
            user = await user_store.get_user_by_id(conn, item)
            if user is None:
                raise ZulipError(f"Invalid user ID {item}")
        if not user.is_active:
            raise ZulipError(f"'{wire.api_email(user, realm.host)}' is no longer using Zulip.")
        recipients[user.id] = user
    if await inaccessible_user_ids(conn, sender, list(recipients.values())):
        # zulip-compat: check_sender_can_access_recipients (a limited guest).
        raise ZulipError("You do not have permission to access some of the recipients.")
    await _check_dm_permission(conn, realm, sender, list(recipients.values()))
    recipients[sender.id] = sender
    return list(recipients.values())


async def _check_dm_permission(
    conn: Conn, realm: RealmRow, sender: UserRow, recipients: list[UserRow]
) -> None:
    if sender.is_bot or all(u.is_bot or u.id == sender.id for u in recipients):
        return
    settings = await realm_group_settings(conn, realm)
    allowed = settings["direct_message_permission_group"]
    everyone = [sender, *recipients]
    if not any([await group_store.is_user_in_setting(conn, u, allowed) for u in everyone]):
        names = await stream_store.system_group_names(conn)
        if isinstance(allowed, int) and names.get(allowed) == "role:nobody":
            raise ZulipError("Direct messages are disabled in this organization.")
        raise ZulipError("This conversation does not include any users who can authorize it.")
    initiator = settings["direct_message_initiator_group"]
    if await group_store.is_user_in_setting(conn, sender, initiator):
        return
    recipient_id = await message_store.get_dm_recipient_id(conn, [u.id for u in everyone])
    if recipient_id is None or not await context_store.conversation_has_messages(
        conn, recipient_id
    ):
        raise ZulipError("You do not have permission to initiate direct message conversations.")


async def _check_wildcards(
    conn: Conn,
    realm: RealmRow,
    sender: UserRow,
    stream: StreamRow,
    topic: str,
    rendered: message_deliver.Rendered,
) -> None:
    """Wildcard mentions in large channels/topics need can_mention_many_users_group."""
    if rendered.stream_wildcard:
        count = (await sub_store.subscriber_counts(conn, [stream.id])).get(stream.id, 0)
        if count > ch.WILDCARD_MENTION_THRESHOLD and not await has_realm_permission(
            conn, realm, sender, "can_mention_many_users_group"
        ):
            raise StreamWildcardMentionNotAllowedError()
    if rendered.topic_wildcard:
        participants = await message_store.topic_participants(conn, stream.recipient_id, topic)
        participants.add(sender.id)
        if len(participants) > ch.WILDCARD_MENTION_THRESHOLD and not await has_realm_permission(
            conn, realm, sender, "can_mention_many_users_group"
        ):
            raise TopicWildcardMentionNotAllowedError()


async def _check_group_mentions(conn: Conn, sender: UserRow, group_ids: frozenset[int]) -> None:
    """Each mentioned group's can_mention_group (everyone, unless the group says otherwise)."""
    for group_id in sorted(group_ids):
        found = await context_store.group_mention_setting(conn, group_id)
        if found is None:
            continue
        name, stored = found
        if stored is None:
            continue
        value = msgspec.json.decode(stored)
        if not await group_store.is_user_in_setting(conn, sender, value):
            raise ZulipError(
                f"You are not allowed to mention user group '{name}'. You must be a member of"
                " its can_mention_group to mention this group."
            )

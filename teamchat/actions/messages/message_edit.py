"""PATCH /messages/{id}: validate an edit (content, topic, channel) and its permissions.

Zulip's check_update_message, in order: payload, content permission and time limit, topic
and resolve permissions, rendering and wildcard checks, channel-move permissions, the
`change_all` time limit. `message_update` stores the edit and sends the events.
"""

from __future__ import annotations

import hashlib

import msgspec

from teamchat.actions.channels import channel_access as access
from teamchat.actions.messages import message_update
from teamchat.actions.messages.message_common import access_message, render
from teamchat.actions.messages.message_send import (
    StreamWildcardMentionNotAllowedError,
    TopicWildcardMentionNotAllowedError,
)
from teamchat.actions.messages.move_notifications import Move, send_move_notifications
from teamchat.actions.org.permissions import has_realm_permission
from teamchat.errors import ZulipError
from teamchat.lib import channels as ch
from teamchat.lib import realm_settings
from teamchat.lib.messages import (
    EMPTY_TOPIC_DISPLAY_NAME,
    MAX_TOPIC_LENGTH,
    RESOLVED_TOPIC_PREFIX,
    normalize_content,
    normalize_topic,
    truncate,
)
from teamchat.records import MessageRow, RealmRow, StreamRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import message_context as context_store
from teamchat.store import messages as message_store
from teamchat.store import realm as realm_store
from teamchat.store import streams as stream_store
from teamchat.store import submessages as submessage_store
from teamchat.store import subscriptions as sub_store
from teamchat.store import users as user_store
from teamchat.store.db import Conn

# zulip-compat: a little slack past the realm's limits, for slow networks.
EDIT_LIMIT_BUFFER_SECS = 20
PROPAGATE_MODES = ("change_one", "change_later", "change_all")


class EditRequest(msgspec.Struct, kw_only=True):
    content: str | None = None
    topic: str | None = None
    stream_id: int | None = None
    propagate_mode: str = "change_one"
    prev_content_sha256: str | None = None
    realm_url: str = ""
    send_notification_to_old_thread: bool = False
    send_notification_to_new_thread: bool = True


def _check_payload(message: MessageRow, request: EditRequest, topic: str | None) -> None:
    if topic is None and request.content is None and request.stream_id is None:
        raise ZulipError("Nothing to change")
    if message.stream_id is None:
        if request.stream_id is not None:
            raise ZulipError("Direct messages cannot be moved to channels.")
        if topic is not None:
            raise ZulipError("Direct messages cannot have topics.")
    if request.propagate_mode != "change_one" and topic is None and request.stream_id is None:
        raise ZulipError("Invalid propagate_mode without topic edit")
    if topic in (RESOLVED_TOPIC_PREFIX.strip(), RESOLVED_TOPIC_PREFIX + EMPTY_TOPIC_DISPLAY_NAME):
        raise ZulipError("General chat cannot be marked as resolved")
    if request.stream_id is not None and request.content is not None:
        raise ZulipError("Cannot change message content while changing channel")
    if request.prev_content_sha256 is not None:
        digest = hashlib.sha256(message.content.encode()).hexdigest()
        if request.prev_content_sha256 != digest:
            raise ZulipError("'prev_content_sha256' value does not match the current content.")


def _new_topic(message: MessageRow, raw: str | None) -> str | None:
    """The edited topic (None: unchanged). Stripped, aliases of the empty topic resolved."""
    if raw is None:
        return None
    topic = normalize_topic(raw.strip())
    return None if topic == message.topic else topic


def resolve_change(old: str, new: str) -> tuple[bool, bool]:
    """(resolved, unresolved): whether the edit only adds or removes the ✔ prefix."""
    n = len(RESOLVED_TOPIC_PREFIX)
    resolved = (
        new.startswith(RESOLVED_TOPIC_PREFIX)
        and not old.startswith(RESOLVED_TOPIC_PREFIX)
        and new[n:] == old
    )
    unresolved = (
        old.startswith(RESOLVED_TOPIC_PREFIX)
        and not new.startswith(RESOLVED_TOPIC_PREFIX)
        and old[n:] == new
    )
    return resolved, unresolved


def _past(
    message: MessageRow, limit: int | None, now: int, buffer: int = EDIT_LIMIT_BUFFER_SECS
) -> bool:
    return limit is not None and now - message.date_sent > limit + buffer


def check_can_edit_content(
    settings: realm_settings.RealmSettings, user: UserRow, message: MessageRow, now: int,
    buffer: int,
) -> None:  # fmt: skip
    """Zulip's validate_user_can_edit_message: editing on, own message, within the limit."""
    if not settings.allow_message_editing:
        raise ZulipError("Your organization has turned off message editing")
    if message.sender_id != user.id:
        raise ZulipError("You don't have permission to edit this message")
    if _past(message, settings.message_content_edit_limit_seconds, now, buffer):
        raise ZulipError("The time limit for editing this message has passed")


async def _in_channel_setting(conn: Conn, user: UserRow, stream: StreamRow, name: str) -> bool:
    group_ids = await stream_store.user_group_ids(conn, user)
    return ch.is_in_setting(ch.group_settings(stream)[name], user.id, group_ids)


async def _check_topic_permission(
    conn: Conn, realm: RealmRow, user: UserRow, message: MessageRow, stream: StreamRow,
    topic: str, now: int,
) -> None:  # fmt: skip
    resolved, unresolved = resolve_change(message.topic, topic)
    if resolved or unresolved:
        if not (
            await has_realm_permission(conn, realm, user, "can_resolve_topics_group")
            or await _in_channel_setting(conn, user, stream, "can_resolve_topics_group")
        ):
            raise ZulipError("You don't have permission to resolve topics in this channel.")
        return
    if not (
        await has_realm_permission(conn, realm, user, "can_move_messages_between_topics_group")
        or await _in_channel_setting(conn, user, stream, "can_move_messages_within_channel_group")
    ):
        raise ZulipError("You don't have permission to edit this message")
    limit = realm_settings.load(realm.settings_json).move_messages_within_stream_limit_seconds
    if not user.is_moderator and _past(message, limit, now):
        raise ZulipError("The time limit for editing this message's topic has passed.")


async def _check_move_permission(
    conn: Conn, realm: RealmRow, user: UserRow, message: MessageRow, stream: StreamRow,
    target: StreamRow, now: int,
) -> None:  # fmt: skip
    if not (
        await has_realm_permission(conn, realm, user, "can_move_messages_between_channels_group")
        or await _in_channel_setting(conn, user, stream, "can_move_messages_out_of_channel_group")
    ):
        raise ZulipError("You don't have permission to move this message")
    if not await _in_channel_setting(conn, user, target, "can_send_message_group"):
        raise ZulipError("You do not have permission to post in this channel.")
    limit = realm_settings.load(realm.settings_json).move_messages_between_streams_limit_seconds
    if not user.is_moderator and _past(message, limit, now):
        raise ZulipError("The time limit for editing this message's channel has passed")


async def _check_change_all_limit(
    conn: Conn, realm: RealmRow, user: UserRow, message: MessageRow, stream: StreamRow,
    topic_moved: bool, stream_moved: bool, now: int,
) -> None:  # fmt: skip
    """Zulip's check_time_limit_for_change_all_propagate_mode."""
    settings = realm_settings.load(realm.settings_json)
    limits = [
        limit + EDIT_LIMIT_BUFFER_SECS
        for limit, moved in (
            (settings.move_messages_within_stream_limit_seconds, topic_moved),
            (settings.move_messages_between_streams_limit_seconds, stream_moved),
        )
        if moved and limit is not None
    ]
    if not limits:
        return
    sub = await sub_store.get_subscription(conn, user.id, stream.id)
    history = access.can_access_history(user, stream, sub is not None and sub.active)
    ids = await message_store.topic_message_ids(
        conn, message.recipient_id, message.topic, visible_to=None if history else user.id
    )
    rows = await message_store.list_messages(conn, ids)
    allowed = [r.id for r in rows if r.date_sent > now - min(limits)]
    if len(allowed) != len(rows):
        raise ZulipError(
            f"You only have permission to move the {len(allowed)}/{len(rows)} most recent"
            " messages in this topic.",
            first_message_id_allowed_to_move=allowed[0] if allowed else None,
            total_messages_in_topic=len(rows),
            total_messages_allowed_to_move=len(allowed),
        )


async def check_update_message(
    rt: Runtime, user: UserRow, message_id: int, request: EditRequest
) -> int:
    """Validate and apply an edit; return how many messages changed."""
    if request.propagate_mode not in PROPAGATE_MODES:
        raise ZulipError("Invalid propagate_mode")
    now = rt.now()
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        assert realm is not None
        message, _ = await access_message(conn, user, message_id)
        settings = realm_settings.load(realm.settings_json)
        if request.content is not None:
            check_can_edit_content(settings, user, message, now, EDIT_LIMIT_BUFFER_SECS)
            if await submessage_store.for_messages(conn, [message.id]):
                raise ZulipError("Widgets cannot be edited.")
        topic = _new_topic(message, request.topic)
        _check_payload(message, request, topic)
        plan = await _plan(conn, realm, user, message, request, topic, now)
    count = await message_update.do_update_message(rt, realm, user, message, plan)
    old, new = plan.stream, plan.target_stream
    if old is not None and new is not None and (plan.topic is not None or new.id != old.id):
        resolved, unresolved = resolve_change(message.topic, plan.topic or message.topic)
        await send_move_notifications(
            rt,
            user,
            Move(message, old, new, plan.topic or message.topic, count),
            resolved=resolved,
            unresolved=unresolved,
            notify_old=request.send_notification_to_old_thread,
            notify_new=request.send_notification_to_new_thread,
            realm_url=request.realm_url,
        )
    return count


async def _plan(
    conn: Conn, realm: RealmRow, user: UserRow, message: MessageRow, request: EditRequest,
    topic: str | None, now: int,
) -> message_update.EditPlan:  # fmt: skip
    plan = message_update.EditPlan(propagate_mode=request.propagate_mode)
    stream = None
    if message.stream_id is not None:
        stream = await stream_store.get_stream_by_id(conn, message.stream_id)
        assert stream is not None
        plan = await _plan_move(conn, realm, user, message, stream, request, topic, now)
    if request.content is not None:
        # zulip-compat: emptying a message leaves "(deleted)".
        raw = request.content if request.content.rstrip() else "(deleted)"
        content = normalize_content(raw)
        rendered = await render(conn, user, content, request.realm_url, previews=True, now=now)
        if stream is not None:
            await _check_edit_wildcards(conn, realm, message, stream, rendered)
        members = await context_store.group_member_ids(conn, rendered.mentioned_group_ids)
        plan = msgspec.structs.replace(
            plan, content=content, rendered=rendered, group_member_ids=members
        )
    return msgspec.structs.replace(plan, realm_url=request.realm_url)


async def _plan_move(
    conn: Conn, realm: RealmRow, user: UserRow, message: MessageRow, stream: StreamRow,
    request: EditRequest, topic: str | None, now: int,
) -> message_update.EditPlan:  # fmt: skip
    """The channel/topic part of an edit, with its permission checks."""
    target = stream
    if request.stream_id is not None and request.stream_id != stream.id:
        target, _ = await access.access_stream_by_id(conn, user, request.stream_id)
        await _check_move_permission(conn, realm, user, message, stream, target, now)
    if topic is not None:
        topic = truncate(topic, MAX_TOPIC_LENGTH, "...")
        await _check_topic_permission(conn, realm, user, message, stream, topic, now)
    moved = topic is not None or target.id != stream.id
    _check_topics_policy(realm, target, topic if topic is not None else message.topic, moved=moved)
    resolved, unresolved = resolve_change(message.topic, topic) if topic else (False, False)
    if (
        request.propagate_mode == "change_all"
        and moved
        and not user.is_moderator
        and not (resolved or unresolved)
    ):
        await _check_change_all_limit(
            conn, realm, user, message, stream, topic is not None, target.id != stream.id, now
        )
    return message_update.EditPlan(
        stream=stream, target_stream=target, topic=topic, propagate_mode=request.propagate_mode
    )


def _check_topics_policy(realm: RealmRow, stream: StreamRow, topic: str, *, moved: bool) -> None:
    policy = stream.topics_policy
    if policy == "inherit":
        settings = realm_settings.load(realm.settings_json)
        policy = "disable_empty_topic" if settings.mandatory_topics else settings.topics_policy
    if moved and topic == "" and policy == "disable_empty_topic":
        raise ZulipError(
            f'Sending messages to "{EMPTY_TOPIC_DISPLAY_NAME}" is not allowed in this channel.'
        )
    if policy == "empty_topic_only" and topic != "":
        raise ZulipError(f'Only the "{EMPTY_TOPIC_DISPLAY_NAME}" topic is allowed in this channel.')


async def _check_edit_wildcards(
    conn: Conn, realm: RealmRow, message: MessageRow, stream: StreamRow,
    rendered: message_update.Rendered,
) -> None:  # fmt: skip
    sender = await user_store.get_user_by_id(conn, message.sender_id)
    assert sender is not None
    may_mention_many = await has_realm_permission(
        conn, realm, sender, "can_mention_many_users_group"
    )
    if rendered.stream_wildcard and not may_mention_many:
        count = (await sub_store.subscriber_counts(conn, [stream.id])).get(stream.id, 0)
        if count > ch.WILDCARD_MENTION_THRESHOLD:
            raise StreamWildcardMentionNotAllowedError()
    if rendered.topic_wildcard and not may_mention_many:
        participants = await message_store.topic_participants(
            conn, message.recipient_id, message.topic
        )
        if len(participants) > ch.WILDCARD_MENTION_THRESHOLD:
            raise TopicWildcardMentionNotAllowedError()

"""What sending, editing and reading messages share: rendering with the realm's data, access
checks, and building message objects for a viewer.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any

import msgspec

from teamchat.actions.channels.channel_access import can_access_history, can_see_stream
from teamchat.actions.messages import preview_context
from teamchat.actions.org.linkifiers import render_linkifiers
from teamchat.actions.org.realm_emoji import realm_emoji_map
from teamchat.actions.people.user_access import inaccessible_user_ids
from teamchat.errors import ZulipError
from teamchat.lib import flags as fl
from teamchat.lib import realm_settings, user_settings, wire
from teamchat.lib.api_types import JsonDict
from teamchat.lib.message_wire import ClientView, MessageExtras, finalize, message_dict
from teamchat.records import MessageRow, RealmRow, StreamRow, UserRow
from teamchat.render.markdown import (
    MentionTarget,
    RenderContext,
    Rendered,
    StreamTarget,
    has_math,
    render_markdown,
    topic_links,
)
from teamchat.runtime import Runtime
from teamchat.store import message_context as context_store
from teamchat.store import message_flags as flag_store
from teamchat.store import messages as message_store
from teamchat.store import reactions as reaction_store
from teamchat.store import realm as realm_store
from teamchat.store import streams as stream_store
from teamchat.store import submessages as submessage_store
from teamchat.store import subscriptions as sub_store
from teamchat.store import user_groups as user_group_store
from teamchat.store import users as user_store
from teamchat.store.db import Conn

_MAYBE_USER_MENTION = re.compile(r"@_?\*\*")
_MAYBE_GROUP_MENTION = re.compile(r"@_?\*[^*]")
_MAYBE_FENCE = re.compile(r"^[ ]{0,3}(?:`{3,}|~{3,})", re.MULTILINE)
_MAYBE_EMOTICON = re.compile(r"[:;(<][()|/DOoPp3:]")


async def _default_code_block_language(conn: Conn, content: str) -> str:
    if not _MAYBE_FENCE.search(content):
        return ""
    realm = await realm_store.get_realm(conn)
    return realm_settings.load(realm.settings_json).default_code_block_language if realm else ""


async def render_context(
    conn: Conn,
    sender: UserRow,
    content: str,
    realm_url: str,
    *,
    previews: bool = False,
    now: float | None = None,
) -> RenderContext:
    """The realm data the renderer needs for `content` (only what its syntax could use);
    with `previews`, what inline image previews need (messages, not descriptions); `now`
    (the action's clock) dates a `<time:...>` that names no day."""
    users_by_name: dict[str, list[MentionTarget]] = {}
    users_by_id: dict[int, MentionTarget] = {}
    if _MAYBE_USER_MENTION.search(content):
        users = await user_store.list_users(conn, is_active=True)
        # zulip-compat: MentionBackend leaves out the people a limited guest may not access.
        hidden = await inaccessible_user_ids(conn, sender, users)
        for user in users:
            if user.id in hidden:
                continue
            target = MentionTarget(user_id=user.id, full_name=user.full_name)
            users_by_id[user.id] = target
            users_by_name.setdefault(user.full_name.casefold(), []).append(target)
    groups: dict[str, int] = {}
    if _MAYBE_GROUP_MENTION.search(content):
        groups = await user_group_store.groups_by_name(conn)
    streams: dict[str, StreamTarget] = {}
    if "#**" in content:
        subscribed = await sub_store.active_stream_ids(conn, sender.id)
        for stream in await stream_store.list_streams(conn, include_archived=False):
            if can_see_stream(sender, stream, stream.id in subscribed):
                streams[stream.name] = StreamTarget(stream_id=stream.id, name=stream.name)
    return RenderContext(
        users_by_name=users_by_name,
        users_by_id=users_by_id,
        groups_by_name=groups,
        streams_by_name=streams,
        realm_emoji=await realm_emoji_map(conn) if ":" in content else {},
        linkifiers=await render_linkifiers(conn),
        alert_words=await context_store.alert_words(conn),
        realm_url=realm_url,
        default_code_block_language=await _default_code_block_language(conn, content),
        # zulip-compat: the sender's setting when the message is rendered decides.
        translate_emoticons=bool(_MAYBE_EMOTICON.search(content))
        and user_settings.load(sender.settings_json).translate_emoticons,
        **(await _preview_fields(conn, content) if previews else {}),
        # zulip-compat: dateutil fills a missing date from today's (UTC on Zulip's servers).
        today=None if now is None or "<time:" not in content else _utc_day(now),
    )


def _utc_day(now: float) -> date:
    return datetime.fromtimestamp(now, UTC).date()


async def _preview_fields(conn: Conn, content: str) -> dict[str, Any]:
    if "http" not in content and "/user_uploads/" not in content:
        return {}
    if not await preview_context.image_preview_enabled(conn):
        return {}
    return {
        "image_preview": True,
        "upload_previews": await preview_context.upload_previews(conn, content),
        "camo_key": await preview_context.camo_key(conn) if "http" in content else b"",
    }


async def render(
    conn: Conn,
    sender: UserRow,
    content: str,
    realm_url: str,
    *,
    previews: bool = False,
    now: float | None = None,
) -> Rendered:
    """Render `content` as `sender` wrote it (`previews`: as a message, with image previews).
    Math (KaTeX, milliseconds a formula) renders in a worker thread so the event loop stays
    free; everything else renders inline."""
    ctx = await render_context(conn, sender, content, realm_url, previews=previews, now=now)
    if has_math(content) or ctx.default_code_block_language.lower() == "math":
        return await asyncio.to_thread(render_markdown, content, ctx)
    return render_markdown(content, ctx)


async def links_for_topic(conn: Conn, topic: str) -> list[dict[str, str]]:
    """`topic_links` of a topic: the realm's linkifiers and raw URLs."""
    return topic_links(topic, await render_linkifiers(conn))


async def access_message(
    conn: Conn, user: UserRow, message_id: int
) -> tuple[MessageRow, int | None]:
    """The message and the user's flags (None: no user_message row) or "Invalid message(s)"."""
    message = await message_store.get_message(conn, message_id)
    if message is None:
        raise ZulipError("Invalid message(s)")
    flags = (await flag_store.user_flags(conn, user.id, [message_id])).get(message_id)
    if message.stream_id is None:
        if flags is None:
            raise ZulipError("Invalid message(s)")
        return message, flags
    stream = await stream_store.get_stream_by_id(conn, message.stream_id)
    assert stream is not None
    if not await has_stream_message_access(conn, user, stream, has_user_message=flags is not None):
        raise ZulipError("Invalid message(s)")
    return message, flags


async def has_stream_message_access(
    conn: Conn, user: UserRow, stream: StreamRow, *, has_user_message: bool
) -> bool:
    """Zulip's has_message_access for a channel message."""
    if stream.is_web_public or (stream.is_public and not user.is_guest):
        return True
    sub = await sub_store.get_subscription(conn, user.id, stream.id)
    subscribed = sub is not None and sub.active
    if not stream.history_public_to_subscribers:
        return has_user_message and subscribed
    return subscribed and can_access_history(user, stream, subscribed)


async def message_extras(conn: Conn, rows: Sequence[MessageRow]) -> dict[int, MessageExtras]:
    """Senders, channel names, participants, reactions and topic links of the messages."""
    names = await stream_store.stream_names(
        conn, {r.stream_id for r in rows if r.stream_id is not None}
    )
    participants = await message_store.dm_participants(
        conn, {r.recipient_id for r in rows if r.stream_id is None}
    )
    user_ids = {r.sender_id for r in rows} | {u for ids in participants.values() for u in ids}
    users = {u.id: u for u in await user_store.list_users(conn, user_ids=sorted(user_ids))}
    reactions = await reaction_store.list_reactions(conn, [r.id for r in rows])
    submessages = await submessage_store.for_messages(conn, [r.id for r in rows])
    linkifiers = await render_linkifiers(conn)
    links = {
        topic: topic_links(topic, linkifiers)
        for topic in {r.topic for r in rows if r.stream_id is not None}
    }
    return {
        row.id: MessageExtras(
            sender=users[row.sender_id],
            stream_name=names[row.stream_id] if row.stream_id is not None else None,
            participants=[users[u] for u in participants.get(row.recipient_id, [])],
            reactions=reactions.get(row.id, []),
            topic_links=links[row.topic] if row.stream_id is not None else [],
            submessages=submessages.get(row.id, []),
        )
        for row in rows
    }


async def messages_for_viewer(
    conn: Conn,
    realm: RealmRow,
    viewer: UserRow,
    rows: Sequence[MessageRow],
    flags: dict[int, int],
    view: ClientView,
) -> list[JsonDict]:
    """Message objects as `viewer` sees them, each with its `flags`."""
    extras = await message_extras(conn, rows)
    settings = realm_settings.load(realm.settings_json)
    history_allowed = (
        settings.allow_edit_history and settings.message_edit_history_visibility_policy != "none"
    )
    view = msgspec.structs.replace(
        view,
        allow_edit_history=history_allowed,
        history_moves_only=settings.message_edit_history_visibility_policy == "moves",
    )
    senders = list({e.sender.id: e.sender for e in extras.values()}.values())
    hidden = await inaccessible_user_ids(conn, viewer, senders)
    email_visible = {s.id: wire.can_see_delivery_email(viewer, s) for s in senders}
    result = []
    for row in rows:
        extra = extras[row.id]
        obj = finalize(
            message_dict(row, extra, realm),
            row.content,
            view,
            sender_gravatar=extra.sender.avatar_source == "G",
            sender_email_visible=email_visible[row.sender_id],
        )
        if row.sender_id in hidden:
            # zulip-compat: finalize_payload's can_access_sender=False.
            obj.update(wire.inaccessible_sender_fields(row.sender_id, realm.host))
        obj["flags"] = fl.flag_names(flags.get(row.id, fl.HISTORICAL_FLAGS))
        result.append(obj)
    return result


async def render_preview(rt: Runtime, user: UserRow, content: str, realm_url: str) -> str:
    """POST /messages/render: the HTML `content` would get if `user` sent it."""
    async with rt.db.read() as conn:
        return (await render(conn, user, content, realm_url, previews=True, now=rt.clock())).html

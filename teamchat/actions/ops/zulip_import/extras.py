"""The smaller tables of a Zulip export for `teamchat import`: channel folders, bots'
services, configuration, storage and defaults, user status and presence, scheduled
messages and reminders; and rendering what Zulip left unrendered (the organization's
description, messages without rendered content). Written in the import's transaction.
"""

from __future__ import annotations

import json

from teamchat import store
from teamchat.actions.messages.message_common import render
from teamchat.actions.ops.zulip_import import plan
from teamchat.actions.ops.zulip_import.plan import as_int, as_opt_int, as_str
from teamchat.errors import ZulipError
from teamchat.lib import zulip_export_format as fmt
from teamchat.lib.zulip_export_reader import Record, TableData
from teamchat.records import UserRow
from teamchat.render.markdown import render_plain_markdown
from teamchat.render.sanitize import sanitize_html
from teamchat.store import zulip_import_extras as bulk
from teamchat.store.db import Tx

_RENDER_BATCH = 1000
# ScheduledMessage.delivery_type
_DELIVERY_TYPES = {1: "send_later", 2: "remind"}


async def import_extras(tx: Tx, data: TableData, counts: dict[str, int]) -> None:
    """Everything this module owns, from realm.json's tables."""
    folders = [
        (
            as_int(f["id"]),
            as_str(f.get("name")),
            as_str(f.get("description")),
            render_plain_markdown(as_str(f.get("description"))),  # never the export's HTML
            as_int(f.get("order")),
            as_int(f.get("date_created")),
            as_opt_int(f.get("creator")),
            int(bool(f.get("is_archived"))),
        )
        for f in data.get("zerver_channelfolder", [])
    ]
    stream_folders = [
        (as_int(s["folder"]), as_int(s["id"]))
        for s in data.get("zerver_stream", [])
        if isinstance(s.get("folder"), int)
    ]
    await bulk.insert_channel_folders(tx, folders, stream_folders)
    await _import_bots(tx, data)
    statuses = [
        (
            as_int(s["user_profile"]),
            as_int(s.get("timestamp")),
            as_str(s.get("status_text")),
            as_str(s.get("emoji_name")),
            as_str(s.get("emoji_code")),
            as_str(s.get("reaction_type"), "unicode_emoji") or "unicode_emoji",
        )
        for s in data.get("zerver_userstatus", [])
    ]
    presences = [
        (
            as_int(p["user_profile"]),
            as_opt_int(p.get("last_active_time")),
            as_opt_int(p.get("last_connected_time")),
        )
        for p in data.get("zerver_userpresence", [])
    ]
    await bulk.insert_status_and_presence(tx, statuses, presences)
    await _import_personal_views(tx, data, counts)
    scheduled = _scheduled_rows(data)
    await bulk.insert_scheduled_messages(tx, scheduled)
    counts["channel folders"] = len(folders)
    counts["scheduled messages"] = len(scheduled)


async def _import_personal_views(tx: Tx, data: TableData, counts: dict[str, int]) -> None:
    """Saved snippets, navigation views, and the submessages of polls and to-do lists."""
    snippets = [
        (
            as_int(r["id"]),
            as_int(r["user_profile"]),
            as_str(r.get("title")),
            as_str(r.get("content")),
            as_int(r.get("date_created")),
        )
        for r in data.get("zerver_savedsnippet", [])
    ]
    views = [
        (
            as_int(r["id"]),
            as_int(r["user"]),
            as_str(r.get("fragment")),
            int(bool(r.get("is_pinned"))),
            r.get("name") if isinstance(r.get("name"), str) else None,
        )
        for r in data.get("zerver_navigationview", [])
    ]
    submessages = [
        (
            as_int(r["id"]),
            as_int(r["message"]),
            as_int(r["sender"]),
            as_str(r.get("msg_type")),
            as_str(r.get("content")),
        )
        for r in data.get("zerver_submessage", [])
    ]
    await bulk.insert_personal_views(tx, snippets, views, submessages)
    counts["saved snippets"] = len(snippets)
    counts["submessages"] = len(submessages)


async def _import_bots(tx: Tx, data: TableData) -> None:
    services = [
        (
            as_int(s["id"]),
            as_int(s["user_profile"]),
            as_str(s.get("name")),
            as_str(s.get("base_url")),
            as_int(s.get("interface"), 1),
            as_str(s.get("token")),
        )
        for s in data.get("zerver_service", [])
    ]
    config = [
        (as_int(c["bot_profile"]), as_str(c.get("key")), as_str(c.get("value")))
        for c in data.get("zerver_botconfigdata", [])
    ]
    storage = [
        (as_int(c["bot_profile"]), as_str(c.get("key")), as_str(c.get("value")))
        for c in data.get("zerver_botstoragedata", [])
    ]
    stream_ids = {as_int(s["id"]) for s in data.get("zerver_stream", [])}

    def stream(value: object) -> int | None:
        return value if isinstance(value, int) and value in stream_ids else None

    defaults = [
        (
            as_int(u["id"]),
            stream(u.get("default_sending_stream")),
            stream(u.get("default_events_register_stream")),
            int(bool(u.get("default_all_public_streams"))),
        )
        for u in data.get("zerver_userprofile", [])
        if u.get("is_bot") and "default_sending_stream" in u
    ]
    await bulk.insert_bot_data(tx, services, config, storage, defaults)


def _scheduled_rows(data: TableData) -> list[tuple[object, ...]]:
    """Pending scheduled messages and reminders (delivered ones are messages already)."""
    recipients = plan.Recipients(data)
    clients = {as_int(c["id"]): as_str(c.get("name")) for c in data.get("zerver_client", [])}
    rows: list[tuple[object, ...]] = []
    for s in data.get("zerver_scheduledmessage", []):
        if s.get("delivered"):
            continue
        sender = as_int(s["sender"])
        stream_id, to_user_ids = _scheduled_recipient(recipients, s, sender)
        content = as_str(s.get("content"))
        rendered = plan.rendered_or_escaped(s.get("rendered_content"), content)
        rows.append(
            (
                as_int(s["id"]),
                sender,
                _DELIVERY_TYPES.get(as_int(s.get("delivery_type")), "send_later"),
                "stream" if stream_id is not None else "private",
                stream_id,
                to_user_ids,
                as_str(s.get("subject")) if stream_id is not None else "",
                content,
                sanitize_html(rendered),
                as_int(s.get("scheduled_timestamp")),
                int(bool(s.get("read_by_sender"))),
                clients.get(as_int(s.get("sending_client")), ""),
                int(bool(s.get("failed"))),
                as_opt_int(s.get("reminder_target_message_id")),
            )
        )
    return rows


def _scheduled_recipient(
    recipients: plan.Recipients, s: Record, sender: int
) -> tuple[int | None, str | None]:
    """(channel id, None) or (None, JSON list of the other participants, or the sender)."""
    kind, type_id = recipients.kind.get(as_int(s["recipient"]), (0, 0))
    if kind == fmt.RECIPIENT_STREAM:
        return type_id, None
    if kind == fmt.RECIPIENT_PERSONAL:
        return None, json.dumps([type_id])
    if kind == fmt.RECIPIENT_DIRECT_MESSAGE_GROUP:
        members = recipients.group_members.get(as_int(s["recipient"]), [])
        others = sorted(set(members) - {sender}) or [sender]
        return None, json.dumps(others)
    raise ZulipError(f"scheduled message {s.get('id')} has an unknown recipient")


async def render_what_zulip_did_not(tx: Tx, message_ids: list[int]) -> None:
    """Render the organization's description and the messages listed (each as its sender
    wrote it) now that people, channels, groups and linkifiers are in place."""
    realm = await store.realm.get_realm(tx)
    assert realm is not None
    senders: dict[int, UserRow] = {}
    # In batches: a Slack import renders every message, and holds one batch at a time.
    for start in range(0, len(message_ids), _RENDER_BATCH):
        batch = message_ids[start : start + _RENDER_BATCH]
        for message in await store.messages.list_messages(tx, batch):
            sender = senders.get(message.sender_id)
            if sender is None:
                sender = await store.users.get_user_by_id(tx, message.sender_id)
                assert sender is not None
                senders[message.sender_id] = sender
            rendered = await render(tx, sender, message.content, "")
            await store.messages.set_rendered_content(tx, message.id, rendered.html)
    owners = [u for u in await store.users.list_users(tx) if u.is_owner and not u.is_bot]
    if not owners:
        return
    if realm.description:
        html = (await render(tx, owners[0], realm.description, "")).html
        await store.realm.update_name_description(
            tx, realm.id, name=realm.name, description=realm.description,
            rendered_description=html,
        )  # fmt: skip
    for channel in await store.streams.list_streams(tx):
        if channel.description:  # as a channel's creator would get it rendered
            html = (await render(tx, owners[0], channel.description, "")).html
            await store.streams.update_stream(tx, channel.id, rendered_description=html)

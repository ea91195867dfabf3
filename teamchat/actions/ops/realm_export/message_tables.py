"""The message files (zerver_message + zerver_usermessage, 1000 messages each), the
reactions and scheduled messages of realm.json, and attachment.json.

Which messages an export holds depends on its type, as in Zulip: a public export holds
public channels' messages; one with consent adds what consenting users received (and only
their flags); a full export holds everything.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import msgspec

from teamchat.actions.ops.realm_export.context import ExportContext, as_float
from teamchat.lib import zulip_export_format as fmt
from teamchat.store.export_snapshot import Row

Table = list[Row]
WriteJson = Callable[[str, object], None]
Progress = Callable[[int], None]
_DELIVERY_TYPES = {"send_later": 1, "remind": 2}


class ClientIds:
    """zerver_client: one row per client name, ids allocated as names appear."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def id_of(self, name: str) -> int:
        """The id of client `name` (`Internal` for an empty name)."""
        return self.ids.setdefault(name or fmt.DEFAULT_CLIENT, len(self.ids) + 1)

    def table(self) -> Table:
        """The zerver_client rows."""
        return [{"id": cid, "name": name} for name, cid in self.ids.items()]


def zulip_edit_history(stored: object) -> str | None:
    """Zulip's stored edit history (newest first) from teamchat's (oldest first)."""
    if stored is None:
        return None
    entries = msgspec.json.decode(str(stored), type=list[dict[str, object]])
    for entry in entries:
        if "prev_content" in entry:
            entry.setdefault("prev_rendered_content_version", 1)
    return msgspec.json.encode(entries[::-1]).decode()


def message_row(ctx: ExportContext, m: Row, clients: ClientIds) -> Row:
    """One zerver_message row."""
    sender = int(str(m["sender_id"]))
    return {
        "id": m["id"],
        "sender": sender,
        "recipient": ctx.message_recipient(sender, int(str(m["recipient_id"]))),
        "realm": ctx.realm_id,
        "subject": m["topic"],
        "content": m["content"],
        "rendered_content": m["rendered_content"],
        "rendered_content_version": 1,
        "date_sent": as_float(m["date_sent"]),
        "last_edit_time": as_float(m["last_edit_time"]),
        "edit_history": zulip_edit_history(m["edit_history"]),
        "sending_client": clients.id_of(str(m["client"])),
        "has_attachment": bool(m["has_attachment"]),
        "has_image": bool(m["has_image"]),
        "has_link": bool(m["has_link"]),
        "is_channel_message": m["stream_id"] is not None,
    }


def _selected(ctx: ExportContext, batch: list[Row], ums: list[Row]) -> set[int]:
    """Ids of the messages of `batch` this export's type includes."""
    if ctx.export_type == fmt.EXPORT_FULL_WITHOUT_CONSENT:
        return {int(str(m["id"])) for m in batch}
    public = ctx.public_stream_ids
    chosen = {int(str(m["id"])) for m in batch if m["stream_id"] in public}
    if ctx.export_type == fmt.EXPORT_FULL_WITH_CONSENT:
        chosen |= {int(str(um["message_id"])) for um in ums if um["user_id"] in ctx.consented}
    return chosen


def write_message_files(
    ctx: ExportContext, clients: ClientIds, write: WriteJson, progress: Progress
) -> set[int]:
    """Write messages-000001.json...; return the ids of the messages written."""
    exported: set[int] = set()
    user_message_ids = itertools.count(1)
    number = 0
    for batch in ctx.snapshot.messages(fmt.MESSAGES_PER_FILE):
        ums = ctx.snapshot.user_messages(int(str(batch[0]["id"])), int(str(batch[-1]["id"])))
        chosen = _selected(ctx, batch, ums)
        progress(len(batch))
        if not chosen:
            continue
        exported |= chosen
        consent_only = ctx.export_type == fmt.EXPORT_FULL_WITH_CONSENT
        number += 1
        write(
            fmt.message_file_name(number),
            {
                "zerver_message": [
                    message_row(ctx, m, clients) for m in batch if m["id"] in chosen
                ],
                "zerver_usermessage": [
                    {
                        "id": next(user_message_ids),
                        "user_profile": um["user_id"],
                        "message": um["message_id"],
                        "flags_mask": fmt.zulip_flags_mask(int(str(um["flags"]))),
                    }
                    for um in ums
                    if um["message_id"] in chosen
                    and ctx.is_exported_user(int(str(um["user_id"])))
                    and (not consent_only or um["user_id"] in ctx.consented)
                ],
            },
        )
    return exported


def reaction_table(ctx: ExportContext, message_ids: set[int]) -> Table:
    """zerver_reaction for the exported messages."""
    return [
        {
            "id": r["id"],
            "message": r["message_id"],
            "user_profile": r["user_id"],
            "emoji_name": r["emoji_name"],
            "emoji_code": r["emoji_code"],
            "reaction_type": r["reaction_type"],
        }
        for r in ctx.snapshot.rows("reaction")
        if r["message_id"] in message_ids
    ]


def _scheduled_recipient(ctx: ExportContext, s: Row) -> int | None:
    if s["recipient_type"] == "stream":
        return ctx.stream_recipient.get(int(str(s["stream_id"])))
    sender = int(str(s["sender_id"]))
    users = set(msgspec.json.decode(str(s["to_user_ids"] or "[]"), type=list[int]))
    others = users - {sender}
    if len(others) <= 1:
        return ctx.personal_recipient.get(next(iter(others), sender))
    members = sorted(others | {sender})
    return next((rid for rid, ids in ctx.dm_members.items() if sorted(ids) == members), None)


def scheduled_message_table(ctx: ExportContext, clients: ClientIds) -> Table:
    """zerver_scheduledmessage: a full export's pending scheduled messages and reminders."""
    if ctx.export_type == fmt.EXPORT_PUBLIC:
        return []
    rows: Table = []
    for s in ctx.snapshot.rows("scheduled_message"):
        recipient = _scheduled_recipient(ctx, s)
        consented = ctx.export_type != fmt.EXPORT_FULL_WITH_CONSENT or s["sender_id"] in (
            ctx.consented
        )
        if recipient is None or not consented:
            continue
        rows.append(
            {
                "id": s["id"],
                "sender": s["sender_id"],
                "recipient": recipient,
                "realm": ctx.realm_id,
                "stream": s["stream_id"],
                "subject": s["topic"],
                "content": s["content"],
                "rendered_content": s["rendered_content"],
                "sending_client": clients.id_of(fmt.DEFAULT_CLIENT),
                "scheduled_timestamp": as_float(s["scheduled_timestamp"]),
                "read_by_sender": bool(s["read_by_sender"]),
                "delivered": False,
                "delivered_message": None,
                "has_attachment": False,
                "failed": bool(s["failed"]),
                "delivery_type": _DELIVERY_TYPES[str(s["delivery_type"])],
                "reminder_target_message_id": s["reminder_target_message_id"],
            }
        )
    return rows


def attachment_table(ctx: ExportContext, message_ids: set[int]) -> Table:
    """zerver_attachment with each upload's exported messages (a full export keeps all)."""
    linked: dict[int, list[int]] = {}
    for link in ctx.snapshot.rows("attachment_message"):
        if link["message_id"] in message_ids:
            linked.setdefault(int(str(link["attachment_id"])), []).append(
                int(str(link["message_id"]))
            )
    keep_all = ctx.export_type == fmt.EXPORT_FULL_WITHOUT_CONSENT
    return [
        {
            "id": a["id"],
            "realm": ctx.realm_id,
            "owner": a["owner_id"],
            "file_name": a["file_name"],
            "path_id": a["path_id"],
            "content_type": a["content_type"],
            "size": a["size"],
            "create_time": as_float(a["create_time"]),
            "is_realm_public": None,
            "is_web_public": None,
            "messages": sorted(linked.get(int(str(a["id"])), [])),
            "scheduled_messages": [],
        }
        for a in ctx.snapshot.rows("attachment")
        if keep_all or int(str(a["id"])) in linked
    ]


def submessage_table(ctx: ExportContext, message_ids: set[int]) -> Table:
    """zerver_submessage (polls' and to-do lists' state) of the exported messages."""
    return [
        {
            "id": sm["id"],
            "message": sm["message_id"],
            "sender": sm["sender_id"],
            "msg_type": sm["msg_type"],
            "content": sm["content"],
        }
        for sm in ctx.snapshot.rows("submessage")
        if sm["message_id"] in message_ids
    ]

"""realm.json's conversation tables: zerver_stream, zerver_recipient, zerver_subscription and
zerver_huddle (direct message groups of three or more; two-person conversations go to each
person's personal recipient, as in Zulip).
"""

from __future__ import annotations

import hashlib

from teamchat.actions.ops.realm_export.context import ExportContext, as_float, settings_of
from teamchat.lib import zulip_export_format as fmt
from teamchat.lib.channels import CHANNEL_GROUP_SETTING_DEFAULTS, CREATOR
from teamchat.store.export_snapshot import Row

Table = list[Row]
_DEFAULT_COLOR = "#c2c2c2"
_NOTIFY = (
    "desktop_notifications",
    "audible_notifications",
    "push_notifications",
    "email_notifications",
    "wildcard_mentions_notify",
)


def _nullable_bool(value: object) -> bool | None:
    return None if value is None else bool(value)


def _channel_default(stream: Row, name: str) -> object:
    default = CHANNEL_GROUP_SETTING_DEFAULTS[name]
    if default != CREATOR:
        return default
    creator = stream["creator_id"]
    if creator is None:
        return None
    return {"direct_members": [creator], "direct_subgroups": []}


def stream_row(ctx: ExportContext, stream: Row) -> Row:
    """One zerver_stream row (no email_token: Zulip leaves it out of exports)."""
    sid = int(str(stream["id"]))
    stored = settings_of(stream)
    row: Row = {
        "id": sid,
        "realm": ctx.realm_id,
        "name": stream["name"],
        "description": stream["description"],
        "rendered_description": stream["rendered_description"],
        "date_created": as_float(stream["date_created"]),
        "deactivated": bool(stream["is_archived"]),
        "invite_only": bool(stream["invite_only"]),
        "is_web_public": bool(stream["is_web_public"]),
        "history_public_to_subscribers": bool(stream["history_public_to_subscribers"]),
        "message_retention_days": stream["message_retention_days"],
        "topics_policy": fmt.TOPICS_POLICY.get(str(stream["topics_policy"]), 1),
        "first_message_id": stream["first_message_id"],
        "creator": stream["creator_id"],
        "folder": stream["folder_id"],
        "recipient": ctx.stream_recipient.get(sid),
        "is_in_zephyr_realm": False,
    }
    for name in CHANNEL_GROUP_SETTING_DEFAULTS:
        row[name] = ctx.group_setting(stored.get(name), _channel_default(stream, name))
    return row


def _huddle_hash(user_ids: list[int]) -> str:
    # zulip-compat: get_direct_message_group_hash, sha1 of the sorted ids joined by commas.
    return hashlib.sha1(",".join(str(u) for u in sorted(set(user_ids))).encode()).hexdigest()


def _subscription(n: int, user_id: int, recipient_id: int, active: bool = True) -> Row:
    return {
        "id": n,
        "user_profile": user_id,
        "recipient": recipient_id,
        "active": active,
        "is_user_active": True,
        "is_muted": False,
        "color": _DEFAULT_COLOR,
        "pin_to_top": False,
        **dict.fromkeys(_NOTIFY),
    }


def conversation_tables(ctx: ExportContext) -> dict[str, Table]:
    """zerver_stream, zerver_recipient, zerver_subscription, zerver_huddle."""
    streams = ctx.snapshot.rows("stream")
    recipients: Table = []
    subscriptions: Table = []
    huddles: Table = []
    for uid in sorted(ctx.user_by_id):
        if ctx.is_exported_user(uid):
            rid = ctx.personal_recipient[uid]
            recipients.append({"id": rid, "type": fmt.RECIPIENT_PERSONAL, "type_id": uid})
            subscriptions.append(_subscription(len(subscriptions) + 1, uid, rid))
    for sid, rid in sorted(ctx.stream_recipient.items()):
        recipients.append({"id": rid, "type": fmt.RECIPIENT_STREAM, "type_id": sid})
    for sub in ctx.snapshot.rows("subscription"):
        if not ctx.is_exported_user(int(str(sub["user_id"]))):
            continue  # system bots: cross-realm users, as in Zulip's export
        row = _subscription(
            len(subscriptions) + 1,
            int(str(sub["user_id"])),
            ctx.stream_recipient[int(str(sub["stream_id"]))],
            bool(sub["active"]),
        )
        row["is_muted"] = bool(sub["is_muted"])
        row["color"] = sub["color"]
        row["pin_to_top"] = bool(sub["pin_to_top"])
        row.update({name: _nullable_bool(sub[name]) for name in _NOTIFY})
        subscriptions.append(row)
    for rid, members in sorted(ctx.dm_members.items()):
        if len(members) <= 2:
            continue
        recipients.append({"id": rid, "type": fmt.RECIPIENT_DIRECT_MESSAGE_GROUP, "type_id": rid})
        huddles.append(
            {
                "id": rid,
                "huddle_hash": _huddle_hash(members),
                "recipient": rid,
                "group_size": len(set(members)),
            }
        )
        for uid in members:
            subscriptions.append(_subscription(len(subscriptions) + 1, uid, rid))
    return {
        "zerver_stream": [stream_row(ctx, s) for s in streams],
        "zerver_recipient": recipients,
        "zerver_subscription": subscriptions,
        "zerver_huddle": huddles,
    }

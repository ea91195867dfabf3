"""realm.json's people tables: zerver_userprofile (and the cross-realm system bots), bots'
services, storage and config, and what each user keeps (alert words, mutes, topics,
presence, status, profile field values, the realm's defaults for new users).
"""

from __future__ import annotations

import msgspec

from teamchat.actions.ops.realm_export.context import ExportContext, as_float, settings_of
from teamchat.lib import user_settings
from teamchat.lib import zulip_export_format as fmt
from teamchat.store.export_snapshot import Row

Table = list[Row]
_SETTING_NAMES = user_settings.UserSettings.__struct_fields__
_EMAIL_VISIBILITY_EVERYONE = 1
_EMAIL_VISIBILITY_NOBODY = 4


def _email(user: Row) -> str:
    """Zulip's `email` field: the real address only when everyone may see it."""
    delivery = str(user["delivery_email"])
    if user["email_address_visibility"] == _EMAIL_VISIBILITY_EVERYONE:
        return delivery
    # zulip-compat: Zulip's dummy address user{id}@{domain} for hidden addresses.
    return f"user{user['id']}@{delivery.rpartition('@')[2]}"


def _email_exported(ctx: ExportContext, user: Row) -> bool:
    """Whether the real address goes in the export: always in a full export; otherwise
    unless the user hides it from administrators and has not consented (Zulip's rule)."""
    if ctx.export_type == fmt.EXPORT_FULL_WITHOUT_CONSENT:
        return True
    if user["email_address_visibility"] != _EMAIL_VISIBILITY_NOBODY:
        return True
    return ctx.export_type == fmt.EXPORT_FULL_WITH_CONSENT and user["id"] in ctx.consented


def user_row(ctx: ExportContext, user: Row, bot_defaults: dict[int, Row]) -> Row:
    """One zerver_userprofile row (no password or API key: Zulip never exports them)."""
    uid = int(str(user["id"]))
    settings = msgspec.structs.asdict(
        msgspec.json.decode(str(user["settings_json"] or "{}"), type=user_settings.UserSettings)
    )
    defaults = bot_defaults.get(uid, {})
    row: Row = {
        "id": uid,
        "realm": ctx.realm_id,
        "email": _email(user),
        "delivery_email": user["delivery_email"] if _email_exported(ctx, user) else _email(user),
        "full_name": user["full_name"],
        "role": user["role"],
        "is_active": bool(user["is_active"]),
        "is_bot": bool(user["is_bot"]),
        "bot_type": user["bot_type"],
        "bot_owner": user["bot_owner_id"],
        "is_mirror_dummy": False,
        "can_create_users": bool(user["can_create_users"]),
        "date_joined": as_float(user["date_joined"]),
        "last_login": None,
        "last_reminder": None,
        "timezone": user["timezone"],
        "avatar_source": user["avatar_source"],
        "avatar_version": user["avatar_version"],
        "avatar_hash": None,
        "default_sending_stream": defaults.get("sending_stream_id"),
        "default_events_register_stream": defaults.get("events_register_stream_id"),
        "default_all_public_streams": bool(defaults.get("all_public_streams", 0)),
        "last_active_message_id": None,
        "long_term_idle": False,
        "tos_version": None,
        "user_permissions": [],
        "groups": [],
        "recipient": ctx.personal_recipient[uid],
    }
    row.update({name: settings[name] for name in _SETTING_NAMES})
    row["email_address_visibility"] = user["email_address_visibility"]
    return row


def user_tables(ctx: ExportContext) -> dict[str, Table]:
    """zerver_userprofile, its mirror-dummy and cross-realm companions."""
    bot_defaults = {int(str(d["bot_id"])): d for d in ctx.snapshot.rows("bot_default")}
    return {
        "zerver_userprofile": [
            user_row(ctx, user, bot_defaults)
            for user in ctx.users
            if ctx.is_exported_user(int(str(user["id"])))
        ],
        "zerver_userprofile_mirrordummy": [],
        "zerver_userprofile_crossrealm": [
            {"id": uid, "email": email, "recipient_id": ctx.personal_recipient[uid]}
            for uid, email in sorted(ctx.cross_realm.items())
        ],
    }


def bot_tables(ctx: ExportContext) -> dict[str, Table]:
    """zerver_service, zerver_botstoragedata, zerver_botconfigdata."""
    snap = ctx.snapshot
    return {
        "zerver_service": [
            {
                "id": s["id"],
                "user_profile": s["bot_id"],
                "name": s["name"],
                "base_url": s["base_url"],
                "interface": s["interface"],
                "token": s["token"],
            }
            for s in snap.rows("bot_service")
        ],
        "zerver_botstoragedata": [
            {"id": n, "bot_profile": r["user_id"], "key": r["key"], "value": r["value"]}
            for n, r in enumerate(snap.rows("bot_storage"), 1)
        ],
        "zerver_botconfigdata": [
            {"id": n, "bot_profile": r["bot_id"], "key": r["key"], "value": r["value"]}
            for n, r in enumerate(snap.rows("bot_config"), 1)
        ],
    }


def _stream_recipient(ctx: ExportContext, stream_id: object) -> int:
    return ctx.stream_recipient[int(str(stream_id))]


def personal_tables(ctx: ExportContext, client_id: int) -> dict[str, Table]:
    """What each user keeps: alert words, muted users, topics, presence, status, fields."""
    snap, exported = ctx.snapshot, ctx.is_exported_user
    return {
        "zerver_alertword": [
            {"id": w["id"], "realm": ctx.realm_id, "user_profile": w["user_id"], "word": w["word"]}
            for w in snap.rows("alert_word")
        ],
        "zerver_muteduser": [
            {
                "id": n,
                "user_profile": m["user_id"],
                "muted_user": m["muted_user_id"],
                "date_muted": as_float(m["date_muted"]),
            }
            for n, m in enumerate(snap.rows("muted_user"), 1)
        ],
        "zerver_usertopic": [
            {
                "id": n,
                "user_profile": t["user_id"],
                "stream": t["stream_id"],
                "recipient": _stream_recipient(ctx, t["stream_id"]),
                "topic_name": t["topic_name"],
                "visibility_policy": t["visibility_policy"],
                "last_updated": as_float(t["last_updated"]),
            }
            for n, t in enumerate(snap.rows("user_topic"), 1)
        ],
        "zerver_userpresence": [
            {
                "id": n,
                "user_profile": p["user_id"],
                "realm": ctx.realm_id,
                "last_active_time": as_float(p["last_active_time"]),
                "last_connected_time": as_float(p["last_connected_time"]),
            }
            for n, p in enumerate(snap.rows("user_presence"), 1)
            if exported(int(str(p["user_id"])))
        ],
        "zerver_useractivity": [],
        "zerver_useractivityinterval": [],
        "zerver_userstatus": [
            {
                "id": n,
                "user_profile": s["user_id"],
                "client": client_id,
                "timestamp": as_float(s["timestamp"]),
                "status_text": s["status_text"],
                "emoji_name": s["emoji_name"],
                "emoji_code": s["emoji_code"],
                "reaction_type": s["reaction_type"],
            }
            for n, s in enumerate(snap.rows("user_status"), 1)
            if exported(int(str(s["user_id"])))
        ],
        "zerver_customprofilefieldvalue": [
            {
                "id": n,
                "user_profile": v["user_id"],
                "field": v["field_id"],
                "value": v["value"],
                "rendered_value": v["rendered_value"],
            }
            for n, v in enumerate(snap.rows("custom_profile_field_value"), 1)
        ],
        "zerver_savedsnippet": [
            {
                "id": sn["id"],
                "realm": ctx.realm_id,
                "user_profile": sn["user_id"],
                "title": sn["title"],
                "content": sn["content"],
                "date_created": as_float(sn["date_created"]),
            }
            for sn in snap.rows("saved_snippet")
        ],
        "zerver_navigationview": [
            {
                "id": v["id"],
                "user": v["user_id"],
                "fragment": v["fragment"],
                "is_pinned": bool(v["is_pinned"]),
                "name": v["name"],
            }
            for v in snap.rows("navigation_view")
        ],
        "zerver_realmuserdefault": [
            {"id": 1, "realm": ctx.realm_id, **settings_of(d)}
            for d in snap.rows("realm_user_default")
        ],
    }

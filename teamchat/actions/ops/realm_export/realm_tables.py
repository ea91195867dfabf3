"""realm.json's organization tables: zerver_realm, user groups, linkifiers, playgrounds,
custom emoji, custom profile fields, default channels, authentication methods.

Field names are Zulip's model fields (foreign keys without `_id`, as model_to_dict writes
them); the importer builds models from these dicts, so no other keys may appear.
"""

from __future__ import annotations

from teamchat.actions.ops.realm_export.context import ExportContext, as_float, settings_of
from teamchat.lib import realm_settings
from teamchat.lib import system_groups as sg
from teamchat.lib import zulip_export_format as fmt
from teamchat.lib.group_permissions import GROUP_CREATOR, USER_GROUP_PERMISSIONS, GroupPermission
from teamchat.records import Role
from teamchat.store.export_snapshot import Row

Table = list[Row]
# Settings whose API names differ from the Realm model's fields (channel references).
_STREAM_SETTINGS = {
    "new_stream_announcements_stream_id": "new_stream_announcements_stream",
    "signup_announcements_stream_id": "signup_announcements_stream",
    "zulip_update_announcements_stream_id": "zulip_update_announcements_stream",
    "moderation_request_channel_id": "moderation_request_channel",
}
# API settings Zulip's current Realm model does not have as fields.
_NOT_MODEL_FIELDS = frozenset({"mandatory_topics", "can_change_user_emails"})


def realm_row(ctx: ExportContext) -> Row:
    """The one zerver_realm row."""
    realm = ctx.realm
    stored = settings_of(realm)
    values = realm_settings.load(str(realm["settings_json"] or "{}"))
    row: Row = {
        "id": ctx.realm_id,
        "string_id": realm["string_id"],
        "name": realm["name"],
        "description": realm["description"],
        "date_created": as_float(realm["date_created"]),
        "deactivated": bool(realm["deactivated"]),
    }
    for name in type(values).__struct_fields__:
        value = getattr(values, name)
        if name in _STREAM_SETTINGS:
            row[_STREAM_SETTINGS[name]] = None if value == -1 else value
        elif name == "message_edit_history_visibility_policy":
            row[name] = fmt.EDIT_HISTORY_POLICY.get(str(value), 1)
        elif name == "topics_policy":
            row[name] = fmt.TOPICS_POLICY.get(str(value), 2)
        elif name not in _NOT_MODEL_FIELDS:
            row[name] = value
    for name, default in realm_settings.GROUP_SETTING_DEFAULTS.items():
        row[name] = ctx.group_setting(stored.get(name), default)
    return row


def _system_group_members(ctx: ExportContext) -> dict[str, list[int]]:
    """Direct members of each system group, derived from roles as Zulip stores them."""
    threshold_days = int(str(settings_of(ctx.realm).get("waiting_period_threshold", 0)))
    members: dict[str, list[int]] = {name: [] for name in sg.SYSTEM_GROUPS}
    for uid, user in ctx.user_by_id.items():
        if not ctx.is_exported_user(uid) or not user["is_active"]:
            continue
        role = Role(int(str(user["role"])))
        joined = int(str(user["date_joined"]))
        full = sg.is_full_member(role, joined, ctx.now, threshold_days)
        for name in sg.direct_group_for_role(role, is_full_member=full):
            members[name].append(uid)
    return members


def _default(group: Row, permission: GroupPermission) -> object:
    """A user group setting's default value: a system group name or {creator}."""
    if group["is_system_group"]:
        return permission.default_for_system_groups or sg.NOBODY
    if permission.default_group_name == GROUP_CREATOR:
        creator = group["creator_id"]
        members = [] if creator is None else [creator]
        return {"direct_members": members, "direct_subgroups": []}
    return permission.default_group_name


def group_tables(ctx: ExportContext) -> dict[str, Table]:
    """zerver_usergroup, zerver_namedusergroup and both membership tables."""
    named: Table = []
    memberships: list[tuple[int, int]] = []
    subgroups: list[tuple[int, int]] = []
    for group in ctx.groups:
        gid = int(str(group["id"]))
        stored = settings_of(group)
        row: Row = {
            "usergroup_ptr": gid,
            "realm_for_sharding": ctx.realm_id,
            "name": group["name"],
            "description": group["description"],
            "is_system_group": bool(group["is_system_group"]),
            "deactivated": bool(group["deactivated"]),
            "date_created": as_float(group["date_created"]),
            "creator": group["creator_id"],
        }
        for name, permission in USER_GROUP_PERMISSIONS.items():
            row[name] = ctx.group_setting(stored.get(name), _default(group, permission))
        named.append(row)
    system_members = _system_group_members(ctx)
    for name, (_, _, sub_names) in sg.SYSTEM_GROUPS.items():
        gid = ctx.system_group_id(name)
        memberships += [(gid, uid) for uid in system_members[name]]
        subgroups += [(gid, ctx.system_group_id(sub)) for sub in sub_names]
    for m in ctx.snapshot.rows("user_group_member"):
        memberships.append((int(str(m["group_id"])), int(str(m["user_id"]))))
    for s in ctx.snapshot.rows("user_group_subgroup"):
        subgroups.append((int(str(s["group_id"])), int(str(s["subgroup_id"]))))
    for gid, members, subs in ctx.anonymous_groups:
        memberships += [(gid, uid) for uid in members]
        subgroups += [(gid, sub) for sub in subs]
    all_ids = [int(str(g["id"])) for g in ctx.groups] + [g[0] for g in ctx.anonymous_groups]
    return {
        "zerver_usergroup": [{"id": gid, "realm": ctx.realm_id} for gid in sorted(all_ids)],
        "zerver_namedusergroup": named,
        "zerver_usergroupmembership": [
            {"id": n, "user_group": gid, "user_profile": uid}
            for n, (gid, uid) in enumerate(memberships, 1)
            if ctx.is_exported_user(uid)
        ],
        "zerver_groupgroupmembership": [
            {"id": n, "supergroup": gid, "subgroup": sub}
            for n, (gid, sub) in enumerate(subgroups, 1)
        ],
    }


def organization_tables(ctx: ExportContext) -> dict[str, Table]:
    """The smaller realm-wide tables."""
    snap, realm_id = ctx.snapshot, ctx.realm_id
    return {
        "zerver_realmdomain": [],
        "zerver_realmauthenticationmethod": [{"id": 1, "realm": realm_id, "name": "Email"}],
        "zerver_defaultstream": [
            {"id": n, "realm": realm_id, "stream": d["stream_id"]}
            for n, d in enumerate(snap.rows("default_stream"), 1)
        ],
        "zerver_realmfilter": [
            {
                "id": f["id"],
                "realm": realm_id,
                "pattern": f["pattern"],
                "url_template": f["url_template"],
                "order": f["order"],
            }
            for f in snap.rows("linkifier")
        ],
        "zerver_realmplayground": [
            {
                "id": p["id"],
                "realm": realm_id,
                "name": p["name"],
                "pygments_language": p["pygments_language"],
                "url_template": p["url_template"],
            }
            for p in snap.rows("playground")
        ],
        "zerver_channelfolder": [
            {
                "id": f["id"],
                "realm": realm_id,
                "name": f["name"],
                "description": f["description"],
                "rendered_description": f["rendered_description"],
                "order": f["order"],
                "date_created": as_float(f["date_created"]),
                "creator": f["creator_id"],
                "is_archived": bool(f["is_archived"]),
            }
            for f in snap.rows("channel_folder")
        ],
        "zerver_realmemoji": [
            {
                "id": e["id"],
                "realm": realm_id,
                "name": e["name"],
                "author": e["author_id"],
                "file_name": e["file_name"],
                "is_animated": False,
                "deactivated": bool(e["deactivated"]),
            }
            for e in snap.rows("realm_emoji")
        ],
        "zerver_customprofilefield": [
            {
                "id": f["id"],
                "realm": realm_id,
                "name": f["name"],
                "hint": f["hint"],
                "field_type": f["field_type"],
                "field_data": f["field_data"],
                "order": f["sort_order"],
                "display_in_profile_summary": bool(f["display_in_profile_summary"]),
                "required": bool(f["required"]),
                "editable_by_user": bool(f["editable_by_user"]),
                "use_for_user_matching": bool(f["use_for_user_matching"]),
            }
            for f in snap.rows("custom_profile_field")
        ],
    }

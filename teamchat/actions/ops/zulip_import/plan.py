"""Turning the rows of a Zulip export's realm.json into our rows (pure, no database).

Ids are kept: users, channels, groups, messages, emoji and attachments keep Zulip's ids (so
users keep their order and links such as `#narrow/channel/12-...` still point right);
only one-to-one direct-message conversations get new recipient ids.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Callable, Mapping

import msgspec

from teamchat.errors import ZulipError
from teamchat.lib import realm_properties, realm_settings, user_settings
from teamchat.lib import system_groups as sg
from teamchat.lib import zulip_export_format as fmt
from teamchat.lib.channels import CHANNEL_GROUP_SETTING_DEFAULTS, default_group_settings
from teamchat.lib.group_permissions import USER_GROUP_PERMISSIONS
from teamchat.lib.passwords import random_api_key
from teamchat.lib.realm_settings import GroupSettingValue
from teamchat.lib.zulip_export_reader import ExportFormatError, Record, TableData
from teamchat.render.markdown import render_plain_markdown
from teamchat.render.sanitize import sanitize_html
from teamchat.store.messages import dm_key

# (stage, done, total): stages are "organization", "messages", "indexes", "files".
Progress = Callable[[str, int, int], None]
_COLOR = re.compile(r"#[0-9a-f]{6}")
DEFAULT_COLOR = "#c2c2c2"
# zerver_realm FK names (model_to_dict drops `_id`) -> our setting names.
_REALM_CHANNEL_FIELDS = {
    "new_stream_announcements_stream": "new_stream_announcements_stream_id",
    "signup_announcements_stream": "signup_announcements_stream_id",
    "zulip_update_announcements_stream": "zulip_update_announcements_stream_id",
    "moderation_request_channel": "moderation_request_channel_id",
}


# SQLite integers are signed 64-bit: an id or a date beyond them names nothing.
MAX_INT = 2**63 - 1


def as_int(value: object, default: int = 0) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise ExportFormatError(f"the number {value} in the export is not finite")
    if isinstance(value, int | float):
        number = int(value)
        if not -MAX_INT <= number <= MAX_INT:
            raise ExportFormatError(f"the number {number} in the export is out of range")
        return number
    return default


def as_str(value: object, default: str = "") -> str:
    return value if isinstance(value, str) else default


def as_opt_int(value: object) -> int | None:
    return None if value is None else as_int(value)


class Groups:
    """The export's user groups: named ones become rows, anonymous ones inline values."""

    def __init__(self, data: TableData) -> None:
        self.named = {
            as_int(r.get("usergroup_ptr", r.get("id"))): r
            for r in data.get("zerver_namedusergroup", [])
        }
        self.members: dict[int, list[int]] = {}
        self.subgroups: dict[int, list[int]] = {}
        for r in data.get("zerver_usergroupmembership", []):
            self.members.setdefault(as_int(r["user_group"]), []).append(as_int(r["user_profile"]))
        for r in data.get("zerver_groupgroupmembership", []):
            self.subgroups.setdefault(as_int(r["supergroup"]), []).append(as_int(r["subgroup"]))
        self.system_ids = {
            as_str(r.get("name")): gid for gid, r in self.named.items() if r.get("is_system_group")
        }

    def value(self, raw: object) -> GroupSettingValue | None:
        """Our value for a group-valued setting holding group id `raw`."""
        if raw is None or isinstance(raw, bool) or not isinstance(raw, int):
            return None
        if raw in self.named:
            return raw
        return {
            "direct_members": sorted(self.members.get(raw, [])),
            "direct_subgroups": sorted(self.subgroups.get(raw, [])),
        }


def realm_settings_json(realm: Record, groups: Groups, stream_ids: set[int]) -> str:
    """Our realm settings: every property Zulip's realm row has that we accept."""
    stored: dict[str, object] = {}
    for field in msgspec.structs.fields(realm_settings.RealmSettings):
        name = field.name
        if name in _REALM_CHANNEL_FIELDS.values():
            continue
        if name not in realm or not realm_properties.is_property(name):
            continue
        value = realm[name]
        if name == "message_retention_days" and value is None:
            value = -1
        try:
            stored[name] = realm_properties.check_value(name, value)
        except ZulipError:
            continue
    for zulip_name, name in _REALM_CHANNEL_FIELDS.items():
        raw = realm.get(zulip_name, realm.get(name))
        stored[name] = raw if isinstance(raw, int) and raw in stream_ids else -1
    for name in realm_settings.GROUP_SETTING_DEFAULTS:
        value = groups.value(realm.get(name))
        if value is not None:
            stored[name] = value
    return json.dumps(stored)


def personal_settings_json(row: Record, *, realm_default: bool = False) -> str:
    """A user's (or the realm default's) settings: each valid one the row has."""
    stored: dict[str, object] = {}
    names = user_settings.REALM_DEFAULT_SETTINGS if realm_default else user_settings.SETTING_TYPES
    for name in names:
        value = row.get(name)
        if value is None or not isinstance(value, bool | int | str):
            continue
        if user_settings.setting_problem(name, value, realm_default=realm_default) is None:
            stored[name] = value
    return json.dumps(stored)


def user_row(row: Record, *, is_active: bool | None = None) -> tuple[object, ...]:
    """Our users row for a zerver_userprofile row (a new API key, no password)."""
    role = as_int(row.get("role"), 400)
    bot_type = as_opt_int(row.get("bot_type"))
    return (
        as_int(row["id"]),
        as_str(row.get("delivery_email")) or as_str(row.get("email")),
        as_str(row.get("full_name")),
        random_api_key(),
        role if role in (100, 200, 300, 400, 600) else 400,
        int(bool(row.get("is_active", True)) if is_active is None else is_active),
        int(bool(row.get("is_bot"))),
        bot_type if bot_type in (1, 2, 3, 4) else None,
        as_opt_int(row.get("bot_owner")),
        as_int(row.get("date_joined")),
        as_str(row.get("timezone")),
        "U" if row.get("avatar_source") == "U" else "G",
        max(1, as_int(row.get("avatar_version"), 1)),
        min(5, max(1, as_int(row.get("email_address_visibility"), 1))),
        personal_settings_json(row),
    )


def group_rows(groups: Groups) -> list[tuple[object, ...]]:
    """Our user_group rows for the named groups (ours for missing system groups are added
    by the caller)."""
    rows: list[tuple[object, ...]] = []
    for gid, r in sorted(groups.named.items()):
        settings: dict[str, object] = {}
        if not r.get("is_system_group"):
            for name in USER_GROUP_PERMISSIONS:
                value = groups.value(r.get(name))
                if value is not None:
                    settings[name] = value
        rows.append(
            (
                gid,
                as_str(r.get("name")),
                as_str(r.get("description")),
                int(bool(r.get("is_system_group"))),
                int(bool(r.get("deactivated"))),
                as_opt_int(r.get("date_created")),
                as_opt_int(r.get("creator")),
                json.dumps(settings),
            )
        )
    return rows


def stream_row(
    r: Record, groups: Groups, system_group_ids: Mapping[str, int]
) -> tuple[object, ...]:
    """Our stream row for a zerver_stream row (its recipient id kept)."""
    creator = as_opt_int(r.get("creator"))
    settings = default_group_settings(system_group_ids, creator)
    for name in CHANNEL_GROUP_SETTING_DEFAULTS:
        value = groups.value(r.get(name))
        if value is not None:
            settings[name] = value
    invite_only = bool(r.get("invite_only"))
    retention = r.get("message_retention_days")
    return (
        as_int(r["id"]),
        as_str(r.get("name")),
        as_str(r.get("description")),
        # Never the export's HTML: rendered here, and again with mentions once people and
        # channels are in (extras.render_what_zulip_did_not).
        render_plain_markdown(as_str(r.get("description"))),
        int(invite_only),
        int(bool(r.get("is_web_public")) and not invite_only),
        int(bool(r.get("history_public_to_subscribers", True)) or not invite_only),
        retention if isinstance(retention, int) and not isinstance(retention, bool) else None,
        as_int(r.get("date_created")),
        creator,
        int(bool(r.get("deactivated") or r.get("is_archived"))),
        as_int(r.get("recipient")),
        json.dumps(settings),
    )


def subscription_row(stream_id: int, r: Record) -> tuple[object, ...]:
    color = as_str(r.get("color")).lower()

    def opt_bool(name: str) -> int | None:
        value = r.get(name)
        return None if value is None else int(bool(value))

    return (
        stream_id,
        as_int(r["user_profile"]),
        int(bool(r.get("active", True))),
        color if _COLOR.fullmatch(color) else DEFAULT_COLOR,
        int(bool(r.get("is_muted"))),
        int(bool(r.get("pin_to_top"))),
        opt_bool("desktop_notifications"),
        opt_bool("audible_notifications"),
        opt_bool("push_notifications"),
        opt_bool("email_notifications"),
        opt_bool("wildcard_mentions_notify"),
    )


class Recipients:
    """Zulip recipients -> ours: channels keep theirs, DM conversations are keyed by members."""

    def __init__(self, data: TableData) -> None:
        self.kind: dict[int, tuple[int, int]] = {
            as_int(r["id"]): (as_int(r["type"]), as_int(r["type_id"]))
            for r in data.get("zerver_recipient", [])
        }
        self.group_members: dict[int, list[int]] = {}
        for r in data.get("zerver_subscription", []):
            recipient = as_int(r["recipient"])
            if self.kind.get(recipient, (0, 0))[0] == fmt.RECIPIENT_DIRECT_MESSAGE_GROUP:
                self.group_members.setdefault(recipient, []).append(as_int(r["user_profile"]))
        # Ids we keep (channels', groups'); one-to-one conversations fill the gaps in
        # order of their first message, which gives a teamchat export its own ids back.
        self._kept = {rid for rid, (kind, _) in self.kind.items() if kind != fmt.RECIPIENT_PERSONAL}
        self._next_id = 1
        self.dm_ids: dict[str, int] = {}

    def _free_id(self) -> int:
        while self._next_id in self._kept:
            self._next_id += 1
        self._next_id += 1
        return self._next_id - 1

    def stream_id(self, recipient_id: int) -> int | None:
        kind, type_id = self.kind.get(recipient_id, (0, 0))
        return type_id if kind == fmt.RECIPIENT_STREAM else None

    def resolve(self, recipient_id: int, sender_id: int) -> tuple[int, int | None]:
        """(our recipient id, stream id or None) of a message sent by `sender_id`."""
        kind, type_id = self.kind.get(recipient_id, (0, 0))
        if kind == fmt.RECIPIENT_STREAM:
            return recipient_id, type_id
        if kind == fmt.RECIPIENT_PERSONAL:
            members = [sender_id, type_id]
        elif kind == fmt.RECIPIENT_DIRECT_MESSAGE_GROUP:
            members = [*self.group_members.get(recipient_id, []), sender_id]
        else:
            raise ZulipError(f"a message has recipient {recipient_id}, which the export lacks")
        key = dm_key(members)
        if key not in self.dm_ids:
            if (
                kind == fmt.RECIPIENT_DIRECT_MESSAGE_GROUP
                and recipient_id not in self.dm_ids.values()
            ):
                self.dm_ids[key] = recipient_id
            else:
                self.dm_ids[key] = self._free_id()
        return self.dm_ids[key], None


def rendered_or_escaped(rendered: object, content: str) -> str:
    """Zulip's rendered HTML, or the escaped source when a message was never rendered."""
    if isinstance(rendered, str) and rendered:
        return rendered
    return "<p>" + html.escape(content) + "</p>"


def edit_history_json(raw: object) -> tuple[str | None, int | None]:
    """(our edit history JSON, oldest first; last move time) from Zulip's, newest first."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return None, None
    if not isinstance(raw, list) or not raw:
        return None, None
    entries = [e for e in reversed(raw) if isinstance(e, dict) and "timestamp" in e]
    for entry in entries:  # the export's HTML is shown again: through our allow-list
        if "prev_rendered_content" in entry:
            entry["prev_rendered_content"] = sanitize_html(str(entry["prev_rendered_content"]))
    moves = [as_int(e["timestamp"]) for e in entries if "prev_topic" in e or "prev_stream" in e]
    for entry in entries:
        entry["timestamp"] = as_int(entry["timestamp"])
    return (json.dumps(entries) if entries else None), (max(moves) if moves else None)


def id_list(value: object) -> list[int]:
    """A list of ids from a many-to-many field (empty when absent or malformed)."""
    return [as_int(v) for v in value] if isinstance(value, list) else []


def playground_template(r: Record) -> str:
    template = as_str(r.get("url_template"))
    return template or as_str(r.get("url_prefix")) + "{code}"


SYSTEM_GROUP_NAMES = tuple(sg.SYSTEM_GROUPS)

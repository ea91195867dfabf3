"""What the export's table builders share: the snapshot's lookups and the ids it allocates.

Zulip's model differs from teamchat's in three places this resolves once: system bots are
cross-realm users, a direct message between two people goes to the other person's personal
recipient, and a permission setting always names a user group (anonymous ones included).
"""

from __future__ import annotations

import functools

import msgspec

from teamchat.lib import system_groups as sg
from teamchat.lib import zulip_export_format as fmt
from teamchat.store.blobs import BlobStore
from teamchat.store.export_snapshot import Row, Snapshot

# teamchat's system bots are <key>@<realm host>; Zulip knows them as <key>@zulip.com.
_SYSTEM_BOT_KEYS = {email.partition("@")[0]: email for email in fmt.CROSS_REALM_BOT_EMAILS}


def as_float(value: object) -> float | None:
    """Zulip's exported datetimes: float UNIX timestamps (None stays None)."""
    return None if value is None else float(value)  # type: ignore[arg-type]


def settings_of(row: Row) -> dict[str, object]:
    """A row's decoded settings_json."""
    decoded = msgspec.json.decode(str(row["settings_json"] or "{}"))
    return decoded if isinstance(decoded, dict) else {}


class ExportContext:
    """Lookups over one snapshot, and ids allocated for rows Zulip has and teamchat has not."""

    def __init__(
        self, snapshot: Snapshot, export_type: int, now: int, blobs: BlobStore | None = None
    ) -> None:
        self.snapshot = snapshot
        # Where upload bytes not in the database are (the `uploads` setting's store).
        self.blobs = blobs
        self.export_type = export_type
        self.now = now
        self.realm = snapshot.rows("realm")[0]
        self.realm_id = int(str(self.realm["id"]))
        self.users = snapshot.rows("users")
        self.user_by_id = {int(str(u["id"])): u for u in self.users}
        host = str(self.realm["host"])
        self.cross_realm: dict[int, str] = {}
        for user in self.users:
            local, _, domain = str(user["delivery_email"]).partition("@")
            system = user["is_bot"] and user["bot_owner_id"] is None and domain == host
            if system and local in _SYSTEM_BOT_KEYS:
                self.cross_realm[int(str(user["id"]))] = _SYSTEM_BOT_KEYS[local]
        self.recipients = snapshot.rows("recipient")
        self.stream_recipient = {
            int(str(r["stream_id"])): int(str(r["id"]))
            for r in self.recipients
            if r["stream_id"] is not None
        }
        self.dm_members = {
            int(str(r["id"])): [int(x) for x in str(r["user_ids"]).split(",")]
            for r in self.recipients
            if r["user_ids"] is not None
        }
        next_id = max((int(str(r["id"])) for r in self.recipients), default=0) + 1
        self.personal_recipient = {
            uid: next_id + n for n, uid in enumerate(sorted(self.user_by_id))
        }
        self.groups = snapshot.rows("user_group")
        self.group_id_by_name = {str(g["name"]): int(str(g["id"])) for g in self.groups}
        self._next_group_id = max(self.group_id_by_name.values(), default=0) + 1
        # Anonymous groups allocated for permission settings: (id, members, subgroups).
        self.anonymous_groups: list[tuple[int, list[int], list[int]]] = []
        self.consented = {
            uid
            for uid, user in self.user_by_id.items()
            if settings_of(user).get("allow_private_data_export") is True
        }

    def is_exported_user(self, user_id: int) -> bool:
        """Whether `user_id` is in zerver_userprofile (system bots are cross-realm instead)."""
        return user_id in self.user_by_id and user_id not in self.cross_realm

    def system_group_id(self, name: str) -> int:
        """The id of the system group `name` (e.g. role:administrators)."""
        return self.group_id_by_name[name]

    def group_setting(self, value: object, default: object) -> int:
        """The user group id a permission setting names (stored, else `default`: a system
        group name or an anonymous group), allocating ids for anonymous groups."""
        if value is None:
            value = default
        if isinstance(value, str):
            return self.system_group_id(value if value in self.group_id_by_name else sg.NOBODY)
        if isinstance(value, int):
            return value
        if isinstance(value, dict):
            members = [int(x) for x in value.get("direct_members", [])]
            subgroups = [int(x) for x in value.get("direct_subgroups", [])]
            if not members and len(subgroups) == 1:
                return subgroups[0]
            group_id = self._next_group_id
            self._next_group_id += 1
            self.anonymous_groups.append((group_id, members, subgroups))
            return group_id
        return self.system_group_id(sg.NOBODY)

    def message_recipient(self, sender_id: int, recipient_id: int) -> int:
        """The Zulip recipient of a message teamchat stored under `recipient_id`."""
        members = self.dm_members.get(recipient_id)
        if members is None or len(members) > 2:
            return recipient_id
        others = [uid for uid in members if uid != sender_id] or members
        return self.personal_recipient[others[0]]

    @functools.cached_property
    def public_stream_ids(self) -> frozenset[int]:
        """Channels anyone in the organization may read: what a public export holds."""
        return frozenset(
            int(str(s["id"])) for s in self.snapshot.rows("stream") if not s["invite_only"]
        )

"""A Slack export's people and conversations as the tables of a Zulip export's realm.json.

Pure: the caller reads the files. Facts from Slack's export format (users.json,
channels.json, groups.json, dms.json, mpims.json; one folder of day files per conversation:
channels and private channels by name, DMs by id, group DMs by name) and from Zulip's Slack
importer (zerver/data_import/slack.py): the primary owner comes first; owners, admins and
guests (restricted users) keep their roles; people with the same email are merged; the
channel's purpose is its description; #general and #random are default channels and #general
gets the announcements. What Zulip reads from Slack's API (emails, integration bots) comes
from the export itself here: a person without an email gets `<handle>@<host>`, a bot
`<name>-bot@<host>`, and a sender the export does not describe a deactivated placeholder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from teamchat.lib import zulip_export_format as fmt
from teamchat.lib.channels import STREAM_ASSIGNMENT_COLORS
from teamchat.lib.export_archive import ExportFormatError
from teamchat.lib.slack_mrkdwn import SlackNames
from teamchat.lib.zulip_export_reader import Record, TableData

SLACKBOT_ID = "USLACKBOT"
DEFAULT_CHANNELS = ("general", "random")
ANNOUNCEMENTS_CHANNEL = "general"
DEFAULT_REALM_NAME = "Imported from Slack"
# Slack names its archive "<workspace> Slack export <dates>.zip".
_ARCHIVE_NAME = re.compile(r"(.+?) Slack export\b")
_FOLDER_NAME = re.compile(r"[^/\\\x00]+")
# Our recipient ids: channels' first, then group DMs', then one per person.
_HUDDLE_RECIPIENT_BASE = 1_000_000
_PERSONAL_RECIPIENT_BASE = 2_000_000


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _dict(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _time(value: object) -> int:
    try:
        return int(float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return 0


def realm_name(export_name: str) -> str:
    """The workspace's name from the archive's or folder's name, when Slack's."""
    match = _ARCHIVE_NAME.match(export_name)
    return match.group(1).strip() if match else DEFAULT_REALM_NAME


@dataclass
class Conversation:
    """Where the messages of one folder of day files go."""

    folder: str
    recipient_id: int
    stream_id: int | None
    member_ids: list[int]  # who gets each message (subscribers, or the DM's people)
    is_dm: bool = False


@dataclass
class SlackOrg:
    """People, channels and conversations, with the ids they get here."""

    host: str
    now: int
    name: str
    users: list[Record] = field(default_factory=list)
    user_ids: dict[str, int] = field(default_factory=dict)
    full_names: dict[int, str] = field(default_factory=dict)
    channel_names: dict[str, str] = field(default_factory=dict)
    conversations: dict[str, Conversation] = field(default_factory=dict)
    tables: TableData = field(default_factory=dict)
    _emails: dict[str, int] = field(default_factory=dict)
    _bot_names: dict[str, int] = field(default_factory=dict)

    def names(self) -> SlackNames:
        users = {sid: (uid, self.full_names[uid]) for sid, uid in self.user_ids.items()}
        return SlackNames(users=users, channels=self.channel_names)

    # --- people -------------------------------------------------------------------
    def add_users(self, raw_users: list[object]) -> None:
        people = [_dict(u) for u in raw_users if _str(_dict(u).get("id"))]
        people.sort(key=lambda u: not u.get("is_primary_owner"))  # the primary owner first
        for user in people:
            self._add_user(user)

    def _add_user(self, user: dict[str, object]) -> int:
        slack_id = _str(user["id"])
        profile = _dict(user.get("profile"))
        full_name = (
            _str(user.get("real_name"))
            or _str(profile.get("real_name"))
            or _str(profile.get("display_name"))
            or _str(user.get("name"))
            or slack_id
        )
        is_slackbot = slack_id == SLACKBOT_ID or full_name.lower() == "slackbot"
        is_bot = bool(user.get("is_bot")) or is_slackbot
        email = self._email(user, profile, full_name, is_bot=is_bot, is_slackbot=is_slackbot)
        existing = self._emails.get(email.lower())
        if existing is not None:  # one person with two Slack accounts (Zulip merges them)
            self.user_ids[slack_id] = existing
            return existing
        role = fmt.ROLE_MEMBER
        if user.get("is_owner") or user.get("is_primary_owner"):
            role = fmt.ROLE_OWNER
        elif user.get("is_admin"):
            role = fmt.ROLE_ADMINISTRATOR
        if user.get("is_restricted") or user.get("is_ultra_restricted"):
            role = fmt.ROLE_GUEST
        timezone = _str(user.get("tz"))
        user_id = len(self.users) + 1
        self.users.append(
            {
                "id": user_id,
                "email": email,
                "delivery_email": email,
                "full_name": full_name[:100],
                "role": role,
                "is_active": not user.get("deleted") and not user.get("is_placeholder"),
                "is_bot": is_bot,
                "bot_type": 1 if is_bot else None,
                "bot_owner": None,
                "date_joined": self.now,
                "timezone": timezone if "/" in timezone else "",
                "avatar_source": "G",
                "avatar_version": 1,
                "email_address_visibility": 1,
                # As a first start does for the owner it creates (docs/moving-in.md).
                "can_create_users": bool(user.get("is_primary_owner")),
            }
        )
        self._emails[email.lower()] = user_id
        self.user_ids[slack_id] = user_id
        self.full_names[user_id] = full_name[:100]
        bot_id = _str(profile.get("bot_id"))
        if bot_id:
            self._bot_names[bot_id] = user_id
        return user_id

    def _email(
        self,
        user: dict[str, object],
        profile: dict[str, object],
        full_name: str,
        *,
        is_bot: bool,
        is_slackbot: bool,
    ) -> str:
        email = _str(profile.get("email")).strip()
        if email and "@" in email:
            return email
        if is_slackbot:
            return f"imported-slackbot-bot@{self.host}"
        handle = re.sub(r"[^a-z0-9._-]+", "", (_str(user.get("name")) or full_name).lower())
        handle = handle.strip(".") or _str(user["id"]).lower()
        if is_bot:
            handle = handle.replace("bot", "").strip("-.") or "slack"
            handle = f"{handle}-bot"
        candidate, n = f"{handle}@{self.host}", 1
        while candidate.lower() in self._emails:
            n += 1
            candidate = f"{handle}-{n}@{self.host}"
        return candidate

    def sender_id(self, message: dict[str, object]) -> int | None:
        """Our id for a message's sender, adding a placeholder for one the export lacks."""
        slack_id = (
            _str(message.get("user"))
            # A comment on a file (Slack's older `file_comment`) is its commenter's.
            or _str(_dict(message.get("comment")).get("user"))
            or _str(_dict(message.get("file")).get("user"))
        )
        if slack_id:
            if slack_id not in self.user_ids:
                self.placeholder(
                    slack_id, _str(_dict(message.get("user_profile")).get("real_name"))
                )
            return self.user_ids[slack_id]
        bot_id = _str(message.get("bot_id"))
        if not bot_id:
            return None
        if bot_id not in self._bot_names:
            # An integration's message: a bot named as the message names its poster.
            name = _str(message.get("username")) or _str(
                _dict(message.get("bot_profile")).get("name")
            )
            user = {
                "id": bot_id,
                "name": name or f"Slack bot {bot_id}",
                "is_bot": True,
                "profile": {"bot_id": bot_id},
            }
            self._bot_names[bot_id] = self._add_user(user)
        return self._bot_names[bot_id]

    def placeholder(self, slack_id: str, name: str = "") -> int:
        user = {
            "id": slack_id,
            "name": slack_id.lower(),
            "is_placeholder": True,
            "real_name": name or f"Slack user {slack_id}",
        }
        return self._add_user(user)

    def user_id(self, slack_id: str) -> int:
        return self.user_ids[slack_id] if slack_id in self.user_ids else self.placeholder(slack_id)

    # --- conversations ---------------------------------------------------------------
    def add_channels(self, raw: list[object], *, private: bool) -> None:
        realm = self.tables["zerver_realm"][0]
        for channel in map(_dict, raw):
            name = _folder(_str(channel.get("name")))
            stream_id = len(self.tables["zerver_stream"]) + 1
            members = sorted({self.user_id(_str(m)) for m in _list(channel.get("members"))})
            description = _str(_dict(channel.get("purpose")).get("value")) or _str(
                _dict(channel.get("topic")).get("value")
            )
            creator = _str(channel.get("creator"))
            archived = bool(channel.get("is_archived"))
            self.tables["zerver_stream"].append(
                {
                    "id": stream_id,
                    "name": name[:60],
                    "description": description[:1024],
                    "invite_only": private,
                    "history_public_to_subscribers": True,
                    "date_created": _time(channel.get("created")) or self.now,
                    "creator": self.user_id(creator) if creator else None,
                    "deactivated": archived,
                    "recipient": stream_id,
                }
            )
            self._recipient(stream_id, fmt.RECIPIENT_STREAM, stream_id, members, stream_id)
            self.channel_names[_str(channel.get("id"))] = name[:60]
            self.conversations[name] = Conversation(name, stream_id, stream_id, members)
            if name in DEFAULT_CHANNELS and not archived and not private:
                self.tables["zerver_defaultstream"].append({"stream": stream_id})
            if name == ANNOUNCEMENTS_CHANNEL and not private:
                realm["new_stream_announcements_stream"] = stream_id
                realm["zulip_update_announcements_stream"] = stream_id

    def add_group_dms(self, raw: list[object]) -> None:
        for mpim in map(_dict, raw):
            huddle_id = len(self.tables["zerver_huddle"]) + 1
            members = sorted({self.user_id(_str(m)) for m in _list(mpim.get("members"))})
            recipient_id = _HUDDLE_RECIPIENT_BASE + huddle_id
            self.tables["zerver_huddle"].append({"id": huddle_id, "huddle_size": len(members)})
            self._recipient(recipient_id, fmt.RECIPIENT_DIRECT_MESSAGE_GROUP, huddle_id, members)
            folder = _folder(_str(mpim.get("name")))
            self.conversations[folder] = Conversation(folder, recipient_id, None, members, True)

    def add_dms(self, raw: list[object]) -> None:
        for dm in map(_dict, raw):
            people = [self.user_id(_str(m)) for m in _list(dm.get("members"))][:2]
            if not people:
                continue
            folder = _folder(_str(dm.get("id")))
            # The recipient depends on the sender (the other person): see personal_recipient.
            self.conversations[folder] = Conversation(folder, 0, None, sorted(set(people)), True)

    def finish(self) -> None:
        """The people, and one personal recipient each (Zulip's shape for one-to-one DMs)."""
        self.tables["zerver_userprofile"] = self.users
        for user in self.users:
            uid = int(str(user["id"]))
            self._recipient(self.personal_recipient(uid), fmt.RECIPIENT_PERSONAL, uid, [uid])

    @staticmethod
    def personal_recipient(user_id: int) -> int:
        return _PERSONAL_RECIPIENT_BASE + user_id

    def _recipient(
        self, recipient_id: int, kind: int, type_id: int, members: list[int], color: int = 0
    ) -> None:
        self.tables["zerver_recipient"].append(
            {"id": recipient_id, "type": kind, "type_id": type_id}
        )
        palette = STREAM_ASSIGNMENT_COLORS[color % len(STREAM_ASSIGNMENT_COLORS)]
        self.tables["zerver_subscription"] += [
            {"recipient": recipient_id, "user_profile": uid, "active": True, "color": palette}
            for uid in members
        ]


def new_realm_tables(name: str, now: int) -> TableData:
    """The empty tables the Slack conversion fills (the realm row and lists)."""
    tables: TableData = {table: [] for table in fmt.REALM_TABLES_REQUIRED}
    tables["zerver_realm"] = [{"id": 1, "name": name, "string_id": "", "date_created": now}]
    return tables


def _folder(name: str) -> str:
    """A conversation's folder name: one path component, never `.` or `..`."""
    if not _FOLDER_NAME.fullmatch(name) or name in (".", ".."):
        raise ExportFormatError(f"the conversation name {name!r} is not a folder name")
    return name

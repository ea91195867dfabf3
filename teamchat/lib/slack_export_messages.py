"""A Slack export's messages as the rows of a Zulip export's messages-NNNNNN.json.

Pure: the caller reads the day files and hands over each message in time order. As Zulip's
Slack importer does (zerver/data_import/slack.py): joins, leaves, renames and pin notices
are not messages; `/me` actions keep their form; each thread becomes a topic named from its
first message ("2024-05-22 first words…", with " (2)" for a second thread of that name),
other channel messages go to the topic "imported from Slack"; reactions lose their skin tone;
files the export holds become uploads, the others stay links; every message is read.
Beyond Zulip's: a thread's topic name is text (`@Ada`, not `@**Ada**`), a pinned message is
starred for whoever pinned it, an edited one keeps its edit time, and a wildcard mention sets
the wildcard flag.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import emoji as emoji_package

from teamchat.lib import emoji
from teamchat.lib import zulip_export_format as fmt
from teamchat.lib.slack_export_org import Conversation, SlackOrg
from teamchat.lib.slack_mrkdwn import Converted, SlackNames, convert, unescape
from teamchat.lib.zulip_export_reader import Record, TableData

IMPORTED_TOPIC = "imported from Slack"
MAX_TOPIC_CHARS = 60
SKIPPED_SUBTYPES = frozenset(
    {
        "pinned_item",
        "unpinned_item",
        "channel_join",
        "channel_leave",
        "channel_name",
        "group_join",
        "group_leave",
        "group_name",
    }
)
_ME_SUBTYPES = frozenset({"bot_add", "sh_room_created", "me_message"})
_GONE_FILE_MODES = frozenset({"tombstone", "hidden_by_limit"})
_GONE_FILE_ACCESS = frozenset({"access_denied", "file_not_found"})
_SPACES = re.compile(r"\s+")
# Markdown left out of a topic name: mentions and channel links keep their text, links their
# label, emphasis and code markers go.
_MENTION_OR_CHANNEL = re.compile(r"([@#])\*\*(.+?)\*\*")
_LINK = re.compile(r"\[([^\]]*)\]\([^)\s]*\)")
_EMPHASIS = re.compile(r"\*\*|~~|`+|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])")
_UNSAFE_NAME = re.compile(r"[^\w.\- ]+")
_READ = fmt.ZULIP_FLAG_BITS["read"]
_STARRED = fmt.ZULIP_FLAG_BITS["starred"]
_MENTIONED = fmt.ZULIP_FLAG_BITS["mentioned"]
_WILDCARD = fmt.ZULIP_FLAG_BITS["stream_wildcard_mentioned"]
_PRIVATE = fmt.ZULIP_FLAG_BITS["is_private"]
_HISTORICAL = fmt.ZULIP_FLAG_BITS["historical"]

# (file id, file name, folder of the message) -> the file's path inside the export, if held.
FindUpload = Callable[[str, str, str], str | None]


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _dict(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def ts_seconds(value: object) -> float:
    """A Slack `ts` ("1700000000.000100") as seconds; 0 when malformed."""
    try:
        seconds = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return seconds if 0 <= seconds < 2**40 else 0.0


def is_message(message: dict[str, object]) -> bool:
    """Whether a day file's entry becomes a message (same rule in both passes)."""
    if message.get("subtype") in SKIPPED_SUBTYPES or message.get("user") == "U00":
        return False
    if message.get("mimetype") == "application/vnd.slack-docs":  # a Slack "Post" (HTML)
        return False
    file_user = _dict(message.get("file")).get("user")
    comment_user = _dict(message.get("comment")).get("user")
    return bool(message.get("user") or comment_user or file_user or message.get("bot_id"))


def pin_notice(message: dict[str, object]) -> tuple[str, str] | None:
    """(pinner, pinned message's ts) of a `pinned_item` notice."""
    if message.get("subtype") != "pinned_item":
        return None
    item = _dict(message.get("item"))
    attachments = message.get("attachments")
    first = _dict(attachments[0]) if isinstance(attachments, list) and attachments else {}
    pinned = _str(item.get("ts")) or _str(first.get("ts"))
    user = _str(message.get("user"))
    return (user, pinned) if user and pinned else None


@dataclass
class MessageRows:
    """The Zulip rows built so far; `chunk()` hands them over and starts afresh."""

    org: SlackOrg
    names: SlackNames
    find_upload: FindUpload
    pinners: dict[tuple[str, str], set[int]]
    next_id: int = 1
    messages: list[Record] = field(default_factory=list)
    user_messages: list[Record] = field(default_factory=list)
    reactions: list[Record] = field(default_factory=list)
    attachments: list[Record] = field(default_factory=list)
    upload_paths: dict[str, str] = field(default_factory=dict)
    thread_topics: dict[tuple[str, str], str] = field(default_factory=dict)
    topic_counts: dict[tuple[int, str], int] = field(default_factory=dict)

    def chunk(self) -> TableData:
        data: TableData = {
            "zerver_message": self.messages,
            "zerver_usermessage": self.user_messages,
            "zerver_reaction": self.reactions,
        }
        self.messages, self.user_messages, self.reactions = [], [], []
        return data

    def add(self, conversation: Conversation, message: dict[str, object]) -> None:
        """Convert one Slack message (`is_message` holds) of `conversation`."""
        sender = self.org.sender_id(message)
        assert sender is not None
        message_id, self.next_id = self.next_id, self.next_id + 1
        converted = convert(self._text(message), self.names)
        content = converted.content
        if message.get("subtype") in _ME_SUBTYPES:
            content = f"/me {content}"
        links, has_attachment, has_image = self._files(message, conversation, message_id, sender)
        content = "\n".join(part for part in (content, *links) if part)
        recipient_id = conversation.recipient_id
        if conversation.stream_id is None and not recipient_id:  # a one-to-one DM
            others = [uid for uid in conversation.member_ids if uid != sender] or [sender]
            recipient_id = self.org.personal_recipient(others[0])
        edited = _dict(message.get("edited"))
        self.messages.append(
            {
                "id": message_id,
                "sender": sender,
                "recipient": recipient_id,
                "subject": self._topic(conversation, message, content),
                "content": content,
                "rendered_content": None,
                "sending_client": None,
                "date_sent": ts_seconds(message.get("ts")),
                "last_edit_time": ts_seconds(edited.get("ts")) if edited else None,
                "edit_history": None,
                "has_link": converted.has_link or bool(links),
                "has_image": has_image,
                "has_attachment": has_attachment,
            }
        )
        self._user_messages(conversation, message, message_id, sender, converted)
        self._reactions(message, message_id)

    def _text(self, message: dict[str, object]) -> str:
        """The message's text, or its legacy attachments' when it has none (bots' posts)."""
        text = _str(message.get("text"))
        if text.strip():
            return text
        parts: list[str] = []
        attachments = message.get("attachments")
        for item in map(_dict, attachments if isinstance(attachments, list) else []):
            title, link = _str(item.get("title")), _str(item.get("title_link"))
            parts += [
                _str(item.get("pretext")),
                f"<{link}|{title}>" if title and link else title,
                _str(item.get("text")) or _str(item.get("fallback")),
            ]
        return "\n".join(p for p in parts if p)

    def _topic(self, conversation: Conversation, message: dict[str, object], content: str) -> str:
        if conversation.stream_id is None:
            return ""
        thread_ts = _str(message.get("thread_ts"))
        if not thread_ts:
            return IMPORTED_TOPIC
        key = (conversation.folder, thread_ts)
        if key not in self.thread_topics:
            day = datetime.fromtimestamp(ts_seconds(thread_ts), UTC).strftime("%Y-%m-%d")
            snippet = _SPACES.sub(" ", f"{day} {_plain(content)}").strip()
            name = _truncate(snippet, MAX_TOPIC_CHARS)
            count = self.topic_counts.get((conversation.stream_id, name), 0) + 1
            self.topic_counts[(conversation.stream_id, name)] = count
            if count > 1:
                suffix = f" ({count})"
                name = _truncate(snippet, MAX_TOPIC_CHARS - len(suffix)) + suffix
            self.thread_topics[key] = name
        return self.thread_topics[key]

    def _user_messages(
        self,
        conversation: Conversation,
        message: dict[str, object],
        message_id: int,
        sender: int,
        converted: Converted,
    ) -> None:
        base = _READ | (_PRIVATE if conversation.is_dm else 0)
        if converted.wildcard:
            base |= 0 if conversation.is_dm else _WILDCARD
        starred = self.pinners.get((conversation.folder, _str(message.get("ts"))), set())
        receivers = set(conversation.member_ids)
        if conversation.is_dm:
            receivers.add(sender)
        for uid in sorted(receivers | starred):
            flags = base if uid in receivers else (_READ | _HISTORICAL)
            if uid in converted.mentioned_user_ids:
                flags |= _MENTIONED
            if uid in starred:
                flags |= _STARRED
            self.user_messages.append(
                {"user_profile": uid, "message": message_id, "flags_mask": flags}
            )

    def _reactions(self, message: dict[str, object], message_id: int) -> None:
        seen: set[tuple[int, str]] = set()
        reactions = message.get("reactions")
        for reaction in map(_dict, reactions if isinstance(reactions, list) else []):
            name = _str(reaction.get("name")).split("::", 1)[0]
            code = emoji.name_to_codepoint(name) or _slack_codepoint(name)
            zulip_name = emoji.codepoint_to_name(code) if code else None
            if code is None or zulip_name is None:
                continue  # a custom or unknown emoji (Zulip skips them too)
            users = reaction.get("users")
            for slack_id in users if isinstance(users, list) else []:
                uid = self.names.users.get(_str(slack_id), (None, ""))[0]
                if uid is None or (uid, code) in seen:
                    continue
                seen.add((uid, code))
                self.reactions.append(
                    {
                        "message": message_id,
                        "user_profile": uid,
                        "emoji_name": zulip_name,
                        "emoji_code": code,
                        "reaction_type": "unicode_emoji",
                    }
                )

    def _files(
        self, message: dict[str, object], conversation: Conversation, message_id: int, owner: int
    ) -> tuple[list[str], bool, bool]:
        """(Markdown links, has_attachment, has_image): uploads for the files the export
        holds, links to Slack for the others."""
        files = message.get("files")
        if message.get("subtype") == "file_share" and isinstance(message.get("file"), dict):
            files = [message["file"]]
        links: list[str] = []
        has_attachment = has_image = False
        for info in map(_dict, files if isinstance(files, list) else []):
            if info.get("mode") in _GONE_FILE_MODES or info.get("file_access") in _GONE_FILE_ACCESS:
                continue
            name = _str(info.get("name")) or _str(info.get("title")) or "file"
            title = unescape(_str(info.get("title")) or name).replace("]", ")")
            held = self.find_upload(_str(info.get("id")), name, conversation.folder)
            if held is None:
                url = _str(info.get("url_private")) or _str(info.get("permalink"))
                if url:
                    links.append(f"[{title}]({url})")
                continue
            path_id = self._attachment(info, name, held, message_id, owner)
            links.append(f"[{title}](/user_uploads/{path_id})")
            has_attachment = True
            has_image = has_image or _str(info.get("mimetype")).startswith("image/")
        return links, has_attachment, has_image

    def _attachment(
        self, info: dict[str, object], name: str, held: str, message_id: int, owner: int
    ) -> str:
        clean = _UNSAFE_NAME.sub("_", name).strip(" .") or "file"
        path_id = f"1/{secrets.token_hex(1)}/{secrets.token_urlsafe(18)}/{clean}"
        self.upload_paths[path_id] = held
        self.attachments.append(
            {
                "id": len(self.attachments) + 1,
                "path_id": path_id,
                "file_name": name,
                "content_type": _str(info.get("mimetype")),
                "owner": owner,
                "create_time": ts_seconds(info.get("created") or info.get("timestamp")),
                "messages": [message_id],
            }
        )
        return path_id


def _plain(markdown: str) -> str:
    """A message's first words as text, for a topic name (`@**Ada**` -> `@Ada`)."""
    text = _MENTION_OR_CHANNEL.sub(r"\1\2", markdown)
    return _EMPHASIS.sub("", _LINK.sub(r"\1", text))


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _slack_codepoint(name: str) -> str | None:
    """The code point of one of Slack's emoji names that Zulip names otherwise (thumbsup,
    white_check_mark), from the emoji package's alias table; None for custom emoji."""
    glyph = emoji_package.emojize(f":{name}:", language="alias")
    if glyph == f":{name}:":
        return None
    code = "-".join(f"{ord(ch):x}" for ch in glyph if ord(ch) != 0xFE0F)
    return code if emoji.codepoint_to_name(code) else None

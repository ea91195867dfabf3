"""Message rows to Zulip's message objects (GET /messages, message events). Pure functions.

`message_dict` builds the viewer-independent object with rendered content; `finalize` applies
one client's choices (raw Markdown, client-side Gravatar, the empty topic's display name).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from teamchat.lib import wire
from teamchat.lib.api_types import JsonDict
from teamchat.lib.messages import display_topic
from teamchat.records import MessageRow, ReactionRow, RealmRow, SubmessageRow, UserRow

# Fields of an edit-history entry that clients see (SPEC's edit_history).
EDIT_HISTORY_FIELDS = (
    "user_id",
    "timestamp",
    "prev_content",
    "prev_rendered_content",
    "prev_stream",
    "stream",
    "prev_topic",
    "topic",
)


class MessageExtras(msgspec.Struct, kw_only=True):
    """Everything about a message that is not in its row."""

    sender: UserRow
    stream_name: str | None = None
    # Direct messages: every participant (sender included).
    participants: Sequence[UserRow] = ()
    reactions: Sequence[ReactionRow] = ()
    topic_links: list[dict[str, str]] = msgspec.field(default_factory=list)
    submessages: Sequence[SubmessageRow] = ()


def reaction_dicts(reactions: Sequence[ReactionRow]) -> list[JsonDict]:
    return [
        {
            "emoji_name": r.emoji_name,
            "emoji_code": r.emoji_code,
            "reaction_type": r.reaction_type,
            "user_id": r.user_id,
        }
        for r in reactions
    ]


def submessage_dicts(submessages: Sequence[SubmessageRow]) -> list[JsonDict]:
    return [
        {
            "msg_type": s.msg_type,
            "content": s.content,
            "message_id": s.message_id,
            "sender_id": s.sender_id,
            "id": s.id,
        }
        for s in submessages
    ]


def display_recipient(participants: Sequence[UserRow], realm_host: str) -> list[JsonDict]:
    return [
        {
            "id": u.id,
            "email": wire.api_email(u, realm_host),
            "full_name": u.full_name,
            "is_mirror_dummy": False,
        }
        for u in sorted(participants, key=lambda u: u.id)
    ]


def edit_history_entries(edit_history: str | None) -> list[JsonDict] | None:
    """The edit history, most recent first, with only the fields clients see.

    Stored oldest first (appending is one SQL update), sent newest first like Zulip.
    """
    if edit_history is None:
        return None
    entries: list[JsonDict] = msgspec.json.decode(edit_history)
    return [{k: e[k] for k in EDIT_HISTORY_FIELDS if k in e} for e in reversed(entries)]


def message_dict(row: MessageRow, extras: MessageExtras, realm: RealmRow) -> JsonDict:
    """The message object with rendered content, as a viewer who sees emails would get it."""
    sender = extras.sender
    obj: JsonDict = {
        "id": row.id,
        "sender_id": sender.id,
        "content": row.rendered_content,
        "recipient_id": row.recipient_id,
        "timestamp": row.date_sent,
        "client": row.client,
        "subject": row.topic,
        "topic_links": extras.topic_links,
        "is_me_message": row.is_me_message,
        "reactions": reaction_dicts(extras.reactions),
        "submessages": submessage_dicts(extras.submessages),
        "sender_full_name": sender.full_name,
        "sender_email": wire.api_email(sender, realm.host),
        "sender_realm_str": realm.string_id,
        "avatar_url": wire.avatar_url(sender, client_gravatar=False, email_visible=True),
        "content_type": "text/html",
    }
    if row.stream_id is not None:
        obj["type"] = "stream"
        obj["stream_id"] = row.stream_id
        obj["display_recipient"] = extras.stream_name
    else:
        obj["type"] = "private"
        obj["display_recipient"] = display_recipient(extras.participants, realm.host)
    if row.last_edit_time is not None:
        obj["last_edit_timestamp"] = row.last_edit_time
    if row.last_moved_time is not None:
        obj["last_moved_timestamp"] = row.last_moved_time
    history = edit_history_entries(row.edit_history)
    if history is not None:
        obj["edit_history"] = history
    return obj


class ClientView(msgspec.Struct, kw_only=True, frozen=True):
    """One client's choices for how messages look."""

    apply_markdown: bool = True
    client_gravatar: bool = False
    allow_empty_topic_name: bool = False
    allow_edit_history: bool = True
    # The organization shows only moves (not content edits) in edit history.
    history_moves_only: bool = False


def finalize(
    obj: JsonDict,
    raw_content: str,
    view: ClientView,
    *,
    sender_gravatar: bool,
    sender_email_visible: bool,
) -> JsonDict:
    """A copy of `obj` as one client asked to see it."""
    out = dict(obj)
    if not view.apply_markdown:
        out["content"] = raw_content
        out["content_type"] = "text/x-markdown"
    if view.client_gravatar and sender_gravatar and sender_email_visible:
        out["avatar_url"] = None
    if out["type"] == "stream":
        out["subject"] = display_topic(str(out["subject"]), view.allow_empty_topic_name)
    if not view.allow_edit_history:
        out.pop("edit_history", None)
    elif view.history_moves_only and "edit_history" in out:
        entries = out["edit_history"]
        assert isinstance(entries, list)
        moves = [
            {k: v for k, v in e.items() if k not in ("prev_content", "prev_rendered_content")}
            for e in entries
            if "prev_topic" in e or "prev_stream" in e
        ]
        if moves:
            out["edit_history"] = moves
        else:
            out.pop("edit_history")
    return out


def sender_hints(sender: UserRow, viewers: Mapping[int, UserRow]) -> dict[int, bool]:
    """viewer id -> whether that viewer may see the sender's real email (for Gravatar)."""
    return {uid: wire.can_see_delivery_email(v, sender) for uid, v in viewers.items()}

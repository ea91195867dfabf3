"""GET /messages/{id}/history: the message's snapshots, oldest first (SPEC's Message edit
snapshot), rebuilt from the stored edit entries.
"""

from __future__ import annotations

import msgspec

from teamchat.actions.messages.message_common import access_message
from teamchat.errors import ZulipError
from teamchat.lib import realm_settings
from teamchat.lib.api_types import JsonDict
from teamchat.lib.html_diff import highlight_html_differences
from teamchat.lib.messages import display_topic
from teamchat.records import MessageRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import realm as realm_store

_CONTENT_KEYS = ("prev_content", "prev_rendered_content")


def snapshots(
    message: MessageRow, entries: list[JsonDict], allow_empty_topic_name: bool
) -> list[JsonDict]:
    """Zulip's fill_edit_history_entries: walk back from the current state, oldest first."""
    is_stream = message.stream_id is not None

    def topic(name: str) -> str:
        return display_topic(name, allow_empty_topic_name) if is_stream else ""

    content, rendered, current_topic = (
        message.content,
        message.rendered_content,
        topic(message.topic),
    )
    result: list[JsonDict] = []
    for entry in reversed(entries):
        item: JsonDict = {
            "content": content,
            "rendered_content": rendered,
            "timestamp": entry["timestamp"],
            "topic": current_topic,
            "user_id": entry["user_id"],
        }
        if "prev_topic" in entry:
            current_topic = topic(str(entry["prev_topic"]))
            item["prev_topic"] = current_topic
        if "prev_content" in entry:
            content, rendered = str(entry["prev_content"]), str(entry["prev_rendered_content"])
            item["prev_content"] = content
            item["prev_rendered_content"] = rendered
            item["content_html_diff"] = highlight_html_differences(
                rendered, str(item["rendered_content"])
            )
        if "prev_stream" in entry:
            item["prev_stream"] = entry["prev_stream"]
            item["stream"] = entry["stream"]
        result.append(item)
    result.append(
        {
            "content": content,
            "rendered_content": rendered,
            "timestamp": message.date_sent,
            "topic": current_topic,
            "user_id": message.sender_id,
        }
    )
    return list(reversed(result))


async def get_message_history(
    rt: Runtime, user: UserRow, message_id: int, *, allow_empty_topic_name: bool
) -> list[JsonDict]:
    """The snapshots, or Zulip's error where the organization hides edit history."""
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        assert realm is not None
        settings = realm_settings.load(realm.settings_json)
        if (
            not settings.allow_edit_history
            or settings.message_edit_history_visibility_policy == "none"
        ):
            raise ZulipError("Message edit history is disabled in this organization")
        message, _ = await access_message(conn, user, message_id)
    entries: list[JsonDict] = msgspec.json.decode(message.edit_history or "[]")
    if settings.message_edit_history_visibility_policy == "moves":
        # zulip-compat: only moves are shown; content edits are hidden.
        entries = [
            {k: v for k, v in e.items() if k not in _CONTENT_KEYS}
            for e in entries
            if "prev_topic" in e or "prev_stream" in e
        ]
    return snapshots(message, entries, allow_empty_topic_name)

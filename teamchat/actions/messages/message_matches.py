"""GET /messages/matches_narrow: which of some messages a narrow contains."""

from __future__ import annotations

import html

import msgspec

from teamchat.actions.messages.message_fetch import build_query
from teamchat.lib.api_types import JsonDict
from teamchat.lib.narrow import NarrowTerm
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import message_search as search
from teamchat.store import messages as message_store


async def messages_matching_narrow(
    rt: Runtime, user: UserRow, message_ids: list[int], narrow: list[NarrowTerm]
) -> dict[str, JsonDict]:
    """The messages among `message_ids` the user received that match `narrow`, keyed by id,
    each with `match_content` (rendered content) and `match_subject` (HTML-escaped topic)."""
    async with rt.db.read() as conn:
        query = await build_query(conn, user, narrow)
        # zulip-compat: only messages the user has rows for (received), never channel history.
        query = msgspec.structs.replace(query, include_history=False)
        matched = await search.fetch_ids(conn, query, message_ids)
        messages = await message_store.list_messages(conn, [row[0] for row in matched])
    return {
        str(message.id): {
            "match_content": message.rendered_content,
            "match_subject": html.escape(message.topic),
        }
        for message in messages
    }

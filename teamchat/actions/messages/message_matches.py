"""GET /messages/matches_narrow: which of some messages a narrow contains."""

from __future__ import annotations

import msgspec

from teamchat.actions.messages.message_fetch import build_query
from teamchat.lib.narrow import NarrowTerm
from teamchat.lib.search_highlight import search_matches, search_terms
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import message_search as search
from teamchat.store import messages as message_store


async def messages_matching_narrow(
    rt: Runtime, user: UserRow, message_ids: list[int], narrow: list[NarrowTerm]
) -> dict[str, dict[str, str]]:
    """The messages among `message_ids` the user received that match `narrow`, keyed by id,
    each with `match_content` and `match_subject` (search words highlighted)."""
    async with rt.db.read() as conn:
        query = await build_query(conn, user, narrow)
        # zulip-compat: only messages the user has rows for (received), never channel history.
        query = msgspec.structs.replace(query, include_history=False)
        matched = await search.fetch_ids(conn, query, message_ids)
        messages = await message_store.list_messages(conn, [row[0] for row in matched])
    stems = search_terms(narrow) or frozenset()
    return {str(message.id): search_matches(message, stems) for message in messages}

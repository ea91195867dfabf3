"""GET /users/me/{stream_id}/topics: the topics of a channel the user may read."""

from __future__ import annotations

from teamchat.actions.channels import channel_access as access
from teamchat.lib.api_types import JsonDict
from teamchat.lib.messages import display_topic
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import messages as message_store


async def get_topics(
    rt: Runtime, user: UserRow, stream_id: int, *, allow_empty_topic_name: bool
) -> list[JsonDict]:
    """Topics with their newest message id; with protected history, only what the user got."""
    async with rt.db.read() as conn:
        stream, _ = await access.access_stream_by_id(conn, user, stream_id)
        visible_to = None if stream.history_public_to_subscribers else user.id
        rows = await message_store.topic_history(conn, stream.recipient_id, visible_to=visible_to)
    return [
        {"name": display_topic(topic, allow_empty_topic_name), "max_id": max_id}
        for topic, max_id in rows
    ]

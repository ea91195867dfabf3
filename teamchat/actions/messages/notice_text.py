"""Pieces of the texts the Notification Bot writes about messages (reports, reminders,
scheduling failures): silent mentions, links to a message, quotes that cannot break out."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime

from teamchat.records import MessageRow, UserRow
from teamchat.render.context import StreamTarget
from teamchat.render.stream_links import topic_url


def mention(user: UserRow) -> str:
    """A silent mention: names the user without notifying them."""
    return f"@_**{user.full_name}|{user.id}**"


def mention_list(users: Sequence[UserRow]) -> str:
    """ "A", "A and B", "A, B, and C"."""
    mentions = [mention(u) for u in users]
    if len(mentions) <= 2:
        return " and ".join(mentions)
    return ", ".join(mentions[:-1]) + ", and " + mentions[-1]


def global_time(timestamp: int) -> str:
    """A `<time:...>` every reader sees in their own zone."""
    return f"<time:{datetime.fromtimestamp(timestamp, UTC).isoformat()}>"


def unused_fence(content: str) -> str:
    """A backtick fence longer than any run of backticks in `content`."""
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    return "`" * max(3, longest + 1)


def message_url(
    realm_url: str, message: MessageRow, stream_name: str | None, participant_ids: Sequence[int]
) -> str:
    """The message's permanent link, as Zulip writes it."""
    return message_link(
        realm_url, message.id, message.stream_id, stream_name, message.topic, participant_ids
    )


def message_link(
    realm_url: str, message_id: int, stream_id: int | None, stream_name: str | None, topic: str,
    participant_ids: Sequence[int],
) -> str:  # fmt: skip
    """A message's permanent link from its parts (a channel message, or a conversation's)."""
    if stream_id is not None and stream_name is not None:
        target = StreamTarget(stream_id=stream_id, name=stream_name)
        return f"{realm_url}{topic_url(target, topic)}/near/{message_id}"
    suffix = "group" if len(participant_ids) >= 3 else "dm"
    ids = ",".join(str(uid) for uid in sorted(participant_ids))
    return f"{realm_url}/#narrow/dm/{ids}-{suffix}/near/{message_id}"

"""Queries on user_topic: each user's visibility policy (muted/unmuted/followed) per topic."""

from __future__ import annotations

from collections.abc import Iterable

from teamchat.records import UserTopicRow
from teamchat.store.db import Conn, Row, Tx

_COLUMNS = "user_id, stream_id, topic_name, visibility_policy, last_updated"


def _row(row: Row) -> UserTopicRow:
    return UserTopicRow(**dict(row))


async def get_user_topic(
    conn: Conn, user_id: int, stream_id: int, topic: str
) -> UserTopicRow | None:
    """The user's policy row for the topic (compared case-insensitively)."""
    row = await conn.fetchone(
        f"SELECT {_COLUMNS} FROM user_topic WHERE user_id = ? AND stream_id = ? AND topic_name = ?",
        (user_id, stream_id, topic),
    )
    return _row(row) if row else None


async def list_user_topics(conn: Conn, user_id: int) -> list[UserTopicRow]:
    """Every topic policy the user set, by channel and topic."""
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM user_topic WHERE user_id = ? ORDER BY stream_id, topic_name",
        (user_id,),
    )
    return [_row(row) for row in rows]


async def list_topic_policies(
    conn: Conn, stream_id: int, topic: str, user_ids: Iterable[int] | None = None
) -> dict[int, UserTopicRow]:
    """user id -> policy row, for one topic (optionally only some users)."""
    where = ""
    if user_ids is not None:
        where = " AND user_id IN (" + (",".join(str(int(u)) for u in user_ids) or "NULL") + ")"
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM user_topic WHERE stream_id = ? AND topic_name = ?{where}",
        (stream_id, topic),
    )
    return {int(row["user_id"]): _row(row) for row in rows}


async def set_policy(
    tx: Tx, user_id: int, stream_id: int, topic: str, policy: int, last_updated: int
) -> None:
    """Store a policy (0 removes the row)."""
    if policy == 0:
        await tx.execute(
            "DELETE FROM user_topic WHERE user_id = ? AND stream_id = ? AND topic_name = ?",
            (user_id, stream_id, topic),
        )
        return
    await tx.execute(
        "INSERT INTO user_topic (user_id, stream_id, topic_name, visibility_policy, last_updated)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, stream_id, topic_name) DO UPDATE"
        " SET visibility_policy = excluded.visibility_policy,"
        " last_updated = excluded.last_updated",
        (user_id, stream_id, topic, policy, last_updated),
    )


async def rename_topic(
    tx: Tx, old_stream_id: int, old_topic: str, new_stream_id: int, new_topic: str
) -> None:
    """Move policies along with a whole topic (rows already at the target win)."""
    await tx.execute(
        "UPDATE OR IGNORE user_topic SET stream_id = ?, topic_name = ?"
        " WHERE stream_id = ? AND topic_name = ?",
        (new_stream_id, new_topic, old_stream_id, old_topic),
    )
    await tx.execute(
        "DELETE FROM user_topic WHERE stream_id = ? AND topic_name = ?",
        (old_stream_id, old_topic),
    )

"""Queries on subscriptions: who is in which channel, and each user's settings for it."""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from teamchat.records import SubscriptionRow
from teamchat.store import idle_users
from teamchat.store import users as users_store
from teamchat.store.db import Conn, Row, Tx

_COLUMNS = (
    "stream_id, user_id, active, color, is_muted, pin_to_top, desktop_notifications,"
    " audible_notifications, push_notifications, email_notifications, wildcard_mentions_notify"
)
_NULLABLE_BOOLS = (
    "desktop_notifications",
    "audible_notifications",
    "push_notifications",
    "email_notifications",
    "wildcard_mentions_notify",
)
PROPERTIES = frozenset({"color", "is_muted", "pin_to_top", *_NULLABLE_BOOLS})


def _row(row: Row) -> SubscriptionRow:
    data = dict(row)
    for name in ("active", "is_muted", "pin_to_top"):
        data[name] = bool(data[name])
    for name in _NULLABLE_BOOLS:
        if data[name] is not None:
            data[name] = bool(data[name])
    return SubscriptionRow(**data)


def _ids(values: Iterable[int]) -> str:
    return ",".join(str(int(v)) for v in values) or "NULL"


async def get_subscription(conn: Conn, user_id: int, stream_id: int) -> SubscriptionRow | None:
    """The user's subscription row for the channel, active or not."""
    row = await conn.fetchone(
        f"SELECT {_COLUMNS} FROM subscription WHERE stream_id = ? AND user_id = ?",
        (stream_id, user_id),
    )
    return _row(row) if row else None


async def is_subscribed(conn: Conn, user_id: int, stream_id: int) -> bool:
    """Whether the user has an active subscription to the channel (active user or not)."""
    if conn.memoizes:
        raw = await conn.memo("subscription", "subscription:raw", _read_raw_subscribers)
        user_ids = raw.get(stream_id, ())
        at = bisect.bisect_left(user_ids, user_id)
        return at < len(user_ids) and user_ids[at] == user_id
    row = await conn.fetchone(
        "SELECT 1 FROM subscription WHERE stream_id = ? AND user_id = ? AND active = 1",
        (stream_id, user_id),
    )
    return row is not None


async def list_user_subscriptions(conn: Conn, user_id: int) -> list[SubscriptionRow]:
    """Every subscription row of the user (active and former), by channel id."""
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM subscription WHERE user_id = ? ORDER BY stream_id", (user_id,)
    )
    return [_row(row) for row in rows]


async def active_stream_ids(conn: Conn, user_id: int) -> set[int]:
    """Ids of the channels the user is subscribed to."""
    rows = await conn.fetchall(
        "SELECT stream_id FROM subscription WHERE user_id = ? AND active = 1", (user_id,)
    )
    return {int(row[0]) for row in rows}


# From this many channels on, a read snapshot answers from every channel's subscribers read
# once per change of subscriptions or users (POST /register asks about all of them).
_MANY_STREAMS = 20
_SUBSCRIBER_TABLES = ("subscription", "users")


async def subscriber_ids(conn: Conn, stream_ids: Iterable[int]) -> dict[int, list[int]]:
    """stream id -> sorted ids of its active subscribers who are active users."""
    stream_ids = list(stream_ids)
    if conn.memoizes and len(stream_ids) >= _MANY_STREAMS:
        every = await conn.memo(_SUBSCRIBER_TABLES, "subscription:all", _read_all_subscribers)
        return {sid: list(every[sid]) for sid in stream_ids if sid in every}
    rows = await conn.fetchall(
        "SELECT s.stream_id, s.user_id FROM subscription s JOIN users u ON u.id = s.user_id"
        f" WHERE s.stream_id IN ({_ids(stream_ids)}) AND s.active = 1 AND u.is_active = 1"
        " ORDER BY s.stream_id, s.user_id"
    )
    result: dict[int, list[int]] = {}
    for stream_id, user_id in rows:
        result.setdefault(int(stream_id), []).append(int(user_id))
    return result


async def _read_all_subscribers(conn: Conn) -> dict[int, tuple[int, ...]]:
    """Every channel's active subscribers who are active users (from the raw lists, so a
    change of users alone costs no new scan of the subscriptions)."""
    raw = await conn.memo("subscription", "subscription:raw", _read_raw_subscribers)
    active = set(await users_store.list_active_user_ids(conn))
    result = {}
    for stream_id, user_ids in raw.items():
        kept = tuple(uid for uid in user_ids if uid in active)
        if kept:
            result[stream_id] = kept
    return result


async def _read_raw_subscribers(conn: Conn) -> dict[int, tuple[int, ...]]:
    """stream id -> sorted ids of its active subscriptions' users (active or not): one
    row per channel, which reads several times faster than a row per subscription."""
    rows = await conn.fetchall(
        "SELECT stream_id, group_concat(user_id) FROM subscription WHERE active = 1"
        " GROUP BY stream_id"
    )
    return {int(row[0]): tuple(sorted(map(int, str(row[1]).split(",")))) for row in rows}


async def subscriber_counts(conn: Conn, stream_ids: Iterable[int]) -> dict[int, int]:
    """stream id -> number of active subscribers who are active users."""
    stream_ids = list(stream_ids)
    if conn.memoizes and len(stream_ids) >= _MANY_STREAMS:
        every = await conn.memo(_SUBSCRIBER_TABLES, "subscription:all", _read_all_subscribers)
        return {sid: len(every[sid]) for sid in stream_ids if sid in every}
    rows = await conn.fetchall(
        "SELECT s.stream_id, count(*) FROM subscription s JOIN users u ON u.id = s.user_id"
        f" WHERE s.stream_id IN ({_ids(stream_ids)}) AND s.active = 1 AND u.is_active = 1"
        " GROUP BY s.stream_id"
    )
    return {int(row[0]): int(row[1]) for row in rows}


async def used_colors(conn: Conn, user_id: int) -> set[str]:
    """Colors of all the user's subscription rows (to pick new ones)."""
    rows = await conn.fetchall("SELECT color FROM subscription WHERE user_id = ?", (user_id,))
    return {str(row[0]) for row in rows}


async def upsert_active(tx: Tx, stream_id: int, user_id: int, color: str) -> None:
    """Subscribe (or resubscribe, keeping former settings) a user to a channel."""
    await idle_users.catch_up(tx, [user_id], joining=stream_id)  # rows follow subscriptions
    await tx.execute(
        "INSERT INTO subscription (stream_id, user_id, active, color) VALUES (?, ?, 1, ?)"
        " ON CONFLICT (stream_id, user_id) DO UPDATE SET active = 1",
        (stream_id, user_id, color),
    )


async def deactivate(tx: Tx, stream_id: int, user_id: int) -> None:
    """Unsubscribe (keep the row and its settings for a later resubscription)."""
    await idle_users.catch_up(tx, [user_id])  # the rule's rows follow subscriptions
    await tx.execute(
        "UPDATE subscription SET active = 0 WHERE stream_id = ? AND user_id = ?",
        (stream_id, user_id),
    )


async def update_property(tx: Tx, stream_id: int, user_id: int, name: str, value: object) -> None:
    """Set one of the user's settings for the channel."""
    assert name in PROPERTIES, name
    stored = int(value) if isinstance(value, bool) else value
    await tx.execute(
        f"UPDATE subscription SET {name} = ? WHERE stream_id = ? AND user_id = ?",
        (stored, stream_id, user_id),
    )


async def delete_inactive(tx: Tx, stream_id: int, user_ids: Iterable[int]) -> None:
    """Forget former subscriptions (users who can no longer see the channel at all)."""
    await tx.execute(
        "DELETE FROM subscription WHERE stream_id = ? AND active = 0"
        f" AND user_id IN ({_ids(user_ids)})",
        (stream_id,),
    )


async def all_subscriber_ids(conn: Conn, stream_id: int) -> set[int]:
    """Everyone with a subscription row, active or former."""
    rows = await conn.fetchall("SELECT user_id FROM subscription WHERE stream_id = ?", (stream_id,))
    return {int(r[0]) for r in rows}


async def list_stream_subscriptions(
    conn: Conn, stream_id: int, user_ids: Iterable[int]
) -> dict[int, SubscriptionRow]:
    """user id -> active subscription row to the channel, for some users."""
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM subscription WHERE stream_id = ? AND active = 1"
        f" AND user_id IN ({_ids(user_ids)})",
        (stream_id,),
    )
    return {int(row["user_id"]): _row(row) for row in rows}

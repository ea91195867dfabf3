"""Queries on `user_message`: each user's rows and flags, unread and starred messages."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from teamchat.lib.flags import READ
from teamchat.store import idle_users
from teamchat.store.db import Conn, Row, Tx
from teamchat.store.messages import ids_sql


async def user_flags(conn: Conn, user_id: int, message_ids: Iterable[int]) -> dict[int, int]:
    """message id -> the user's flags, for the messages the user has a row for (written
    out or implied: see store.idle_users)."""
    message_ids = list(message_ids)
    rows = await conn.fetchall(
        "SELECT message_id, flags FROM user_message WHERE user_id = ?"
        f" AND message_id IN ({ids_sql(message_ids)})",
        (user_id,),
    )
    result = {int(r[0]): int(r[1]) for r in rows}
    if len(result) < len(set(message_ids)):
        result |= dict.fromkeys(await idle_users.implied_for_user(conn, user_id, message_ids), 0)
    return result


async def message_user_ids(conn: Conn, message_id: int) -> list[int]:
    """Every user with a user_message row for the message (written out or implied)."""
    rows = await conn.fetchall(
        "SELECT user_id FROM user_message WHERE message_id = ? ORDER BY user_id", (message_id,)
    )
    implied = await idle_users.implied_unless_written(conn, [message_id])
    return sorted({int(r[0]) for r in rows} | {user_id for user_id, _ in implied})


async def message_user_flags(conn: Conn, message_ids: Iterable[int]) -> dict[int, dict[int, int]]:
    """user id -> {message id -> flags}, for every row of the given messages (written out
    or implied)."""
    message_ids = list(message_ids)
    rows = await conn.fetchall(
        "SELECT user_id, message_id, flags FROM user_message"
        f" WHERE message_id IN ({ids_sql(message_ids)})"
    )
    result: dict[int, dict[int, int]] = {}
    for user_id, message_id, bits in rows:
        result.setdefault(int(user_id), {})[int(message_id)] = int(bits)
    for user_id, message_id in await idle_users.implied_unless_written(conn, message_ids):
        result.setdefault(user_id, {}).setdefault(message_id, 0)
    return result


async def set_user_flags(tx: Tx, message_id: int, flags: dict[int, int]) -> None:
    """Replace the flags of some users' rows for one message (an implied row is written)."""
    await tx.executemany(
        "INSERT INTO user_message (user_id, message_id, flags) VALUES (?, ?, ?)"
        " ON CONFLICT (user_id, message_id) DO UPDATE SET flags = excluded.flags",
        [(user_id, message_id, bits) for user_id, bits in flags.items()],
    )


async def add_user_messages(
    tx: Tx, user_ids: Iterable[int], message_ids: Sequence[int], flags: int
) -> None:
    """Rows for users who gain access to messages (existing rows are kept). For moved
    messages: after `messages.move_messages`, which wrote out their implied rows."""
    await tx.executemany(
        "INSERT OR IGNORE INTO user_message (user_id, message_id, flags) VALUES (?, ?, ?)",
        [(user_id, message_id, flags) for user_id in user_ids for message_id in message_ids],
    )


async def add_first_feed(
    tx: Tx, user_id: int, recipient_ids: Sequence[int], *, since: int, limit: int, unread: int
) -> int:
    """Rows for a new account: the newest `limit` messages sent after `since` to
    `recipient_ids`, all read but the newest `unread`. Returns how many rows were added."""
    if not recipient_ids or limit <= 0:
        return 0
    rows = await tx.fetchall_tuples(
        f"SELECT id FROM message WHERE recipient_id IN ({ids_sql(recipient_ids)})"
        " AND date_sent > ? ORDER BY id DESC LIMIT ?",
        (since, limit),
    )
    message_ids = [int(row[0]) for row in rows]  # newest first
    await tx.executemany(
        "INSERT INTO user_message (user_id, message_id, flags) VALUES (?, ?, ?)"
        " ON CONFLICT (user_id, message_id) DO NOTHING",
        [
            (user_id, message_id, 0 if n < unread else READ)
            for n, message_id in enumerate(message_ids)
        ],
    )
    return len(message_ids)


async def delete_user_messages(tx: Tx, user_ids: Iterable[int], message_ids: Sequence[int]) -> None:
    """Delete these users' rows for these messages (moved messages: after
    `messages.move_messages`, which wrote out their implied rows)."""
    await tx.execute(
        f"DELETE FROM user_message WHERE user_id IN ({ids_sql(user_ids)})"
        f" AND message_id IN ({ids_sql(message_ids)})"
    )


async def unread_rows(conn: Conn, user_id: int, limit: int) -> list[Row]:
    """The user's unread messages (newest first, up to `limit`) outside channels they left."""
    return await conn.fetchall(
        "SELECT um.message_id, um.flags, m.sender_id, m.recipient_id, m.stream_id, m.topic"
        " FROM user_message um JOIN message m ON m.id = um.message_id"
        " WHERE um.user_id = ? AND (um.flags & 1) = 0 AND (m.stream_id IS NULL OR m.stream_id"
        " NOT IN (SELECT stream_id FROM subscription WHERE user_id = ? AND active = 0))"
        " ORDER BY um.message_id DESC LIMIT ?",
        (user_id, user_id, limit),
    )


async def flagged_ids(conn: Conn, user_id: int, bit: int, limit: int) -> list[int]:
    """Ids of the user's messages with `bit` set (oldest first, up to `limit`)."""
    rows = await conn.fetchall(
        "SELECT message_id FROM user_message WHERE user_id = ? AND (flags & ?) != 0"
        " ORDER BY message_id LIMIT ?",
        (user_id, bit, limit),
    )
    return [int(r[0]) for r in rows]


async def recent_dm_conversations(conn: Conn, user_id: int, limit: int) -> list[tuple[int, int]]:
    """(recipient id, newest message id) of the user's recent direct-message conversations."""
    rows = await conn.fetchall(
        "SELECT m.recipient_id, max(m.id) FROM (SELECT message_id FROM user_message"
        " WHERE user_id = ? AND (flags & 256) != 0 ORDER BY message_id DESC LIMIT ?) recent"
        " JOIN message m ON m.id = recent.message_id GROUP BY m.recipient_id",
        (user_id, limit),
    )
    return [(int(r[0]), int(r[1])) for r in rows]


async def update_user_flag(
    tx: Tx, user_id: int, message_ids: Sequence[int], bit: int, *, add: bool
) -> list[int]:
    """Set or clear `bit` on the user's rows; return the ids that changed."""
    wanted = "= 0" if add else "!= 0"
    rows = await tx.fetchall(
        f"SELECT message_id FROM user_message WHERE user_id = ? AND (flags & ?) {wanted}"
        f" AND message_id IN ({ids_sql(message_ids)}) ORDER BY message_id",
        (user_id, bit),
    )
    changed = [int(r[0]) for r in rows]
    if changed:
        expression = "flags | ?" if add else "flags & ~?"
        await tx.execute(
            f"UPDATE user_message SET flags = {expression} WHERE user_id = ?"
            f" AND message_id IN ({ids_sql(changed)})",
            (bit, user_id),
        )
    return changed


async def unread_ids_in(
    conn: Conn, user_id: int, recipient_id: int, topic: str | None, limit: int
) -> list[int]:
    """The user's unread message ids in a channel (or one of its topics)."""
    where = " AND m.topic = ?" if topic is not None else ""
    params: tuple[object, ...] = (user_id, recipient_id) + ((topic,) if topic is not None else ())
    rows = await conn.fetchall(
        "SELECT um.message_id FROM user_message um JOIN message m ON m.id = um.message_id"
        f" WHERE um.user_id = ? AND (um.flags & 1) = 0 AND m.recipient_id = ?{where}"
        f" ORDER BY um.message_id LIMIT {int(limit)}",
        params,
    )
    return [int(r[0]) for r in rows]


async def all_unread_ids(conn: Conn, user_id: int, limit: int) -> list[int]:
    """The user's oldest unread message ids, up to `limit`."""
    rows = await conn.fetchall(
        "SELECT message_id FROM user_message WHERE user_id = ? AND (flags & 1) = 0"
        " ORDER BY message_id LIMIT ?",
        (user_id, limit),
    )
    return [int(r[0]) for r in rows]


async def bulk_insert_user_messages(tx: Tx, rows: Sequence[tuple[int, int, int]]) -> None:
    """Insert many (user_id, message_id, flags) rows (imports and benchmarks)."""
    await tx.executemany(
        "INSERT INTO user_message (user_id, message_id, flags) VALUES (?, ?, ?)", list(rows)
    )

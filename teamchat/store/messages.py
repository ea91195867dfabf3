"""Queries on messages, their recipients and the per-user `user_message` rows."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from teamchat.records import MessageRow
from teamchat.store.db import Conn, Tx

COLUMNS = (
    "id, sender_id, recipient_id, stream_id, topic, content, rendered_content, client,"
    " date_sent, last_edit_time, last_moved_time, edit_history, has_link, has_image,"
    " has_attachment, is_me_message"
)
_BOOLS = ("has_link", "has_image", "has_attachment", "is_me_message")


def row_to_message(row: sqlite3.Row) -> MessageRow:
    data = dict(row)
    for name in _BOOLS:
        data[name] = bool(data[name])
    return MessageRow(**data)


def ids_sql(values: Iterable[int]) -> str:
    return ",".join(str(int(v)) for v in values) or "NULL"


def dm_key(user_ids: Iterable[int]) -> str:
    """A direct-message conversation's key: its sorted participant ids."""
    return ",".join(str(uid) for uid in sorted(set(user_ids)))


async def get_dm_recipient_id(conn: Conn, user_ids: Iterable[int]) -> int | None:
    row = await conn.fetchone("SELECT id FROM recipient WHERE user_ids = ?", (dm_key(user_ids),))
    return int(row[0]) if row else None


async def ensure_dm_recipient(tx: Tx, user_ids: Iterable[int]) -> int:
    """The conversation's recipient id, creating it (and its members) the first time."""
    key = dm_key(user_ids)
    existing = await get_dm_recipient_id(tx, user_ids)
    if existing is not None:
        return existing
    recipient_id = await tx.execute("INSERT INTO recipient (user_ids) VALUES (?)", (key,))
    await tx.executemany(
        "INSERT INTO direct_message_member (user_id, recipient_id) VALUES (?, ?)",
        [(int(uid), recipient_id) for uid in key.split(",")],
    )
    return recipient_id


async def dm_participants(conn: Conn, recipient_ids: Iterable[int]) -> dict[int, list[int]]:
    """Direct-message recipient id -> sorted participant ids."""
    rows = await conn.fetchall(
        f"SELECT id, user_ids FROM recipient WHERE id IN ({ids_sql(recipient_ids)})"
        " AND user_ids IS NOT NULL"
    )
    return {int(r[0]): [int(u) for u in str(r[1]).split(",")] for r in rows}


async def insert_message(
    tx: Tx,
    *,
    sender_id: int,
    recipient_id: int,
    stream_id: int | None,
    topic: str,
    content: str,
    rendered_content: str,
    client: str,
    date_sent: int,
    has_link: bool,
    has_image: bool,
    has_attachment: bool,
    is_me_message: bool,
) -> int:
    return await tx.execute(
        "INSERT INTO message (sender_id, recipient_id, stream_id, topic, content,"
        " rendered_content, client, date_sent, has_link, has_image, has_attachment,"
        " is_me_message) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            sender_id,
            recipient_id,
            stream_id,
            topic,
            content,
            rendered_content,
            client,
            date_sent,
            int(has_link),
            int(has_image),
            int(has_attachment),
            int(is_me_message),
        ),
    )


async def insert_user_messages(tx: Tx, message_id: int, flags: dict[int, int]) -> None:
    """One user_message row per receiving user, with that user's flags."""
    await tx.executemany(
        "INSERT INTO user_message (user_id, message_id, flags) VALUES (?, ?, ?)",
        [(user_id, message_id, bits) for user_id, bits in flags.items()],
    )


async def get_message(conn: Conn, message_id: int) -> MessageRow | None:
    row = await conn.fetchone(f"SELECT {COLUMNS} FROM message WHERE id = ?", (message_id,))
    return row_to_message(row) if row else None


async def list_messages(conn: Conn, message_ids: Sequence[int]) -> list[MessageRow]:
    """The messages with these ids, ordered by id."""
    rows = await conn.fetchall(
        f"SELECT {COLUMNS} FROM message WHERE id IN ({ids_sql(message_ids)}) ORDER BY id"
    )
    return [row_to_message(row) for row in rows]


async def user_flags(conn: Conn, user_id: int, message_ids: Iterable[int]) -> dict[int, int]:
    """message id -> the user's flags, for the messages the user has a row for."""
    rows = await conn.fetchall(
        "SELECT message_id, flags FROM user_message WHERE user_id = ?"
        f" AND message_id IN ({ids_sql(message_ids)})",
        (user_id,),
    )
    return {int(r[0]): int(r[1]) for r in rows}


async def message_user_ids(conn: Conn, message_id: int) -> list[int]:
    """Every user with a user_message row for the message."""
    rows = await conn.fetchall(
        "SELECT user_id FROM user_message WHERE message_id = ? ORDER BY user_id", (message_id,)
    )
    return [int(r[0]) for r in rows]


async def message_user_flags(conn: Conn, message_ids: Iterable[int]) -> dict[int, dict[int, int]]:
    """user id -> {message id -> flags}, for every row of the given messages."""
    rows = await conn.fetchall(
        "SELECT user_id, message_id, flags FROM user_message"
        f" WHERE message_id IN ({ids_sql(message_ids)})"
    )
    result: dict[int, dict[int, int]] = {}
    for user_id, message_id, bits in rows:
        result.setdefault(int(user_id), {})[int(message_id)] = int(bits)
    return result


async def topic_participants(conn: Conn, recipient_id: int, topic: str) -> set[int]:
    """Users who sent or reacted to a message in the topic (Zulip's participants_for_topic)."""
    rows = await conn.fetchall(
        "SELECT sender_id FROM message WHERE recipient_id = ? AND topic = ?"
        " UNION SELECT r.user_id FROM reaction r JOIN message m ON m.id = r.message_id"
        " WHERE m.recipient_id = ? AND m.topic = ?",
        (recipient_id, topic, recipient_id, topic),
    )
    return {int(r[0]) for r in rows}


async def topic_has_messages(
    conn: Conn, recipient_id: int, topic: str, *, visible_to: int | None = None
) -> bool:
    """Whether the topic has any message (only those `visible_to` received, if given)."""
    if visible_to is None:
        row = await conn.fetchone(
            "SELECT 1 FROM message WHERE recipient_id = ? AND topic = ? LIMIT 1",
            (recipient_id, topic),
        )
    else:
        row = await conn.fetchone(
            "SELECT 1 FROM message m JOIN user_message um ON um.message_id = m.id"
            " AND um.user_id = ? WHERE m.recipient_id = ? AND m.topic = ? LIMIT 1",
            (visible_to, recipient_id, topic),
        )
    return row is not None


async def max_user_message_id(conn: Conn, user_id: int) -> int:
    row = await conn.fetchone(
        "SELECT max(message_id) FROM user_message WHERE user_id = ?", (user_id,)
    )
    return int(row[0]) if row and row[0] is not None else -1


async def update_content(
    tx: Tx,
    message_id: int,
    *,
    content: str,
    rendered_content: str,
    has_link: bool,
    has_image: bool,
    has_attachment: bool,
    is_me_message: bool,
    last_edit_time: int,
) -> None:
    await tx.execute(
        "UPDATE message SET content = ?, rendered_content = ?, has_link = ?, has_image = ?,"
        " has_attachment = ?, is_me_message = ?, last_edit_time = ? WHERE id = ?",
        (
            content,
            rendered_content,
            int(has_link),
            int(has_image),
            int(has_attachment),
            int(is_me_message),
            last_edit_time,
            message_id,
        ),
    )


async def append_edit_history(tx: Tx, message_ids: Sequence[int], entry_json: str) -> None:
    """Add one edit entry to each message's history (stored oldest first)."""
    await tx.execute(
        "UPDATE message SET edit_history = json_insert(coalesce(edit_history, '[]'), '$[#]',"
        f" json(?)) WHERE id IN ({ids_sql(message_ids)})",
        (entry_json,),
    )


async def move_messages(
    tx: Tx,
    message_ids: Sequence[int],
    *,
    stream_id: int,
    recipient_id: int,
    topic: str,
    last_moved_time: int | None,
) -> None:
    """Put the messages in another channel and/or topic."""
    moved = ", last_moved_time = ?" if last_moved_time is not None else ""
    params: tuple[object, ...] = (stream_id, recipient_id, topic)
    if last_moved_time is not None:
        params += (last_moved_time,)
    await tx.execute(
        f"UPDATE message SET stream_id = ?, recipient_id = ?, topic = ?{moved}"
        f" WHERE id IN ({ids_sql(message_ids)})",
        params,
    )


async def topic_message_ids(
    conn: Conn,
    recipient_id: int,
    topic: str,
    *,
    min_id: int = 0,
    visible_to: int | None = None,
) -> list[int]:
    """Ids of the topic's messages from `min_id` on (only those `visible_to` received)."""
    if visible_to is None:
        rows = await conn.fetchall(
            "SELECT id FROM message WHERE recipient_id = ? AND topic = ? AND id >= ? ORDER BY id",
            (recipient_id, topic, min_id),
        )
    else:
        rows = await conn.fetchall(
            "SELECT m.id FROM message m JOIN user_message um ON um.message_id = m.id"
            " AND um.user_id = ? WHERE m.recipient_id = ? AND m.topic = ? AND m.id >= ?"
            " ORDER BY m.id",
            (visible_to, recipient_id, topic, min_id),
        )
    return [int(r[0]) for r in rows]


async def set_user_flags(tx: Tx, message_id: int, flags: dict[int, int]) -> None:
    """Replace the flags of some users' rows for one message."""
    await tx.executemany(
        "UPDATE user_message SET flags = ? WHERE user_id = ? AND message_id = ?",
        [(bits, user_id, message_id) for user_id, bits in flags.items()],
    )


async def add_user_messages(
    tx: Tx, user_ids: Iterable[int], message_ids: Sequence[int], flags: int
) -> None:
    """Rows for users who gain access to moved messages (existing rows are kept)."""
    await tx.executemany(
        "INSERT OR IGNORE INTO user_message (user_id, message_id, flags) VALUES (?, ?, ?)",
        [(user_id, message_id, flags) for user_id in user_ids for message_id in message_ids],
    )


async def delete_user_messages(tx: Tx, user_ids: Iterable[int], message_ids: Sequence[int]) -> None:
    await tx.execute(
        f"DELETE FROM user_message WHERE user_id IN ({ids_sql(user_ids)})"
        f" AND message_id IN ({ids_sql(message_ids)})"
    )


async def delete_messages(tx: Tx, message_ids: Sequence[int]) -> None:
    """Delete messages; their user_message rows and reactions go with them."""
    await tx.execute(f"DELETE FROM message WHERE id IN ({ids_sql(message_ids)})")


async def first_message_id(conn: Conn, recipient_id: int) -> int | None:
    row = await conn.fetchone("SELECT min(id) FROM message WHERE recipient_id = ?", (recipient_id,))
    return int(row[0]) if row and row[0] is not None else None


async def unread_rows(conn: Conn, user_id: int, limit: int) -> list[sqlite3.Row]:
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
    rows = await conn.fetchall(
        "SELECT message_id FROM user_message WHERE user_id = ? AND (flags & 1) = 0"
        " ORDER BY message_id LIMIT ?",
        (user_id, limit),
    )
    return [int(r[0]) for r in rows]


async def topic_history(
    conn: Conn, recipient_id: int, *, visible_to: int | None = None
) -> list[tuple[str, int]]:
    """(topic as last written, newest message id) per topic, newest first."""
    if visible_to is None:
        rows = await conn.fetchall(
            "SELECT topic, max(id) FROM message WHERE recipient_id = ? GROUP BY topic",
            (recipient_id,),
        )
    else:
        rows = await conn.fetchall(
            "SELECT m.topic, max(m.id) FROM message m JOIN user_message um"
            " ON um.message_id = m.id AND um.user_id = ? WHERE m.recipient_id = ?"
            " GROUP BY m.topic",
            (visible_to, recipient_id),
        )
    return sorted(((str(r[0]), int(r[1])) for r in rows), key=lambda r: -r[1])

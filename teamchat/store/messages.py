"""Queries on messages, their recipients and the per-user `user_message` rows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from teamchat.records import MessageRow
from teamchat.store import idle_users
from teamchat.store.db import Conn, Row, Tx

COLUMNS = (
    "id, sender_id, recipient_id, stream_id, topic, content, rendered_content, client,"
    " date_sent, last_edit_time, last_moved_time, edit_history, has_link, has_image,"
    " has_attachment, is_me_message"
)


def row_to_message(row: Row) -> MessageRow:
    """A MessageRow from a row selected with COLUMNS (by position: one per message fetched)."""
    return MessageRow(
        id=row[0],
        sender_id=row[1],
        recipient_id=row[2],
        stream_id=row[3],
        topic=row[4],
        content=row[5],
        rendered_content=row[6],
        client=row[7],
        date_sent=row[8],
        last_edit_time=row[9],
        last_moved_time=row[10],
        edit_history=row[11],
        has_link=bool(row[12]),
        has_image=bool(row[13]),
        has_attachment=bool(row[14]),
        is_me_message=bool(row[15]),
    )


def ids_sql(values: Iterable[int]) -> str:
    """Integer ids as a SQL list (NULL when empty, so IN () stays valid)."""
    return ",".join(str(int(v)) for v in values) or "NULL"


def dm_key(user_ids: Iterable[int]) -> str:
    """A direct-message conversation's key: its sorted participant ids."""
    return ",".join(str(uid) for uid in sorted(set(user_ids)))


async def get_dm_recipient_id(conn: Conn, user_ids: Iterable[int]) -> int | None:
    """The recipient id of the conversation among these users, or None."""
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
    """Insert one message; return its id."""
    if stream_id is not None:
        # Before the message takes its id: see idle_users.hold_channel.
        await idle_users.hold_channel(tx, stream_id)
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


async def insert_user_messages(
    tx: Tx, message_id: int, flags: dict[int, int], *, stream_id: int | None = None
) -> None:
    """Each receiving user's row with their flags, except, for a channel message
    (`stream_id`), the rows the idle-user rule implies (see store.idle_users)."""
    left_out: set[int] = set()
    if stream_id is not None:
        plain = [user_id for user_id, bits in flags.items() if bits == 0]
        left_out = await idle_users.plain_rows_left_out(tx, stream_id, plain)
    await tx.executemany(
        "INSERT INTO user_message (user_id, message_id, flags) VALUES (?, ?, ?)",
        [(uid, message_id, bits) for uid, bits in flags.items() if uid not in left_out],
    )


async def get_message(conn: Conn, message_id: int) -> MessageRow | None:
    """The message with this id, or None."""
    row = await conn.fetchone(f"SELECT {COLUMNS} FROM message WHERE id = ?", (message_id,))
    return row_to_message(row) if row else None


async def list_messages(conn: Conn, message_ids: Sequence[int]) -> list[MessageRow]:
    """The messages with these ids, ordered by id."""
    rows = await conn.fetchall(
        f"SELECT {COLUMNS} FROM message WHERE id IN ({ids_sql(message_ids)}) ORDER BY id"
    )
    return [row_to_message(row) for row in rows]


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
    """The newest message the user received (-1 if none)."""
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
    """Replace a message's content and what rendering found in it."""
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


async def set_rendered_content(tx: Tx, message_id: int, rendered_content: str) -> None:
    """Replace only the rendered form (previews added after sending; not an edit)."""
    await tx.execute(
        "UPDATE message SET rendered_content = ? WHERE id = ?", (rendered_content, message_id)
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
    await idle_users.freeze_messages(tx, await _leaving(tx, message_ids, stream_id))
    moved = ", last_moved_time = ?" if last_moved_time is not None else ""
    params: tuple[object, ...] = (stream_id, recipient_id, topic)
    if last_moved_time is not None:
        params += (last_moved_time,)
    await tx.execute(
        f"UPDATE message SET stream_id = ?, recipient_id = ?, topic = ?{moved}"
        f" WHERE id IN ({ids_sql(message_ids)})",
        params,
    )


async def _leaving(tx: Tx, message_ids: Sequence[int], stream_id: int) -> list[int]:
    """Those of the messages that are not in channel `stream_id`."""
    rows = await tx.fetchall(
        f"SELECT id FROM message WHERE id IN ({ids_sql(message_ids)}) AND stream_id != ?",
        (stream_id,),
    )
    return [int(r[0]) for r in rows]


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


async def delete_messages(tx: Tx, message_ids: Sequence[int]) -> list[int]:
    """Delete messages; their user_message rows and reactions go with them. Return the ids
    this statement deleted, sorted: not those another transaction deleted first."""
    rows = await tx.fetchall(
        f"DELETE FROM message WHERE id IN ({ids_sql(message_ids)}) RETURNING id"
    )
    return sorted(int(row[0]) for row in rows)


async def first_message_id(conn: Conn, recipient_id: int) -> int | None:
    """The oldest message of a recipient (channel or conversation), or None."""
    row = await conn.fetchone("SELECT min(id) FROM message WHERE recipient_id = ?", (recipient_id,))
    return int(row[0]) if row and row[0] is not None else None


async def topic_history(
    conn: Conn, recipient_id: int, *, visible_to: int | None = None
) -> list[tuple[str, int]]:
    """(topic as last written, newest message id) per topic, newest first.

    The spelling is read from the newest message's row (not the group's: PostgreSQL names
    no row for a bare column of a group, SQLite's max() does)."""
    if visible_to is None:
        rows = await conn.fetchall(
            "SELECT n.topic, n.id FROM message n WHERE n.id IN"
            " (SELECT max(id) FROM message WHERE recipient_id = ? GROUP BY topic)",
            (recipient_id,),
        )
    else:
        rows = await conn.fetchall(
            "SELECT n.topic, n.id FROM message n WHERE n.id IN"
            " (SELECT max(m.id) FROM message m JOIN user_message um"
            " ON um.message_id = m.id AND um.user_id = ? WHERE m.recipient_id = ?"
            " GROUP BY m.topic)",
            (visible_to, recipient_id),
        )
    return sorted(((str(r[0]), int(r[1])) for r in rows), key=lambda r: -r[1])


async def bulk_insert_messages(tx: Tx, rows: Sequence[tuple[object, ...]]) -> None:
    """Insert many messages with explicit ids (imports and benchmarks).

    Each row: (id, sender_id, recipient_id, stream_id, topic, content, rendered_content,
    client, date_sent).
    """
    await tx.executemany(
        "INSERT INTO message (id, sender_id, recipient_id, stream_id, topic, content,"
        " rendered_content, client, date_sent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        list(rows),
    )
    await tx.advance_id_sequences(("message",))  # new messages continue after these ids

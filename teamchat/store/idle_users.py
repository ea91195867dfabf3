"""Long-term idle people: fewer user_message rows for big channels ("soft deactivation").

The rule. For a user in `idle_user` with watermark W (`complete_through`), a channel message
m gets no user_message row at send time when it carries no flag for them and they are an
active subscriber of its channel; that row is *implied*: it exists, with no flags, exactly
when

    m.id > W, the user is an active subscriber of m's channel now, no row is written out
    for (user, m), and m is not in `message_rows_complete`.

The send writes every other row as before (flags such as mentioned, alert word or read,
direct messages, the sender's own row), so at most the plain unread rows of idle
subscribers are left out, and a channel of 1,000 mostly idle people costs a handful of
row writes instead of 1,000.

What keeps it exact (every change that would make the rule imply a different set of rows
writes the implied rows out first):
- coming back (`wake`: any authentication of theirs): the implied rows are written out and
  the user leaves `idle_user`, in one transaction;
- a subscription change of an idle user (subscribe, unsubscribe, resubscribe) and
  deactivating or reactivating their account: `catch_up` first (rows written out,
  W moved to the newest message);
- moving messages to another channel, or adding or deleting rows of moved messages:
  `freeze_messages` writes the implied rows out and marks the messages complete;
- a flag change by someone else (an edit that mentions them) writes their row (upsert);
- reads that concern other people than the requester (who has a row for a message, a
  user's flags for missed-message emails, the export) add the implied rows.
- several processes on one PostgreSQL database: a send to a channel (from before its
  message takes an id), and writing out or ending someone's idleness (with the channel they
  join, if any), lock the channels' rows (`hold_channel`), so whichever commits second sees
  the other; two write-outs of one row keep the first.
Read receipts need nothing: an implied row is unread. Deleting a message deletes what is
implied with it. Everything here is plain SQL (a PostgreSQL store runs the same rule).
"""

from __future__ import annotations

from collections.abc import Iterable

from teamchat.store.db import Conn, Tx


def _ids(values: Iterable[int]) -> str:
    return ",".join(str(int(v)) for v in values) or "NULL"


# (user_id, message_id) of the implied rows within a scope (an SQL condition on i or m).
_IMPLIED = (
    "SELECT i.user_id, m.id FROM idle_user i"
    " JOIN subscription s ON s.user_id = i.user_id AND s.active = 1"
    " JOIN stream st ON st.id = s.stream_id"
    " JOIN message m ON m.recipient_id = st.recipient_id AND m.id > i.complete_through"
    " WHERE {scope}"
    " AND NOT EXISTS (SELECT 1 FROM user_message um"
    "  WHERE um.user_id = i.user_id AND um.message_id = m.id)"
    " AND NOT EXISTS (SELECT 1 FROM message_rows_complete c WHERE c.message_id = m.id)"
)

_NEWEST = "(SELECT coalesce(max(id), 0) FROM message)"


def implied_rows_sql(scope: str) -> str:
    """SELECT (user_id, message_id) of the implied rows where `scope` (over i and m) holds."""
    return _IMPLIED.format(scope=scope)


async def _write_out(tx: Tx, scope: str, params: tuple[object, ...] = ()) -> int:
    """Write the implied rows where `scope` holds; return how many were written. A row
    another process wrote out meanwhile (two servers waking the same person) is left as it
    is: both would write the same plain row."""
    return await tx.execute_rowcount(
        "INSERT INTO user_message (user_id, message_id, flags)"
        f" SELECT implied.user_id, implied.id, 0 FROM ({implied_rows_sql(scope)}) implied"
        " WHERE true ON CONFLICT (user_id, message_id) DO NOTHING",
        params,
    )


async def any_idle(conn: Conn) -> bool:
    return await conn.fetchone("SELECT 1 FROM idle_user LIMIT 1") is not None


async def is_idle(conn: Conn, user_id: int) -> bool:
    row = await conn.fetchone("SELECT 1 FROM idle_user WHERE user_id = ?", (user_id,))
    return row is not None


async def idle_user_ids(conn: Conn) -> list[int]:
    rows = await conn.fetchall("SELECT user_id FROM idle_user ORDER BY user_id")
    return [int(r[0]) for r in rows]


async def hold_channel(tx: Tx, stream_id: int) -> None:
    """Several processes (PostgreSQL): a send to a channel holds it shared until it commits,
    from before its message takes an id; writing out or ending someone's idleness holds
    their channels exclusively (`_hold_channels_of`). Whichever commits second then sees
    the other: a catch-up sees the message it must write a row for, or the send sees that
    the person is no longer idle and gets an id above the watermark the catch-up set.
    (Taken after the id, a catch-up committed in between could set a watermark above the
    message and leave it without a row.) KEY SHARE, the lock a foreign key takes, waits for
    no ordinary change of the channel's row, so sends add no wait and no deadlock with
    channel updates; the catch-up's FOR UPDATE waits for it. SQLite has one writer, which
    already orders them."""
    if tx.backend == "postgresql":
        await tx.fetchall("SELECT id FROM stream WHERE id = ? FOR KEY SHARE", (stream_id,))


async def _hold_channels_of(tx: Tx, user_ids: Iterable[int], joining: int | None = None) -> None:
    """The exclusive side of `hold_channel`: the channels that those of these people who
    are idle subscribe to, and the channel they are `joining` if any of them is idle, in id
    order."""
    if tx.backend == "postgresql":
        user_ids = list(user_ids)
        joined = ""
        if joining is not None:
            joined = (
                f" OR (st.id = {int(joining)} AND EXISTS (SELECT 1 FROM idle_user i"
                f" WHERE i.user_id IN ({_ids(user_ids)})))"
            )
        await tx.fetchall(
            "SELECT st.id FROM stream st WHERE st.id IN (SELECT s.stream_id FROM subscription s"
            " JOIN idle_user i ON i.user_id = s.user_id"
            f" WHERE s.user_id IN ({_ids(user_ids)}) AND s.active = 1){joined}"
            " ORDER BY st.id FOR UPDATE"
        )


async def plain_rows_left_out(tx: Tx, stream_id: int, user_ids: Iterable[int]) -> set[int]:
    """Of these users (a new message of the channel carries no flag for them), those whose
    row the rule implies: idle, and active subscribers of the channel."""
    user_ids = list(user_ids)
    if not user_ids or not await any_idle(tx):
        return set()
    # The send holds the channel since before its message took an id (hold_channel).
    rows = await tx.fetchall(
        "SELECT i.user_id FROM idle_user i JOIN subscription s ON s.user_id = i.user_id"
        f" AND s.stream_id = ? AND s.active = 1 WHERE i.user_id IN ({_ids(user_ids)})",
        (stream_id,),
    )
    return {int(r[0]) for r in rows}


async def implied_unless_written(conn: Conn, message_ids: Iterable[int]) -> list[tuple[int, int]]:
    """(user id, message id) of these messages that the rule implies unless a row is
    written for them: the caller, who has read the written rows of these messages, drops
    those (cheaper than a primary-key probe per idle subscriber)."""
    message_ids = list(message_ids)
    if not message_ids or not await any_idle(conn):
        return []
    rows = await conn.fetchall(
        "SELECT i.user_id, m.id FROM message m"
        " JOIN stream st ON st.recipient_id = m.recipient_id"
        " JOIN subscription s ON s.stream_id = st.id AND s.active = 1"
        " JOIN idle_user i ON i.user_id = s.user_id AND m.id > i.complete_through"
        f" WHERE m.id IN ({_ids(message_ids)})"
        " AND NOT EXISTS (SELECT 1 FROM message_rows_complete c WHERE c.message_id = m.id)"
    )
    return [(int(r[0]), int(r[1])) for r in rows]


async def implied_for_user(conn: Conn, user_id: int, message_ids: Iterable[int]) -> list[int]:
    """Ids of these messages whose row is implied for the user."""
    message_ids = list(message_ids)
    if not message_ids or not await is_idle(conn, user_id):
        return []
    rows = await conn.fetchall(
        implied_rows_sql(f"i.user_id = ? AND m.id IN ({_ids(message_ids)})"), (user_id,)
    )
    return [int(r[1]) for r in rows]


async def mark_idle(tx: Tx, user_ids: Iterable[int]) -> int:
    """Make these active users idle from now on (those already idle stay as they are);
    return how many became idle."""
    user_ids = list(user_ids)
    if not user_ids:
        return 0  # the periodic check found nobody: no write (none to fail on a full disk)
    return await tx.execute_rowcount(
        f"INSERT INTO idle_user (user_id, complete_through) SELECT u.id, {_NEWEST}"
        f" FROM users u WHERE u.id IN ({_ids(user_ids)}) AND u.is_active = 1"
        " AND NOT EXISTS (SELECT 1 FROM idle_user i WHERE i.user_id = u.id)"
        " ON CONFLICT (user_id) DO NOTHING"  # another process marked them meanwhile
    )


async def catch_up(tx: Tx, user_ids: Iterable[int], joining: int | None = None) -> int:
    """Write out the implied rows of these users (those idle) and move their watermark to
    the newest message; they stay idle. Return how many rows were written. `joining`: the
    channel they are about to subscribe to (its messages in flight must fall below the
    watermark, not become theirs)."""
    user_ids = list(user_ids)
    if not user_ids or not await any_idle(tx):
        return 0
    await _hold_channels_of(tx, user_ids, joining)
    scope = f"i.user_id IN ({_ids(user_ids)})"
    written = await _write_out(tx, scope)
    await tx.execute(
        f"UPDATE idle_user SET complete_through = {_NEWEST} WHERE user_id IN ({_ids(user_ids)})"
    )
    return written


async def watermark(conn: Conn, user_id: int) -> int | None:
    """The user's watermark (None: not idle)."""
    row = await conn.fetchone(
        "SELECT complete_through FROM idle_user WHERE user_id = ?", (user_id,)
    )
    return None if row is None else int(row[0])


async def newest_message_id(conn: Conn) -> int:
    row = await conn.fetchone(f"SELECT {_NEWEST}")
    return int(row[0]) if row else 0


async def catch_up_through(tx: Tx, user_id: int, through: int) -> int:
    """Write out the idle user's implied rows of messages up to `through` and move their
    watermark there (one step of a long catch-up); return how many rows were written."""
    await _hold_channels_of(tx, [user_id])
    scope = "i.user_id = ? AND m.id <= ?"
    written = await _write_out(tx, scope, (user_id, through))
    await tx.execute(
        "UPDATE idle_user SET complete_through = ? WHERE user_id = ? AND complete_through < ?",
        (through, user_id, through),
    )
    return written


async def wake(tx: Tx, user_ids: Iterable[int]) -> int:
    """These users are back: write out their implied rows; they are idle no longer.
    Return how many rows were written."""
    user_ids = list(user_ids)
    written = await catch_up(tx, user_ids)
    if user_ids:
        await tx.execute(f"DELETE FROM idle_user WHERE user_id IN ({_ids(user_ids)})")
    return written


async def wake_all(tx: Tx) -> int:
    """Nobody is idle any more (every implied row written out)."""
    return await wake(tx, await idle_user_ids(tx))


async def freeze_messages(tx: Tx, message_ids: Iterable[int]) -> None:
    """Write out the implied rows of these messages and keep them from ever being implied
    again (before they move to another channel, or their rows are added or deleted)."""
    message_ids = list(message_ids)
    if not message_ids or not await any_idle(tx):
        return  # a user made idle later has a watermark past these messages
    scope = f"m.id IN ({_ids(message_ids)})"
    await _write_out(tx, scope)
    await tx.execute(
        "INSERT INTO message_rows_complete (message_id) SELECT m.id FROM message m"
        f" WHERE m.id IN ({_ids(message_ids)}) AND NOT EXISTS"
        " (SELECT 1 FROM message_rows_complete c WHERE c.message_id = m.id)"
    )


async def note_return(tx: Tx, user_id: int, now: int) -> None:
    """Remember when the user came back (see idle_candidates)."""
    await tx.execute(
        "INSERT INTO idle_user_return (user_id, returned_at) VALUES (?, ?)"
        " ON CONFLICT (user_id) DO UPDATE SET returned_at = excluded.returned_at",
        (user_id, now),
    )


async def idle_candidates(conn: Conn, before: int) -> list[int]:
    """Active people (not bots) who are not idle yet and showed no sign of activity since
    `before` (a Unix time): joined before it, their presence (active or connected) is older
    or absent, and they did not come back from being idle since."""
    rows = await conn.fetchall(
        "SELECT u.id FROM users u LEFT JOIN user_presence p ON p.user_id = u.id"
        " WHERE u.is_active = 1 AND u.is_bot = 0 AND u.date_joined < ?"
        " AND coalesce(p.last_active_time, 0) < ? AND coalesce(p.last_connected_time, 0) < ?"
        " AND NOT EXISTS (SELECT 1 FROM idle_user i WHERE i.user_id = u.id)"
        " AND NOT EXISTS (SELECT 1 FROM idle_user_return r WHERE r.user_id = u.id"
        "  AND r.returned_at >= ?) ORDER BY u.id",
        (before, before, before, before),
    )
    return [int(r[0]) for r in rows]

"""Queries on channels (the `stream` table), their recipients and daily traffic."""

from __future__ import annotations

from collections.abc import Iterable

from teamchat.lib import system_groups as sg
from teamchat.records import StreamRow, UserRow
from teamchat.store.db import Conn, Row, Tx

_COLUMNS = (
    "id, name, description, rendered_description, invite_only, is_web_public, "
    "history_public_to_subscribers, message_retention_days, topics_policy, date_created, "
    "creator_id, is_archived, first_message_id, folder_id, recipient_id, settings_json"
)
_BOOLS = ("invite_only", "is_web_public", "history_public_to_subscribers", "is_archived")
# Columns `update_stream` may change.
UPDATABLE = frozenset(
    {
        "name",
        "description",
        "rendered_description",
        "invite_only",
        "is_web_public",
        "history_public_to_subscribers",
        "message_retention_days",
        "topics_policy",
        "is_archived",
        "first_message_id",
        "folder_id",
        "settings_json",
    }
)


def _row(row: Row) -> StreamRow:
    data = dict(row)
    for name in _BOOLS:
        data[name] = bool(data[name])
    return StreamRow(**data)


def _ids(values: Iterable[int]) -> str:
    return ",".join(str(int(v)) for v in values) or "NULL"


async def get_stream_by_id(conn: Conn, stream_id: int) -> StreamRow | None:
    """The channel with this id, or None."""
    if conn.memoizes:
        return (await conn.memo("stream", "stream:by_id", _read_streams_by_id)).get(stream_id)
    row = await conn.fetchone(f"SELECT {_COLUMNS} FROM stream WHERE id = ?", (stream_id,))
    return _row(row) if row else None


async def get_stream_by_name(conn: Conn, name: str) -> StreamRow | None:
    """The channel named `name`, compared case-insensitively."""
    row = await conn.fetchone(f"SELECT {_COLUMNS} FROM stream WHERE name = ?", (name,))
    return _row(row) if row else None


async def list_streams(
    conn: Conn, *, stream_ids: Iterable[int] | None = None, include_archived: bool = True
) -> list[StreamRow]:
    """Channels ordered by id, optionally only `stream_ids` and/or only active ones."""
    if stream_ids is None and conn.memoizes:
        streams = await conn.memo("stream", "stream:all", _read_all_streams)
        return [s for s in streams if include_archived or not s.is_archived]
    clauses = []
    if stream_ids is not None:
        clauses.append(f"id IN ({_ids(stream_ids)})")
    if not include_archived:
        clauses.append("is_archived = 0")
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    rows = await conn.fetchall(f"SELECT {_COLUMNS} FROM stream {where} ORDER BY id")
    return [_row(row) for row in rows]


async def _read_all_streams(conn: Conn) -> tuple[StreamRow, ...]:
    rows = await conn.fetchall(f"SELECT {_COLUMNS} FROM stream ORDER BY id")
    return tuple(_row(row) for row in rows)


async def _read_streams_by_id(conn: Conn) -> dict[int, StreamRow]:
    return {stream.id: stream for stream in await list_streams(conn)}


async def stream_names(conn: Conn, stream_ids: Iterable[int]) -> dict[int, str]:
    """Channel id -> name, for these channels (what a page of messages shows)."""
    rows = await conn.fetchall(f"SELECT id, name FROM stream WHERE id IN ({_ids(stream_ids)})")
    return {int(r[0]): str(r[1]) for r in rows}


async def insert_stream(
    tx: Tx,
    *,
    name: str,
    description: str,
    rendered_description: str,
    invite_only: bool,
    is_web_public: bool,
    history_public_to_subscribers: bool,
    message_retention_days: int | None,
    topics_policy: str,
    date_created: int,
    creator_id: int | None,
    settings_json: str,
) -> int:
    """Insert a channel and its recipient; return the channel id."""
    stream_id = await tx.execute(
        "INSERT INTO stream (name, description, rendered_description, invite_only,"
        " is_web_public, history_public_to_subscribers, message_retention_days, topics_policy,"
        " date_created, creator_id, settings_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            name,
            description,
            rendered_description,
            int(invite_only),
            int(is_web_public),
            int(history_public_to_subscribers),
            message_retention_days,
            topics_policy,
            date_created,
            creator_id,
            settings_json,
        ),
    )
    recipient_id = await tx.execute("INSERT INTO recipient (stream_id) VALUES (?)", (stream_id,))
    await tx.execute("UPDATE stream SET recipient_id = ? WHERE id = ?", (recipient_id, stream_id))
    return stream_id


async def update_stream(tx: Tx, stream_id: int, **fields: object) -> None:
    """Set the given columns of one channel."""
    assert fields and set(fields) <= UPDATABLE, fields
    assignments = ", ".join(f"{name} = ?" for name in fields)
    values = tuple(int(v) if isinstance(v, bool) else v for v in fields.values())
    await tx.execute(f"UPDATE stream SET {assignments} WHERE id = ?", (*values, stream_id))


async def daily_traffic(
    conn: Conn, stream_ids: Iterable[int], since_day: int
) -> dict[int, dict[int, int]]:
    """stream id -> {UTC day: messages} for days >= since_day (plus each channel's last day)."""
    rows = await conn.fetchall(
        "SELECT stream_id, day, messages FROM stream_traffic"
        f" WHERE stream_id IN ({_ids(stream_ids)})"
        " AND (day >= ? OR day = (SELECT max(day) FROM stream_traffic t"
        " WHERE t.stream_id = stream_traffic.stream_id))",
        (since_day,),
    )
    result: dict[int, dict[int, int]] = {}
    for stream_id, day, messages in rows:
        result.setdefault(int(stream_id), {})[int(day)] = int(messages)
    return result


async def add_traffic(tx: Tx, stream_id: int, day: int, messages: int = 1) -> int:
    """Count `messages` more messages for the channel on UTC day `day`; return the day's
    count now (`messages`: the day had none before)."""
    row = await tx.fetchone(
        "INSERT INTO stream_traffic (stream_id, day, messages) VALUES (?, ?, ?)"
        " ON CONFLICT (stream_id, day)"
        " DO UPDATE SET messages = stream_traffic.messages + excluded.messages"
        " RETURNING messages",
        (stream_id, day, messages),
    )
    assert row is not None
    return int(row[0])


async def last_traffic_day(
    conn: Conn, stream_id: int, *, other_than: int | None = None
) -> int | None:
    """The last UTC day the channel got a message (leaving out day `other_than`), or None."""
    row = await conn.fetchone(
        "SELECT max(day) FROM stream_traffic WHERE stream_id = ? AND day IS NOT ?",
        (stream_id, other_than),
    )
    return int(row[0]) if row and row[0] is not None else None


async def user_group_ids(conn: Conn, user: UserRow) -> frozenset[int]:
    """Every group `user` belongs to, directly, by role, or through subgroups."""
    if not user.is_active:
        return frozenset()
    if conn.memoizes:
        index = await conn.memo(_GROUP_TABLES, "user_group:membership", _read_membership)
        return index.groups_of(user.id, sg.direct_group_for_role(user.role))
    role_groups = sg.direct_group_for_role(user.role)
    placeholders = ",".join("?" * len(role_groups)) or "NULL"
    rows = await conn.fetchall(
        "WITH RECURSIVE mine(id) AS ("
        f" SELECT id FROM user_group WHERE is_system_group = 1 AND name IN ({placeholders})"
        " UNION SELECT m.group_id FROM user_group_member m JOIN user_group g ON g.id = m.group_id"
        "  WHERE m.user_id = ? AND g.deactivated = 0"
        " UNION SELECT s.group_id FROM user_group_subgroup s JOIN mine ON s.subgroup_id = mine.id"
        ") SELECT id FROM mine",
        (*role_groups, user.id),
    )
    return frozenset(int(row[0]) for row in rows)


_GROUP_TABLES = ("user_group", "user_group_member", "user_group_subgroup")


class _Membership:
    """Who is in which group, as `user_group_ids`'s query reads it, for the whole
    organization: kept while the group tables stand, so a send's permission check costs a
    few set unions instead of a recursive query."""

    def __init__(
        self,
        system_ids: dict[str, int],
        direct: dict[int, list[int]],
        parents: dict[int, list[int]],
    ) -> None:
        self._system_ids = system_ids
        self._direct = {user_id: tuple(ids) for user_id, ids in direct.items()}
        # group id -> the group and every group it is a subgroup of, transitively.
        self._up: dict[int, frozenset[int]] = {}
        for start in {*system_ids.values(), *(g for ids in direct.values() for g in ids)}:
            seen, todo = {start}, [start]
            while todo:
                for parent in parents.get(todo.pop(), ()):
                    if parent not in seen:
                        seen.add(parent)
                        todo.append(parent)
            self._up[start] = frozenset(seen)

    def groups_of(self, user_id: int, role_groups: list[str]) -> frozenset[int]:
        seeds = [self._system_ids[name] for name in role_groups if name in self._system_ids]
        seeds += self._direct.get(user_id, ())
        found: set[int] = set()
        for group_id in seeds:
            found |= self._up[group_id]
        return frozenset(found)


async def _read_membership(conn: Conn) -> _Membership:
    system_ids = {
        str(row[1]): int(row[0])
        for row in await conn.fetchall_tuples(
            "SELECT id, name FROM user_group WHERE is_system_group = 1"
        )
    }
    direct: dict[int, list[int]] = {}
    for user_id, group_id in await conn.fetchall_tuples(
        "SELECT m.user_id, m.group_id FROM user_group_member m"
        " JOIN user_group g ON g.id = m.group_id WHERE g.deactivated = 0"
    ):
        direct.setdefault(int(user_id), []).append(int(group_id))
    parents: dict[int, list[int]] = {}
    for group_id, subgroup_id in await conn.fetchall_tuples(
        "SELECT group_id, subgroup_id FROM user_group_subgroup"
    ):
        parents.setdefault(int(subgroup_id), []).append(int(group_id))
    return _Membership(system_ids, direct, parents)


async def system_group_names(conn: Conn) -> dict[int, str]:
    """System group id -> name."""
    return dict(await conn.memo("user_group", "user_group:system_names", _read_system_names))


async def _read_system_names(conn: Conn) -> dict[int, str]:
    rows = await conn.fetchall("SELECT id, name FROM user_group WHERE is_system_group = 1")
    return {int(row[0]): str(row[1]) for row in rows}


async def user_group_exists(conn: Conn, group_id: int) -> bool:
    """Whether a user group with this id exists."""
    row = await conn.fetchone("SELECT 1 FROM user_group WHERE id = ?", (group_id,))
    return row is not None

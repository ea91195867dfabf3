"""Queries on user group rows, stored members (named groups) and subgroup edges."""

from __future__ import annotations

from teamchat.records import UserGroupRow
from teamchat.store import users as users_store
from teamchat.store.db import Conn, Row, Tx

_COLUMNS = (
    "id, name, description, is_system_group, deactivated, date_created, creator_id, settings_json"
)


def _row(row: Row) -> UserGroupRow:
    data = dict(row)
    data["is_system_group"] = bool(data["is_system_group"])
    data["deactivated"] = bool(data["deactivated"])
    return UserGroupRow(**data)


async def get_group(conn: Conn, group_id: int) -> UserGroupRow | None:
    """A group (system or named) by id, or None."""
    row = await conn.fetchone(f"SELECT {_COLUMNS} FROM user_group WHERE id = ?", (group_id,))
    return _row(row) if row else None


async def get_group_by_name(conn: Conn, name: str) -> UserGroupRow | None:
    """A group by its exact name, or None."""
    row = await conn.fetchone(f"SELECT {_COLUMNS} FROM user_group WHERE name = ?", (name,))
    return _row(row) if row else None


async def list_groups(
    conn: Conn, *, include_deactivated: bool = True, group_ids: list[int] | None = None
) -> list[UserGroupRow]:
    """Groups (system and named) ordered by id."""
    if group_ids is None and conn.memoizes:
        groups = await conn.memo("user_group", "user_group:all", _read_all_groups)
        return [g for g in groups if include_deactivated or not g.deactivated]
    clauses, params = [], []
    if not include_deactivated:
        clauses.append("deactivated = 0")
    if group_ids is not None:
        clauses.append(f"id IN ({','.join('?' * len(group_ids))})")
        params.extend(group_ids)
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM user_group {where} ORDER BY id", tuple(params)
    )
    return [_row(row) for row in rows]


async def _read_all_groups(conn: Conn) -> tuple[UserGroupRow, ...]:
    rows = await conn.fetchall(f"SELECT {_COLUMNS} FROM user_group ORDER BY id")
    return tuple(_row(row) for row in rows)


async def groups_by_name(conn: Conn) -> dict[str, int]:
    """Name -> id of every group that is not deactivated (for @*group* mentions)."""
    rows = await conn.fetchall("SELECT name, id FROM user_group WHERE deactivated = 0")
    return {str(row[0]): int(row[1]) for row in rows}


async def stored_members(conn: Conn) -> dict[int, list[int]]:
    """Named group id -> its direct members that are active users, sorted."""
    tables = ("users", "user_group_member")
    members = await conn.memo(tables, "user_group:members", _read_stored_members)
    return {group_id: list(user_ids) for group_id, user_ids in members.items()}


async def _read_stored_members(conn: Conn) -> dict[int, tuple[int, ...]]:
    raw = await conn.memo("user_group_member", "user_group:raw_members", _read_raw_members)
    active = set(await users_store.list_active_user_ids(conn))
    result = {}
    for group_id, user_ids in raw.items():
        kept = tuple(uid for uid in user_ids if uid in active)
        if kept:
            result[group_id] = kept
    return result


async def _read_raw_members(conn: Conn) -> dict[int, tuple[int, ...]]:
    """Group id -> sorted ids of its stored members (active users or not)."""
    rows = await conn.fetchall(
        "SELECT group_id, group_concat(user_id) FROM user_group_member GROUP BY group_id"
    )
    return {int(row[0]): tuple(sorted(map(int, str(row[1]).split(",")))) for row in rows}


async def direct_member_ids(conn: Conn, group_id: int, *, active_only: bool = True) -> list[int]:
    """The stored direct members of named group `group_id`."""
    active = " AND u.is_active = 1" if active_only else ""
    rows = await conn.fetchall(
        "SELECT m.user_id FROM user_group_member m JOIN users u ON u.id = m.user_id"
        f" WHERE m.group_id = ?{active} ORDER BY m.user_id",
        (group_id,),
    )
    return [int(row[0]) for row in rows]


async def subgroup_edges(conn: Conn) -> dict[int, list[int]]:
    """Group id -> its direct subgroup ids, sorted."""
    edges = await conn.memo("user_group_subgroup", "user_group:subgroups", _read_subgroup_edges)
    return {group_id: list(subgroup_ids) for group_id, subgroup_ids in edges.items()}


async def _read_subgroup_edges(conn: Conn) -> dict[int, tuple[int, ...]]:
    rows = await conn.fetchall(
        "SELECT group_id, subgroup_id FROM user_group_subgroup ORDER BY group_id, subgroup_id"
    )
    result: dict[int, list[int]] = {}
    for group_id, subgroup_id in rows:
        result.setdefault(int(group_id), []).append(int(subgroup_id))
    return {group_id: tuple(subgroup_ids) for group_id, subgroup_ids in result.items()}


async def recursive_subgroup_ids(conn: Conn, group_ids: list[int]) -> set[int]:
    """`group_ids` and every group reachable below them through subgroup edges."""
    if not group_ids:
        return set()
    rows = await conn.fetchall(
        "WITH RECURSIVE reach(id) AS (SELECT value FROM json_each(?) UNION"
        " SELECT s.subgroup_id FROM user_group_subgroup s JOIN reach ON s.group_id = reach.id)"
        " SELECT id FROM reach",
        ("[" + ",".join(str(int(i)) for i in group_ids) + "]",),
    )
    return {int(row[0]) for row in rows}


async def insert_named_group(
    tx: Tx,
    *,
    name: str,
    description: str,
    date_created: int,
    creator_id: int,
    settings_json: str,
) -> int:
    """Add a named group; return its id (a duplicate name raises IntegrityError)."""
    return await tx.execute(
        "INSERT INTO user_group (name, description, is_system_group, date_created, creator_id,"
        " settings_json) VALUES (?, ?, 0, ?, ?, ?)",
        (name, description, date_created, creator_id, settings_json),
    )


async def update_group(tx: Tx, group_id: int, **fields: object) -> None:
    """Set columns name, description, deactivated or settings_json of one group."""
    allowed = {"name", "description", "deactivated", "settings_json"}
    assert fields and set(fields) <= allowed, fields
    assignments = ", ".join(f"{name} = ?" for name in fields)
    await tx.execute(
        f"UPDATE user_group SET {assignments} WHERE id = ?", (*fields.values(), group_id)
    )


async def insert_members(tx: Tx, group_id: int, user_ids: list[int]) -> None:
    """Add stored members (already present ones are left alone)."""
    await tx.executemany(
        "INSERT OR IGNORE INTO user_group_member (group_id, user_id) VALUES (?, ?)",
        [(group_id, user_id) for user_id in user_ids],
    )


async def delete_members(tx: Tx, group_id: int, user_ids: list[int]) -> None:
    """Remove stored members."""
    await tx.executemany(
        "DELETE FROM user_group_member WHERE group_id = ? AND user_id = ?",
        [(group_id, user_id) for user_id in user_ids],
    )


async def delete_subgroups(tx: Tx, group_id: int, subgroup_ids: list[int]) -> None:
    """Remove direct subgroup edges."""
    await tx.executemany(
        "DELETE FROM user_group_subgroup WHERE group_id = ? AND subgroup_id = ?",
        [(group_id, subgroup_id) for subgroup_id in subgroup_ids],
    )


async def supergroup_ids(conn: Conn, group_id: int) -> list[int]:
    """Active named groups that hold `group_id` as a direct subgroup."""
    rows = await conn.fetchall(
        "SELECT s.group_id FROM user_group_subgroup s JOIN user_group g ON g.id = s.group_id"
        " WHERE s.subgroup_id = ? AND g.deactivated = 0 ORDER BY s.group_id",
        (group_id,),
    )
    return [int(row[0]) for row in rows]

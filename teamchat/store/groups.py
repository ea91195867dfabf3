"""Queries on user groups: system groups (members derived from roles) and named groups.

Membership checks live here; listing and editing named groups is in `store.user_groups`.
"""

from __future__ import annotations

import time

from teamchat.lib import system_groups as sg
from teamchat.lib.realm_settings import GroupSettingValue
from teamchat.records import UserRow
from teamchat.store.db import Conn, Tx
from teamchat.store.streams import system_group_names

_REACHABLE = """
WITH RECURSIVE reach(id) AS (
    SELECT value FROM json_each(?)
    UNION
    SELECT s.subgroup_id FROM user_group_subgroup s JOIN reach ON s.group_id = reach.id
)
"""


async def insert_group(
    tx: Tx,
    *,
    name: str,
    description: str,
    is_system_group: bool,
    date_created: int,
    creator_id: int | None = None,
    settings_json: str = "{}",
) -> int:
    return await tx.execute(
        "INSERT INTO user_group (name, description, is_system_group, date_created, creator_id,"
        " settings_json) VALUES (?, ?, ?, ?, ?, ?)",
        (name, description, int(is_system_group), date_created, creator_id, settings_json),
    )


async def insert_subgroups(tx: Tx, group_id: int, subgroup_ids: list[int]) -> None:
    await tx.executemany(
        "INSERT OR IGNORE INTO user_group_subgroup (group_id, subgroup_id) VALUES (?, ?)",
        [(group_id, subgroup_id) for subgroup_id in subgroup_ids],
    )


async def system_group_ids(conn: Conn) -> dict[str, int]:
    """System group name -> id."""
    return {name: group_id for group_id, name in (await system_group_names(conn)).items()}


async def waiting_period_days(conn: Conn) -> int:
    """The realm's `waiting_period_threshold` (days before a member is a full member)."""
    row = await conn.fetchone(
        "SELECT coalesce(json_extract(settings_json, '$.waiting_period_threshold'), 0)"
        " FROM realm ORDER BY id LIMIT 1"
    )
    return int(row[0]) if row else 0


async def is_user_in_groups(
    conn: Conn, user: UserRow, group_ids: list[int], *, now: int | None = None
) -> bool:
    """Whether active `user` belongs to any of `group_ids`, directly or through subgroups.

    `now` (epoch seconds, default: the wall clock) decides `role:fullmembers` membership.
    """
    if not user.is_active or not group_ids:
        return False
    full = sg.is_full_member(
        user.role,
        user.date_joined,
        int(time.time()) if now is None else now,
        await waiting_period_days(conn),
    )
    role_groups = sg.direct_group_for_role(user.role, is_full_member=full)
    placeholders = ",".join("?" * len(role_groups)) or "NULL"
    row = await conn.fetchone(
        _REACHABLE + "SELECT EXISTS (SELECT 1 FROM reach JOIN user_group g ON g.id = reach.id WHERE"
        " (g.is_system_group = 1 AND g.name IN (" + placeholders + "))"
        " OR (g.is_system_group = 0 AND g.deactivated = 0 AND EXISTS ("
        "   SELECT 1 FROM user_group_member m WHERE m.group_id = g.id AND m.user_id = ?)))",
        (_json_ids(group_ids), *role_groups, user.id),
    )
    return bool(row and row[0])


async def is_user_in_setting(
    conn: Conn, user: UserRow, value: GroupSettingValue, *, now: int | None = None
) -> bool:
    """Whether `user` satisfies a group-valued setting (a group id or an anonymous group)."""
    if isinstance(value, int):
        return await is_user_in_groups(conn, user, [value], now=now)
    if user.is_active and user.id in value.get("direct_members", []):
        return True
    return await is_user_in_groups(conn, user, list(value.get("direct_subgroups", [])), now=now)


def _json_ids(ids: list[int]) -> str:
    return "[" + ",".join(str(int(i)) for i in ids) + "]"

"""Queries that sending and editing messages need from other areas' tables: group members
(for group mentions), alert words, muted users; and small existence checks."""

from __future__ import annotations

from collections.abc import Iterable

from teamchat.lib import system_groups as sg
from teamchat.store.db import Conn

_REACH = (
    "WITH RECURSIVE reach(id) AS (SELECT value FROM json_each(?) UNION"
    " SELECT s.subgroup_id FROM user_group_subgroup s JOIN reach ON s.group_id = reach.id)"
)


def _json_ids(ids: Iterable[int]) -> str:
    return "[" + ",".join(str(int(i)) for i in ids) + "]"


async def group_member_ids(conn: Conn, group_ids: Iterable[int]) -> set[int]:
    """Active members of the groups and their subgroups (system groups: by role)."""
    group_ids = list(group_ids)
    if not group_ids:
        return set()
    rows = await conn.fetchall(
        _REACH + " SELECT DISTINCT m.user_id FROM user_group_member m JOIN reach"
        " ON reach.id = m.group_id JOIN users u ON u.id = m.user_id WHERE u.is_active = 1",
        (_json_ids(group_ids),),
    )
    members = {int(r[0]) for r in rows}
    systems = await conn.fetchall(
        _REACH + " SELECT g.name FROM user_group g JOIN reach ON reach.id = g.id"
        " WHERE g.is_system_group = 1",
        (_json_ids(group_ids),),
    )
    roles = {int(role) for r in systems for role in sg.roles_in(str(r[0]))}
    if roles:
        placeholders = ",".join("?" * len(roles))
        users = await conn.fetchall(
            f"SELECT id FROM users WHERE is_active = 1 AND role IN ({placeholders})",
            tuple(sorted(roles)),
        )
        members |= {int(r[0]) for r in users}
    return members


async def alert_words(conn: Conn) -> dict[int, list[str]]:
    """user id -> the alert words of every active user who set some."""
    every = await conn.memo(("alert_word", "users"), "alert_word:all", _read_alert_words)
    return {user_id: list(words) for user_id, words in every.items()}


async def _read_alert_words(conn: Conn) -> dict[int, tuple[str, ...]]:
    rows = await conn.fetchall(
        "SELECT a.user_id, a.word FROM alert_word a JOIN users u ON u.id = a.user_id"
        " WHERE u.is_active = 1 ORDER BY a.user_id, a.word"
    )
    result: dict[int, list[str]] = {}
    for user_id, word in rows:
        result.setdefault(int(user_id), []).append(str(word))
    return {user_id: tuple(words) for user_id, words in result.items()}


async def muting_user_ids(conn: Conn, sender_id: int) -> set[int]:
    """Users who muted `sender_id`."""
    rows = await conn.fetchall(
        "SELECT user_id FROM muted_user WHERE muted_user_id = ?", (sender_id,)
    )
    return {int(r[0]) for r in rows}


async def conversation_has_messages(conn: Conn, recipient_id: int) -> bool:
    """Whether any message was sent to this recipient."""
    row = await conn.fetchone(
        "SELECT 1 FROM message WHERE recipient_id = ? LIMIT 1", (recipient_id,)
    )
    return row is not None


async def topic_has_earlier_messages(
    conn: Conn, recipient_id: int, topic: str, before_id: int, *, visible_to: int | None
) -> bool:
    """Whether the topic has messages before `before_id` (only ones `visible_to` received)."""
    if visible_to is None:
        row = await conn.fetchone(
            "SELECT 1 FROM message WHERE recipient_id = ? AND topic = ? AND id < ? LIMIT 1",
            (recipient_id, topic, before_id),
        )
    else:
        row = await conn.fetchone(
            "SELECT 1 FROM message m JOIN user_message um ON um.message_id = m.id"
            " AND um.user_id = ? WHERE m.recipient_id = ? AND m.topic = ? AND m.id < ? LIMIT 1",
            (visible_to, recipient_id, topic, before_id),
        )
    return row is not None


async def group_mention_setting(conn: Conn, group_id: int) -> tuple[str, str | None] | None:
    """(group name, stored can_mention_group JSON or None) of a group."""
    row = await conn.fetchone(
        "SELECT name, json_extract(settings_json, '$.can_mention_group') FROM user_group"
        " WHERE id = ?",
        (group_id,),
    )
    if row is None:
        return None
    return str(row[0]), None if row[1] is None else str(row[1])

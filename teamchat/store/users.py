"""Queries on the users table (people and bots)."""

from __future__ import annotations

from typing import Any

from teamchat.records import EmailVisibility, Role, UserRow
from teamchat.store import idle_users
from teamchat.store.db import Conn, Row, Tx

_COLUMNS = (
    "id, delivery_email, full_name, api_key, password_hash, role, is_active, is_bot, bot_type, "
    "bot_owner_id, date_joined, timezone, avatar_source, avatar_version, "
    "email_address_visibility, settings_json"
)


# From this many ids on, a read snapshot filters everyone (read once per change of users).
_MANY_USERS = 200
# Enum lookups by value, without Enum.__call__ (every message page converts its senders).
_ROLES = {int(role): role for role in Role}
_VISIBILITIES = {int(v): v for v in EmailVisibility}


def _row(row: Row | tuple[Any, ...]) -> UserRow:
    """A UserRow from a row selected with _COLUMNS (by position)."""
    return UserRow(
        id=row[0],
        delivery_email=row[1],
        full_name=row[2],
        api_key=row[3],
        password_hash=row[4],
        role=_ROLES.get(row[5]) or Role(row[5]),
        is_active=bool(row[6]),
        is_bot=bool(row[7]),
        bot_type=row[8],
        bot_owner_id=row[9],
        date_joined=row[10],
        timezone=row[11],
        avatar_source=row[12],
        avatar_version=row[13],
        email_address_visibility=_VISIBILITIES.get(row[14]) or EmailVisibility(row[14]),
        settings_json=row[15],
    )


async def get_user_by_id(conn: Conn, user_id: int) -> UserRow | None:
    row = await conn.fetchone(f"SELECT {_COLUMNS} FROM users WHERE id = ?", (user_id,))
    return _row(row) if row else None


async def get_user_by_delivery_email(conn: Conn, email: str) -> UserRow | None:
    row = await conn.fetchone(
        f"SELECT {_COLUMNS} FROM users WHERE delivery_email = ? COLLATE NOCASE", (email,)
    )
    return _row(row) if row else None


async def get_user_by_api_key(conn: Conn, api_key: str) -> UserRow | None:
    row = await conn.fetchone(f"SELECT {_COLUMNS} FROM users WHERE api_key = ?", (api_key,))
    return _row(row) if row else None


async def list_users(
    conn: Conn, *, user_ids: list[int] | None = None, is_active: bool | None = None
) -> list[UserRow]:
    """Users ordered by id, optionally only `user_ids` and/or only (in)active ones."""
    if conn.memoizes and (user_ids is None or len(user_ids) > _MANY_USERS):
        everyone = await conn.memo("users", "users:all", _read_all_users)
        wanted = None if user_ids is None else set(user_ids)
        return [
            u
            for u in everyone
            if (is_active is None or u.is_active == is_active)
            and (wanted is None or u.id in wanted)
        ]
    clauses, params = [], []
    if user_ids is not None:
        clauses.append(f"id IN ({','.join('?' * len(user_ids))})")
        params.extend(user_ids)
    if is_active is not None:
        clauses.append("is_active = ?")
        params.append(int(is_active))
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    rows = await conn.fetchall(f"SELECT {_COLUMNS} FROM users {where} ORDER BY id", tuple(params))
    return [_row(row) for row in rows]


async def _read_all_users(conn: Conn) -> tuple[UserRow, ...]:
    rows = await conn.fetchall_tuples(f"SELECT {_COLUMNS} FROM users ORDER BY id")
    return tuple(_row(row) for row in rows)


async def list_active_user_ids(conn: Conn) -> list[int]:
    if conn.memoizes:
        return list(await conn.memo("users", "users:active_ids", _active_ids_of_everyone))
    return list(await _read_active_user_ids(conn))


async def _active_ids_of_everyone(conn: Conn) -> tuple[int, ...]:
    everyone = await conn.memo("users", "users:all", _read_all_users)
    return tuple(u.id for u in everyone if u.is_active)


async def _read_active_user_ids(conn: Conn) -> tuple[int, ...]:
    rows = await conn.fetchall("SELECT id FROM users WHERE is_active = 1 ORDER BY id")
    return tuple(int(row[0]) for row in rows)


async def count_owners(conn: Conn) -> int:
    row = await conn.fetchone(
        "SELECT count(*) FROM users WHERE role = ? AND is_active = 1 AND is_bot = 0",
        (int(Role.OWNER),),
    )
    return int(row[0]) if row else 0


async def insert(
    tx: Tx,
    *,
    delivery_email: str,
    full_name: str,
    api_key: str,
    password_hash: str | None,
    role: Role,
    date_joined: int,
    is_bot: bool = False,
    bot_type: int | None = None,
    bot_owner_id: int | None = None,
    timezone: str = "",
    email_address_visibility: EmailVisibility = EmailVisibility.EVERYONE,
    settings_json: str = "{}",
) -> int:
    return await tx.execute(
        "INSERT INTO users (delivery_email, full_name, api_key, password_hash, role, date_joined,"
        " is_bot, bot_type, bot_owner_id, timezone, email_address_visibility, settings_json)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            delivery_email,
            full_name,
            api_key,
            password_hash,
            int(role),
            date_joined,
            int(is_bot),
            bot_type,
            bot_owner_id,
            timezone,
            int(email_address_visibility),
            settings_json,
        ),
    )


async def update_password_hash(tx: Tx, user_id: int, password_hash: str) -> None:
    await tx.execute("UPDATE users SET password_hash = ? WHERE id = ?", (password_hash, user_id))


async def update_api_key(tx: Tx, user_id: int, api_key: str) -> None:
    await tx.execute("UPDATE users SET api_key = ? WHERE id = ?", (api_key, user_id))


async def update_full_name(tx: Tx, user_id: int, full_name: str) -> None:
    """Rename a user."""
    await tx.execute("UPDATE users SET full_name = ? WHERE id = ?", (full_name, user_id))


async def update_role(tx: Tx, user_id: int, role: Role) -> None:
    """Change a user's role."""
    await tx.execute("UPDATE users SET role = ? WHERE id = ?", (int(role), user_id))


async def update_is_active(tx: Tx, user_ids: list[int], is_active: bool) -> None:
    """Deactivate or reactivate users (neither is idle afterwards: see store.idle_users)."""
    await idle_users.wake(tx, user_ids)
    await tx.executemany(
        "UPDATE users SET is_active = ? WHERE id = ?",
        [(int(is_active), user_id) for user_id in user_ids],
    )


async def update_delivery_email(tx: Tx, user_id: int, email: str) -> None:
    """Change the real email; raises IntegrityError when another user has it."""
    await tx.execute("UPDATE users SET delivery_email = ? WHERE id = ?", (email, user_id))


async def update_timezone(tx: Tx, user_id: int, timezone: str) -> None:
    """Set a user's IANA time zone (empty for none)."""
    await tx.execute("UPDATE users SET timezone = ? WHERE id = ?", (timezone, user_id))


async def update_settings(
    tx: Tx, user_id: int, settings_json: str, email_address_visibility: EmailVisibility
) -> None:
    """Store a user's settings JSON and its email_address_visibility column together."""
    await tx.execute(
        "UPDATE users SET settings_json = ?, email_address_visibility = ? WHERE id = ?",
        (settings_json, int(email_address_visibility), user_id),
    )


async def update_bot_owner(tx: Tx, bot_id: int, owner_id: int) -> None:
    """Give a bot a new owner."""
    await tx.execute("UPDATE users SET bot_owner_id = ? WHERE id = ?", (owner_id, bot_id))


async def list_bots(conn: Conn, *, owner_id: int | None = None) -> list[UserRow]:
    """Every bot (active or not), or only those owned by `owner_id`, ordered by id."""
    if owner_id is None:
        rows = await conn.fetchall(f"SELECT {_COLUMNS} FROM users WHERE is_bot = 1 ORDER BY id")
    else:
        rows = await conn.fetchall(
            f"SELECT {_COLUMNS} FROM users WHERE is_bot = 1 AND bot_owner_id = ? ORDER BY id",
            (owner_id,),
        )
    return [_row(row) for row in rows]


async def count_active_users(conn: Conn) -> int:
    """How many users (people and bots) are active."""
    row = await conn.fetchone("SELECT count(*) FROM users WHERE is_active = 1")
    return int(row[0]) if row else 0


async def delete_group_memberships(tx: Tx, user_ids: list[int]) -> None:
    """Remove users from every named user group (deactivation)."""
    await tx.executemany(
        "DELETE FROM user_group_member WHERE user_id = ?", [(user_id,) for user_id in user_ids]
    )


async def update_avatar_source(tx: Tx, user_id: int, avatar_source: str) -> None:
    """Set the avatar source and bump the version that busts client caches."""
    await tx.execute(
        "UPDATE users SET avatar_source = ?, avatar_version = avatar_version + 1 WHERE id = ?",
        (avatar_source, user_id),
    )


async def get_can_create_users(conn: Conn, user_id: int) -> bool:
    """Whether the server operator let this user create accounts through POST /users."""
    row = await conn.fetchone("SELECT can_create_users FROM users WHERE id = ?", (user_id,))
    return bool(row and row[0])


async def update_can_create_users(tx: Tx, user_id: int, allowed: bool) -> None:
    """Grant or revoke the can_create_users permission."""
    await tx.execute("UPDATE users SET can_create_users = ? WHERE id = ?", (int(allowed), user_id))

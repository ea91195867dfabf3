"""Queries on custom profile fields (the realm's definitions) and users' values for them."""

from __future__ import annotations

from teamchat.records import CustomProfileFieldRow, ProfileValueRow
from teamchat.store.db import Conn, Row, Tx

_COLUMNS = (
    "id, name, hint, field_type, field_data, sort_order, display_in_profile_summary, required,"
    " editable_by_user, use_for_user_matching"
)
_BOOLS = ("display_in_profile_summary", "required", "editable_by_user", "use_for_user_matching")


def _field(row: Row) -> CustomProfileFieldRow:
    data = dict(row)
    data["order"] = data.pop("sort_order")
    for name in _BOOLS:
        data[name] = bool(data[name])
    return CustomProfileFieldRow(**data)


async def list_fields(conn: Conn) -> list[CustomProfileFieldRow]:
    """Every field in display order."""
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM custom_profile_field ORDER BY sort_order, id"
    )
    return [_field(row) for row in rows]


async def get_field(conn: Conn, field_id: int) -> CustomProfileFieldRow | None:
    """One field, or None."""
    row = await conn.fetchone(
        f"SELECT {_COLUMNS} FROM custom_profile_field WHERE id = ?", (field_id,)
    )
    return _field(row) if row else None


async def count_in_profile_summary(conn: Conn, *, excluding: int | None = None) -> int:
    """How many fields show in the profile summary (optionally not counting one)."""
    row = await conn.fetchone(
        "SELECT count(*) FROM custom_profile_field WHERE display_in_profile_summary = 1"
        " AND id IS NOT ?",
        (excluding,),
    )
    return int(row[0]) if row else 0


async def insert_field(
    tx: Tx,
    *,
    name: str,
    hint: str,
    field_type: int,
    field_data: str,
    display_in_profile_summary: bool,
    required: bool,
    editable_by_user: bool,
    use_for_user_matching: bool,
) -> int:
    """Add a field at the end of the order (its order is its id, as in Zulip)."""
    field_id = await tx.execute(
        "INSERT INTO custom_profile_field (name, hint, field_type, field_data,"
        " display_in_profile_summary, required, editable_by_user, use_for_user_matching)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            name,
            hint,
            field_type,
            field_data,
            int(display_in_profile_summary),
            int(required),
            int(editable_by_user),
            int(use_for_user_matching),
        ),
    )
    await tx.execute(
        "UPDATE custom_profile_field SET sort_order = ? WHERE id = ?", (field_id, field_id)
    )
    return field_id


async def update_field(tx: Tx, field: CustomProfileFieldRow) -> None:
    """Store every attribute of `field` (raises IntegrityError on a duplicate name)."""
    await tx.execute(
        "UPDATE custom_profile_field SET name = ?, hint = ?, field_data = ?,"
        " display_in_profile_summary = ?, required = ?, editable_by_user = ?,"
        " use_for_user_matching = ? WHERE id = ?",
        (
            field.name,
            field.hint,
            field.field_data,
            int(field.display_in_profile_summary),
            int(field.required),
            int(field.editable_by_user),
            int(field.use_for_user_matching),
            field.id,
        ),
    )


async def set_order(tx: Tx, field_ids: list[int]) -> None:
    """Give the fields the order of `field_ids`."""
    await tx.executemany(
        "UPDATE custom_profile_field SET sort_order = ? WHERE id = ?",
        [(index, field_id) for index, field_id in enumerate(field_ids)],
    )


async def delete_field(tx: Tx, field_id: int) -> None:
    """Remove the field; its values go with it (ON DELETE CASCADE)."""
    await tx.execute("DELETE FROM custom_profile_field WHERE id = ?", (field_id,))


def _value(row: Row) -> ProfileValueRow:
    return ProfileValueRow(**dict(row))


async def list_values(conn: Conn, *, user_ids: list[int] | None = None) -> list[ProfileValueRow]:
    """Values of every user (or of `user_ids`), by user then field."""
    sql = "SELECT user_id, field_id, value, rendered_value FROM custom_profile_field_value"
    params: tuple[object, ...] = ()
    if user_ids is not None:
        sql += f" WHERE user_id IN ({','.join('?' * len(user_ids))})"
        params = tuple(user_ids)
    rows = await conn.fetchall(sql + " ORDER BY user_id, field_id", params)
    return [_value(row) for row in rows]


async def list_values_of_field(conn: Conn, field_id: int) -> list[ProfileValueRow]:
    """Every user's value of one field."""
    rows = await conn.fetchall(
        "SELECT user_id, field_id, value, rendered_value FROM custom_profile_field_value"
        " WHERE field_id = ? ORDER BY user_id",
        (field_id,),
    )
    return [_value(row) for row in rows]


async def set_value(
    tx: Tx, user_id: int, field_id: int, value: str, rendered_value: str | None
) -> None:
    """Create or replace a user's value of a field."""
    await tx.execute(
        "INSERT INTO custom_profile_field_value (user_id, field_id, value, rendered_value)"
        " VALUES (?, ?, ?, ?) ON CONFLICT (user_id, field_id) DO UPDATE SET"
        " value = excluded.value, rendered_value = excluded.rendered_value",
        (user_id, field_id, value, rendered_value),
    )


async def delete_value(tx: Tx, user_id: int, field_id: int) -> bool:
    """Remove one value; whether there was one."""
    count = await tx.execute_rowcount(
        "DELETE FROM custom_profile_field_value WHERE user_id = ? AND field_id = ?",
        (user_id, field_id),
    )
    return count > 0

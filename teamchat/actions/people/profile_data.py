"""Users' custom profile field values: validation per field type, storage, realm_user events.

Values change through PATCH/DELETE /users/me/profile_data and an administrator's
PATCH /users/{user_id}; every change sends realm_user/update with `custom_profile_field`.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from teamchat import store
from teamchat.actions.people.user_access import user_ids_who_can_access
from teamchat.errors import ZulipError
from teamchat.events.types import RealmUserUpdateEvent
from teamchat.lib import profile_fields as pf
from teamchat.lib.api_types import JsonDict
from teamchat.records import CustomProfileFieldRow, UserRow
from teamchat.render.markdown import render_plain_markdown
from teamchat.runtime import Runtime
from teamchat.store import custom_profile_fields as fields_store
from teamchat.store.db import Conn, Tx

NOT_EDITABLE_MSG = (
    "You are not allowed to change this field. Contact an administrator to update it."
)


@dataclass(frozen=True)
class ProfileChange:
    """One validated change: a new value (rendered when the type renders) or a removal."""

    field: CustomProfileFieldRow
    value: str | None
    rendered_value: str | None = None


def parse_entries(name: str, raw: object) -> list[tuple[int, object]]:
    """`[{"id": int, "value": ...}]` as (id, value) pairs, with Zulip's shape errors."""
    if not isinstance(raw, list):
        raise ZulipError(f"{name} is not a list")
    entries = []
    for index, item in enumerate(raw):
        var = f"{name}[{index}]"
        if not isinstance(item, dict):
            raise ZulipError(f"{var} is not a dict")
        for key in ("id", "value"):
            if key not in item:
                raise ZulipError(f"{key} key is missing from {var}")
        extra = sorted(set(item) - {"id", "value"})
        if extra:
            raise ZulipError(f"Unexpected arguments: {', '.join(extra)}")
        field_id = item["id"]
        if not isinstance(field_id, int) or isinstance(field_id, bool):
            raise ZulipError(f'{var}["id"] is not an integer')
        entries.append((field_id, item["value"]))
    return entries


async def _access_field(conn: Conn, actor: UserRow, field_id: int) -> CustomProfileFieldRow:
    field = await fields_store.get_field(conn, field_id)
    if field is None:
        raise ZulipError(f"Field id {field_id} not found.")
    if not actor.is_admin and not field.editable_by_user:
        raise ZulipError(NOT_EDITABLE_MSG)
    return field


async def check_profile_changes(
    conn: Conn, actor: UserRow, entries: list[tuple[int, object]]
) -> list[ProfileChange]:
    """Validate (field id, value) pairs set by `actor`; empty values and null remove."""
    changes = []
    for field_id, value in entries:
        field = await _access_field(conn, actor, field_id)
        if value is None or value == "" or value == []:
            changes.append(ProfileChange(field, None))
            continue
        if field.field_type == pf.USER:
            stored = await _check_user_ids(conn, value)
        else:
            data = msgspec.json.decode(field.field_data) if field.field_data else {}
            problem = pf.value_problem(field.name, field.field_type, data, value)
            if problem:
                raise ZulipError(problem)
            assert isinstance(value, str)
            stored = value
        rendered = render_plain_markdown(stored) if field.field_type in pf.RENDERED_TYPES else None
        changes.append(ProfileChange(field, stored, rendered))
    return changes


async def check_removals(conn: Conn, actor: UserRow, field_ids: list[int]) -> list[ProfileChange]:
    """DELETE /users/me/profile_data: each id must be a field `actor` may change."""
    return [
        ProfileChange(await _access_field(conn, actor, field_id), None) for field_id in field_ids
    ]


async def _check_user_ids(conn: Conn, value: object) -> str:
    if not isinstance(value, list):
        raise ZulipError("User IDs is not a list")
    for index, user_id in enumerate(value):
        if not isinstance(user_id, int) or isinstance(user_id, bool):
            raise ZulipError(f"User IDs[{index}] is not an integer")
        user = await store.users.get_user_by_id(conn, user_id)
        if user is None:
            raise ZulipError(f"Invalid user ID: {user_id}")
        if not user.is_active:
            raise ZulipError(f"User with ID {user_id} is deactivated")
    return msgspec.json.encode(value).decode()


async def apply_profile_changes(
    rt: Runtime, tx: Tx, target: UserRow, changes: list[ProfileChange]
) -> None:
    """Write `changes` for `target` inside `tx`; an unchanged value sends nothing."""
    current = {
        row.field_id: row.value for row in await fields_store.list_values(tx, user_ids=[target.id])
    }
    for change in changes:
        field_id = change.field.id
        if change.value is None:
            if await fields_store.delete_value(tx, target.id, field_id):
                await publish_profile_value(rt, tx, target.id, field_id, None, None)
            continue
        if current.get(field_id) == change.value:
            continue
        await fields_store.set_value(tx, target.id, field_id, change.value, change.rendered_value)
        current[field_id] = change.value
        await publish_profile_value(
            rt, tx, target.id, field_id, change.value, change.rendered_value
        )


async def do_update_profile_data(
    rt: Runtime, target: UserRow, changes: list[ProfileChange]
) -> None:
    """Store validated profile changes of `target` in one transaction."""
    async with rt.db.write() as tx:
        await apply_profile_changes(rt, tx, target, changes)


async def publish_profile_value(
    rt: Runtime, tx: Tx, user_id: int, field_id: int, value: str | None, rendered: str | None
) -> None:
    """Queue realm_user/update with `custom_profile_field` for those who can see the user."""
    data: JsonDict = {"id": field_id, "value": value}
    if rendered is not None:
        data["rendered_value"] = rendered
    event = RealmUserUpdateEvent(person={"user_id": user_id, "custom_profile_field": data})
    target = await store.users.get_user_by_id(tx, user_id)
    assert target is not None
    audience = await user_ids_who_can_access(tx, target)
    tx.after_commit(lambda: rt.broker.publish(event, audience))


async def check_update_own_profile_data(
    rt: Runtime, user: UserRow, entries: list[tuple[int, object]]
) -> None:
    """PATCH /users/me/profile_data."""
    _require_human(user)
    async with rt.db.read() as conn:
        changes = await check_profile_changes(conn, user, entries)
    await do_update_profile_data(rt, user, changes)


async def check_remove_own_profile_data(rt: Runtime, user: UserRow, field_ids: list[int]) -> None:
    """DELETE /users/me/profile_data."""
    _require_human(user)
    async with rt.db.read() as conn:
        changes = await check_removals(conn, user, field_ids)
    await do_update_profile_data(rt, user, changes)


def _require_human(user: UserRow) -> None:
    if user.is_bot:
        raise ZulipError("This endpoint does not accept bot requests.")

"""Custom profile field definitions: create, update, delete, reorder (administrators only).

Every change sends `custom_profile_fields` (the full list) to every active user.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass

import msgspec

from teamchat import store
from teamchat.actions.org.permissions import require_realm_admin
from teamchat.actions.people.profile_data import publish_profile_value
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import ZulipError
from teamchat.events.types_people import CustomProfileFieldObject, CustomProfileFieldsEvent
from teamchat.lib import profile_fields as pf
from teamchat.lib.text import check_text
from teamchat.records import CustomProfileFieldRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import custom_profile_fields as fields_store
from teamchat.store.conn import IntegrityError
from teamchat.store.db import Conn, Tx


@dataclass(frozen=True, kw_only=True)
class FieldChanges:
    """A create or update request; None means "not given"."""

    name: str | None = None
    hint: str | None = None
    field_data: dict[str, object] | None = None
    display_in_profile_summary: bool | None = None
    required: bool | None = None
    editable_by_user: bool | None = None
    use_for_user_matching: bool | None = None


def field_object(field: CustomProfileFieldRow) -> CustomProfileFieldObject:
    """A field as GET /realm/profile_fields and the events show it."""
    obj = CustomProfileFieldObject(
        id=field.id,
        name=field.name,
        type=field.field_type,
        hint=field.hint,
        field_data=field.field_data,
        order=field.order,
        required=field.required,
        editable_by_user=field.editable_by_user,
    )
    # zulip-compat: these two flags are only present when true.
    if field.display_in_profile_summary:
        obj.display_in_profile_summary = True
    if field.use_for_user_matching:
        obj.use_for_user_matching = True
    return obj


async def get_custom_profile_fields(rt: Runtime) -> list[CustomProfileFieldObject]:
    """Every field in display order."""
    async with rt.db.read() as conn:
        return [field_object(f) for f in await fields_store.list_fields(conn)]


@state_fetcher("custom_profile_fields")
async def _custom_profile_fields_state(ctx: StateContext) -> None:
    fields = await fields_store.list_fields(ctx.conn)
    ctx.state["custom_profile_fields"] = [field_object(f) for f in fields]
    ctx.state["custom_profile_field_types"] = {
        key: {"id": type_id, "name": name} for type_id, (key, name) in pf.FIELD_TYPES.items()
    }
    ctx.state["realm_default_external_accounts"] = {
        subtype: dict(account) for subtype, account in pf.DEFAULT_EXTERNAL_ACCOUNTS.items()
    }


async def access_field(conn: Conn, field_id: int) -> CustomProfileFieldRow:
    """The field `field_id`, or Zulip's 'Field id ... not found.' error."""
    field = await fields_store.get_field(conn, field_id)
    if field is None:
        raise ZulipError(f"Field id {field_id} not found.")
    return field


def _check_field(field: CustomProfileFieldRow, field_data: dict[str, object]) -> None:
    """Zulip's checks on a complete field definition, in Zulip's order."""
    problem = pf.field_data_problem(field.field_type, field_data)
    if problem:
        raise ZulipError(problem)
    if not pf.is_default_external_account(field.field_type, field_data):
        if not field.name.strip():
            raise ZulipError("Label cannot be blank.")
        check_text("hint", field.hint, max_chars=pf.HINT_MAX_CHARS)
        check_text("name", field.name, max_chars=pf.NAME_MAX_CHARS)
    if field.field_type not in pf.FIELD_TYPES:
        raise ZulipError("Invalid field type.")
    if field.display_in_profile_summary and field.field_type in pf.NOT_IN_PROFILE_SUMMARY:
        raise ZulipError("Field type not supported for display in profile summary.")
    if field.use_for_user_matching and field.field_type not in pf.USER_MATCHING_TYPES:
        raise ZulipError("Field type not supported for user matching.")


def _with_defaults(
    field: CustomProfileFieldRow, field_data: dict[str, object]
) -> CustomProfileFieldRow:
    """Default external accounts (GitHub, Twitter) take Zulip's name and hint."""
    if not pf.is_default_external_account(field.field_type, field_data):
        return field
    account = pf.DEFAULT_EXTERNAL_ACCOUNTS[str(field_data["subtype"])]
    return msgspec.structs.replace(field, name=account["name"], hint=account["hint"])


async def check_create_field(
    rt: Runtime, actor: UserRow, *, field_type: int, changes: FieldChanges
) -> int:
    """Validate a new field (SPEC: Create a custom profile field) and create it."""
    require_realm_admin(actor)
    field_data = changes.field_data or {}
    field = CustomProfileFieldRow(
        id=0,
        name=(changes.name or "").strip(),
        hint=changes.hint or "",
        field_type=field_type,
        field_data=msgspec.json.encode(field_data).decode()
        if field_type in pf.TYPES_WITH_FIELD_DATA
        else "",
        order=0,
        display_in_profile_summary=bool(changes.display_in_profile_summary),
        required=bool(changes.required),
        editable_by_user=changes.editable_by_user is not False,
        use_for_user_matching=bool(changes.use_for_user_matching),
    )
    async with rt.db.read() as conn:
        await _check_summary_limit(conn, field)
    _check_field(field, field_data)
    return await do_create_field(rt, _with_defaults(field, field_data))


async def _check_summary_limit(conn: Conn, field: CustomProfileFieldRow) -> None:
    if not field.display_in_profile_summary:
        return
    count = await fields_store.count_in_profile_summary(conn, excluding=field.id or None)
    if count >= pf.MAX_DISPLAY_IN_PROFILE_SUMMARY:
        raise ZulipError(
            f"Only {pf.MAX_DISPLAY_IN_PROFILE_SUMMARY} custom profile fields can be displayed"
            " in the profile summary."
        )


async def do_create_field(rt: Runtime, field: CustomProfileFieldRow) -> int:
    """Insert `field` (its id and order are assigned); send custom_profile_fields."""
    try:
        async with rt.db.write() as tx:
            await _recheck_summary_limit(tx, field)
            field_id = await fields_store.insert_field(
                tx,
                name=field.name,
                hint=field.hint,
                field_type=field.field_type,
                field_data=field.field_data,
                display_in_profile_summary=field.display_in_profile_summary,
                required=field.required,
                editable_by_user=field.editable_by_user,
                use_for_user_matching=field.use_for_user_matching,
            )
            await publish_fields(rt, tx)
    except IntegrityError:
        raise ZulipError("A field with that label already exists.") from None
    return field_id


async def _recheck_summary_limit(tx: Tx, field: CustomProfileFieldRow) -> None:
    """The limit again inside the write, so two concurrent requests cannot both pass."""
    await _check_summary_limit(tx, field)


async def publish_fields(rt: Runtime, tx: Tx) -> None:
    """Queue custom_profile_fields (the whole list) for every active user."""
    fields = [field_object(f) for f in await fields_store.list_fields(tx)]
    audience = await store.users.list_active_user_ids(tx)
    event = CustomProfileFieldsEvent(fields=fields)
    tx.after_commit(lambda: rt.broker.publish(event, audience))


async def check_update_field(
    rt: Runtime, actor: UserRow, field_id: int, changes: FieldChanges
) -> None:
    """Validate changes to a field (the same rules as creation) and store them."""
    require_realm_admin(actor)
    async with rt.db.read() as conn:
        old = await access_field(conn, field_id)
        new = _updated(old, changes)
        await _check_summary_limit(conn, new)
    old_data = msgspec.json.decode(old.field_data) if old.field_data else {}
    new_data = changes.field_data if changes.field_data is not None else old_data
    if pf.is_default_external_account(old.field_type, old_data) and (
        (changes.name is not None and changes.name.strip() != old.name)
        or (changes.hint is not None and changes.hint != old.hint)
        or (changes.field_data is not None and changes.field_data != old_data)
    ):
        raise ZulipError("Default custom field cannot be updated.")
    _check_field(new, new_data)
    removed: set[str] = set()
    if old.field_type == pf.SELECT:
        removed = set(old_data) - set(new_data)
    await do_update_field(rt, new, removed_choices=removed)


def _updated(old: CustomProfileFieldRow, changes: FieldChanges) -> CustomProfileFieldRow:
    values: dict[str, object] = {}
    if changes.name is not None:
        values["name"] = changes.name.strip()
    if changes.hint is not None:
        values["hint"] = changes.hint
    if changes.field_data is not None and old.field_type in pf.TYPES_WITH_FIELD_DATA:
        values["field_data"] = msgspec.json.encode(changes.field_data).decode()
    for flag in (
        "display_in_profile_summary",
        "required",
        "editable_by_user",
        "use_for_user_matching",
    ):
        if getattr(changes, flag) is not None:
            values[flag] = getattr(changes, flag)
    return msgspec.structs.replace(old, **values)


async def do_update_field(
    rt: Runtime, field: CustomProfileFieldRow, *, removed_choices: AbstractSet[str] = frozenset()
) -> None:
    """Store `field`; values naming removed Dropdown choices are cleared (with events)."""
    try:
        async with rt.db.write() as tx:
            await _recheck_summary_limit(tx, field)
            await fields_store.update_field(tx, field)
            for row in await fields_store.list_values_of_field(tx, field.id):
                if row.value in removed_choices:
                    await fields_store.delete_value(tx, row.user_id, field.id)
                    await publish_profile_value(rt, tx, row.user_id, field.id, None, None)
            await publish_fields(rt, tx)
    except IntegrityError:
        raise ZulipError("A field with that label already exists.") from None


async def check_delete_field(rt: Runtime, actor: UserRow, field_id: int) -> None:
    """DELETE /realm/profile_fields/{field_id} (administrators)."""
    require_realm_admin(actor)
    async with rt.db.read() as conn:
        await access_field(conn, field_id)
    await do_delete_field(rt, field_id)


async def do_delete_field(rt: Runtime, field_id: int) -> None:
    """Delete a field and every value of it; send custom_profile_fields."""
    async with rt.db.write() as tx:
        await fields_store.delete_field(tx, field_id)
        await publish_fields(rt, tx)


async def check_reorder_fields(rt: Runtime, actor: UserRow, order: list[int]) -> None:
    """`order` must name every field exactly once."""
    require_realm_admin(actor)
    async with rt.db.read() as conn:
        ids = [f.id for f in await fields_store.list_fields(conn)]
    if len(order) != len(ids) or set(order) != set(ids):
        raise ZulipError("Invalid order mapping.")
    await do_reorder_fields(rt, order)


async def do_reorder_fields(rt: Runtime, order: list[int]) -> None:
    """Give the fields the order of `order`; send custom_profile_fields."""
    async with rt.db.write() as tx:
        await fields_store.set_order(tx, order)
        await publish_fields(rt, tx)

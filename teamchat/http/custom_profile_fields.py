"""Custom profile fields: GET/POST/PATCH /realm/profile_fields, PATCH/DELETE
/realm/profile_fields/{field_id}; a user's own values: PATCH/DELETE /users/me/profile_data."""

from __future__ import annotations

from teamchat.actions.org import permissions
from teamchat.actions.people import custom_profile_fields as fields
from teamchat.actions.people import profile_data
from teamchat.http.params import Params, as_bool, as_int, as_int_list, as_json, as_json_dict, as_str
from teamchat.http.routing import delete, get, patch, post
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


def read_field_changes(params: Params) -> fields.FieldChanges:
    return fields.FieldChanges(
        name=params.optional("name", as_str, None),
        hint=params.optional("hint", as_str, None),
        field_data=params.optional("field_data", as_json_dict, None),
        display_in_profile_summary=params.optional("display_in_profile_summary", as_bool, None),
        required=params.optional("required", as_bool, None),
        editable_by_user=params.optional("editable_by_user", as_bool, None),
        use_for_user_matching=params.optional("use_for_user_matching", as_bool, None),
    )


@get("/realm/profile_fields")
async def get_custom_profile_fields(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    return params.success(custom_fields=await fields.get_custom_profile_fields(rt))


@post("/realm/profile_fields")
async def create_custom_profile_field(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    permissions.require_realm_admin(user)
    field_type = params.required("field_type", as_int)
    changes = read_field_changes(params)
    field_id = await fields.check_create_field(rt, user, field_type=field_type, changes=changes)
    return params.success(id=field_id)


@patch("/realm/profile_fields/{field_id:int}")
async def update_custom_profile_field(
    field_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    permissions.require_realm_admin(user)
    await fields.check_update_field(rt, user, field_id, read_field_changes(params))
    return params.success()


@delete("/realm/profile_fields/{field_id:int}")
async def delete_custom_profile_field(
    field_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await fields.check_delete_field(rt, user, field_id)
    return params.success()


@patch("/realm/profile_fields")
async def reorder_custom_profile_fields(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    permissions.require_realm_admin(user)
    await fields.check_reorder_fields(rt, user, params.required("order", as_int_list))
    return params.success()


@patch("/users/me/profile_data")
async def update_own_profile_data(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    entries = profile_data.parse_entries("data", params.required("data", as_json))
    await profile_data.check_update_own_profile_data(rt, user, entries)
    return params.success()


@delete("/users/me/profile_data")
async def remove_own_profile_data(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    field_ids = params.required("data", as_int_list)
    await profile_data.check_remove_own_profile_data(rt, user, field_ids)
    return params.success()

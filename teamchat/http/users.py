"""GET /users, /users/me, /users/{user_id_or_email}; POST /users; PATCH, DELETE and
reactivate users."""

from __future__ import annotations

from teamchat.actions.org import permissions
from teamchat.actions.people import deactivation, people, users
from teamchat.actions.people.profile_data import parse_entries
from teamchat.actions.people.user_admin import UserUpdate, check_update_user
from teamchat.errors import ResourceNotFoundError
from teamchat.http.params import Params, as_bool, as_int_in, as_int_list, as_json, as_str
from teamchat.http.routing import delete, get, patch, post
from teamchat.lib.api_types import JsonDict, fields_of
from teamchat.lib.integers import is_ascii_digits
from teamchat.records import Role, UserRow
from teamchat.runtime import Runtime

ROLES = tuple(int(role) for role in Role)


@get("/users")
async def get_users(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    client_gravatar = params.optional("client_gravatar", as_bool, True)
    include_fields = params.optional("include_custom_profile_fields", as_bool, False)
    user_ids = params.optional("user_ids", as_int_list, None)
    members = await people.get_members(
        rt,
        user,
        user_ids=user_ids,
        client_gravatar=client_gravatar,
        include_custom_profile_fields=include_fields,
    )
    return params.success(members=members)


@get("/users/me")
async def get_own_user(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    me, max_message_id = await people.get_own_user(rt, user)
    return params.success(**fields_of(me), max_message_id=max_message_id)


@get("/users/{user_id_or_email:str}")
async def get_user(user_id_or_email: str, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    client_gravatar = params.optional("client_gravatar", as_bool, True)
    include_fields = params.optional("include_custom_profile_fields", as_bool, False)
    user_id, email = _id_or_email(user_id_or_email)
    target = await people.get_member(
        rt,
        user,
        user_id=user_id,
        email=email,
        client_gravatar=client_gravatar,
        include_custom_profile_fields=include_fields,
    )
    return params.success(user=target)


@post("/users")
async def create_user(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    permissions.require_realm_admin(user)
    await users.check_can_create_users(rt, user)
    email = params.required("email", as_str)
    password = params.required("password", as_str)
    full_name = params.required("full_name", as_str)
    created = await users.check_create_user(rt, email=email, full_name=full_name, password=password)
    return params.success(user_id=created.id)


@patch("/users/{user_id_or_email:str}")
async def update_user(
    user_id_or_email: str, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    raw_profile = params.optional("profile_data", as_json, None)
    role = params.optional("role", as_int_in(*ROLES), None)
    update = UserUpdate(
        full_name=params.optional("full_name", as_str, None),
        role=Role(role) if role is not None else None,
        new_email=params.optional("new_email", as_str, None),
        profile_data=parse_entries("profile_data", raw_profile)
        if raw_profile is not None
        else None,
    )
    user_id, email = _id_or_email(user_id_or_email)
    await check_update_user(rt, user, update, user_id=user_id, email=email)
    return params.success()


@delete("/users/me")
async def deactivate_own_user(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    await deactivation.check_deactivate_own_user(rt, user)
    return params.success()


@delete("/users/{user_id_or_email:str}")
async def deactivate_user(
    user_id_or_email: str, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await deactivation.check_deactivate_user(rt, user, _user_id(user_id_or_email))
    return params.success()


@post("/users/{user_id:int}/reactivate")
async def reactivate_user(user_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    await deactivation.check_reactivate_user(rt, user, user_id)
    return params.success()


def _id_or_email(value: str) -> tuple[int | None, str | None]:
    return (int(value), None) if is_ascii_digits(value) else (None, value)


def _user_id(value: str) -> int:
    if not is_ascii_digits(value):
        raise ResourceNotFoundError("Not Found")
    return int(value)

"""GET /users, /users/me, /users/{user_id_or_email}; POST /users."""

from __future__ import annotations

from teamchat.actions import people, permissions, users
from teamchat.http.params import Params, as_bool, as_int_list, as_str
from teamchat.http.routing import get, post
from teamchat.lib.api_types import JsonDict, fields_of
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@get("/users")
async def get_users(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    client_gravatar = params.optional("client_gravatar", as_bool, True)
    params.optional("include_custom_profile_fields", as_bool, False)
    user_ids = params.optional("user_ids", as_int_list, None)
    members = await people.get_members(rt, user, user_ids=user_ids, client_gravatar=client_gravatar)
    return params.success(members=members)


@get("/users/me")
async def get_own_user(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    me = await people.get_member(rt, user, user_id=user.id)
    return params.success(**fields_of(me))


@get("/users/{user_id_or_email:str}")
async def get_user(user_id_or_email: str, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    client_gravatar = params.optional("client_gravatar", as_bool, False)
    params.optional("include_custom_profile_fields", as_bool, False)
    if user_id_or_email.isdigit():
        target = await people.get_member(
            rt, user, user_id=int(user_id_or_email), client_gravatar=client_gravatar
        )
    else:
        target = await people.get_member(
            rt, user, email=user_id_or_email, client_gravatar=client_gravatar
        )
    return params.success(user=target)


@post("/users")
async def create_user(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    permissions.require_realm_admin(user)
    email = params.required("email", as_str)
    password = params.required("password", as_str)
    full_name = params.required("full_name", as_str)
    created = await users.check_create_user(rt, email=email, full_name=full_name, password=password)
    return params.success(user_id=created.id)

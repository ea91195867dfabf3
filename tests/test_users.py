"""The read side of people: GET /users, /users/me, /users/{id}, /users/{email}; POST /users."""

from __future__ import annotations

import msgspec

from teamchat.lib.api_types import UserObject
from tests.conftest import unique_email
from tests.support.api import Api, assert_error


def test_get_users_lists_everyone_with_the_documented_fields(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    member = make_user(full_name="Listed Person")
    body = owner.ok("GET", "/users")
    members = {m["user_id"]: m for m in body["members"]}
    assert member.user_id in members
    for raw in body["members"]:
        user = msgspec.convert(raw, UserObject, strict=True)
        assert user.role in (100, 200, 300, 400, 600)
        assert user.date_joined.endswith("+00:00")
    me = members[owner.ok("GET", "/users/me")["user_id"]]
    assert me["is_owner"] and me["is_admin"] and me["role"] == 100


def test_client_gravatar_nulls_avatar_urls(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    # A new member uses Gravatar (other tests upload avatars for the session's users).
    member = make_user(full_name="Gravatar User")
    ids = f"[{member.user_id}]"
    [default] = owner.ok("GET", "/users", user_ids=ids)["members"]
    assert default["avatar_url"] is None  # client_gravatar defaults to true
    [explicit] = owner.ok("GET", "/users", user_ids=ids, client_gravatar=False)["members"]
    assert explicit["avatar_url"].startswith("https://secure.gravatar.com/avatar/")


def test_user_ids_limits_the_result(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    a, b = make_user(), make_user()
    body = owner.ok("GET", "/users", user_ids=[a.user_id, b.user_id])
    assert sorted(m["user_id"] for m in body["members"]) == sorted([a.user_id, b.user_id])
    assert_error(owner.get("/users", user_ids='["x"]'), "user_ids[0] is not an integer")
    assert_error(owner.get("/users", user_ids="5"), "user_ids is not a list")


def test_get_user_by_id_and_by_email(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    member = make_user(full_name="Findable")
    by_id = owner.ok("GET", f"/users/{member.user_id}")["user"]
    by_email = owner.ok("GET", f"/users/{member.email}")["user"]
    assert by_id == by_email
    assert by_id["full_name"] == "Findable" and by_id["delivery_email"] == member.email
    assert_error(owner.get("/users/999999"), "No such user")
    assert_error(owner.get("/users/ghost@example.com"), "No such user")


def test_get_own_user(make_user) -> None:  # type: ignore[no-untyped-def]
    member = make_user(full_name="Myself")
    me = member.ok("GET", "/users/me")
    assert me["user_id"] == member.user_id and me["email"] == member.email
    assert me["full_name"] == "Myself" and me["role"] == 400 and not me["is_admin"]


def test_create_user_needs_an_administrator(make_user) -> None:  # type: ignore[no-untyped-def]
    member = make_user()
    response = member.post("/users", email=unique_email(), password="pw-123456", full_name="X")
    assert_error(response, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL")


def test_create_user_validates_its_input(owner: Api) -> None:
    email = unique_email()
    owner.ok("POST", "/users", email=email, password="pw-123456", full_name="First")
    assert_error(
        owner.post("/users", email=email, password="pw-123456", full_name="Again"),
        f"Email '{email}' already in use",
    )
    assert_error(
        owner.post("/users", email=email.upper(), password="pw-123456", full_name="Case"),
        f"Email '{email.upper()}' already in use",
    )
    assert_error(
        owner.post("/users", email="not-an-email", password="pw-123456", full_name="X"),
        "Invalid email 'not-an-email'",
    )
    assert_error(
        owner.post("/users", email=unique_email(), password="pw", full_name="X"),
        "The password must be at least 6 characters long.",
    )
    assert_error(
        owner.post("/users", email=unique_email(), password="pw-123456", full_name=" "),
        "Name too short!",
    )
    body = assert_error(
        owner.post("/users", email=unique_email(), password="pw-123456"),
        "Missing 'full_name' argument",
        "REQUEST_VARIABLE_MISSING",
    )
    assert body["var_name"] == "full_name"

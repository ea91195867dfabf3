"""PATCH /users/{id|email}, DELETE /users/{id}, /users/me, POST /users/{id}/reactivate."""

from __future__ import annotations

import pytest

from tests.conftest import unique_email
from tests.support import rawdb
from tests.support.api import Api, assert_error
from tests.support.people import make_role_user, register, verify
from tests.support.server import ServerProcess


@pytest.fixture
def member(make_user) -> Api:  # type: ignore[no-untyped-def]
    return make_user(full_name="Plain Member")  # type: ignore[no-any-return]


@pytest.fixture
def admin(owner: Api, make_user) -> Api:  # type: ignore[no-untyped-def]
    return make_role_user(owner, make_user, 200, "An Admin")


def test_admin_renames_a_user_and_everyone_hears(admin: Api, member: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    observer = make_user(full_name="Observer")
    sent = verify(
        observer,
        lambda: admin.ok("PATCH", f"/users/{member.user_id}", full_name="  Renamed Member "),  # type: ignore[attr-defined]
    )
    assert [e["person"] for e in sent] == [
        {"user_id": member.user_id, "full_name": "Renamed Member"}
    ]  # type: ignore[attr-defined]
    assert admin.ok("GET", f"/users/{member.user_id}")["user"]["full_name"] == "Renamed Member"  # type: ignore[attr-defined]
    # The same name again (after stripping) changes nothing and sends nothing.
    same = verify(
        observer,
        lambda: admin.ok("PATCH", f"/users/{member.user_id}", full_name=" Renamed Member"),  # type: ignore[attr-defined]
    )
    assert same == []
    # Blank names are ignored, like Zulip; bad names are rejected.
    admin.ok("PATCH", f"/users/{member.user_id}", full_name="  ")  # type: ignore[attr-defined]
    assert_error(
        admin.patch(f"/users/{member.user_id}", full_name="Bad*Name"),  # type: ignore[attr-defined]
        "Invalid characters in name!",
    )
    assert_error(admin.patch(f"/users/{member.user_id}", full_name="x" * 101), "Name too long!")  # type: ignore[attr-defined]
    assert_error(admin.patch(f"/users/{member.user_id}", full_name="Name|12"), "Invalid format!")  # type: ignore[attr-defined]


def test_members_cannot_update_users(member: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    other = make_user()
    assert_error(
        member.patch(f"/users/{other.user_id}", full_name="Nope"), "Insufficient permission"
    )
    assert_error(member.patch(f"/users/{other.user_id}", role=200), "Insufficient permission")


def test_role_changes_send_role_and_follow_the_owner_rules(  # type: ignore[no-untyped-def]
    owner: Api, admin: Api, member: Api, make_user
) -> None:
    observer = make_user(full_name="Role Watcher")
    sent = verify(
        observer,
        lambda: admin.ok("PATCH", f"/users/{member.user_id}", role=300),  # type: ignore[attr-defined]
    )
    people = [e["person"] for e in sent if e["type"] == "realm_user"]
    assert people == [{"user_id": member.user_id, "role": 300}]  # type: ignore[attr-defined]
    # member -> moderator: leaves role:members and role:fullmembers, joins role:moderators.
    group_ops = sorted(e["op"] for e in sent if e["type"] == "user_group")
    assert group_ops == ["add_members", "remove_members", "remove_members"]
    me = member.ok("GET", "/users/me")
    assert me["role"] == 300 and not me["is_admin"]
    # Only owners grant or remove the owner role.
    body = assert_error(
        admin.patch(f"/users/{member.user_id}", role=100),  # type: ignore[attr-defined]
        "Must be an organization owner",
        "UNAUTHORIZED_PRINCIPAL",
    )
    assert body["result"] == "error"
    owner_id = owner.ok("GET", "/users/me")["user_id"]
    assert_error(
        admin.patch(f"/users/{owner_id}", role=200),
        "Must be an organization owner",
        "UNAUTHORIZED_PRINCIPAL",
    )
    # The only owner keeps the role.
    assert_error(
        owner.patch(f"/users/{owner_id}", role=200),
        "The owner permission cannot be removed from the only organization owner.",
    )
    assert_error(owner.patch(f"/users/{member.user_id}", role=500), "Invalid role")  # type: ignore[attr-defined]
    assert_error(owner.patch(f"/users/{member.user_id}", role="boss"), "role is not valid JSON")  # type: ignore[attr-defined]
    # A second owner can be made and removed by an owner.
    owner.ok("PATCH", f"/users/{member.user_id}", role=100)  # type: ignore[attr-defined]
    assert member.ok("GET", "/users/me")["is_owner"]
    owner.ok("PATCH", f"/users/{member.user_id}", role=400)  # type: ignore[attr-defined]


def test_a_guest_cannot_be_made_an_administrator(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    guest = make_role_user(owner, make_user, 600, "A Guest")
    assert guest.ok("GET", "/users/me")["is_guest"]
    for role in (200, 100):
        assert_error(
            owner.patch(f"/users/{guest.user_id}", role=role),  # type: ignore[attr-defined]
            "Guests cannot be organization administrators",
        )
    owner.ok("PATCH", f"/users/{guest.user_id}", role=400)  # type: ignore[attr-defined]
    owner.ok("PATCH", f"/users/{guest.user_id}", role=200)  # type: ignore[attr-defined]


def test_update_user_by_email(owner: Api, admin: Api, member: Api) -> None:
    admin.ok("PATCH", f"/users/{member.email}", full_name="By Email")
    assert member.ok("GET", "/users/me")["full_name"] == "By Email"
    host = member.ok("POST", "/register", fetch_event_types=["realm"])["realm_bot_domain"]
    admin.ok("PATCH", f"/users/user{member.user_id}@{host}", full_name="By Dummy")  # type: ignore[attr-defined]
    assert member.ok("GET", "/users/me")["full_name"] == "By Dummy"
    assert_error(admin.patch("/users/ghost@example.com", full_name="X"), "No such user")
    assert_error(admin.patch("/users/999999", full_name="X"), "No such user")


def test_update_user_reports_ignored_parameters(admin: Api, member: Api) -> None:
    body = admin.ok("PATCH", f"/users/{member.user_id}", full_name="Still Me", shoe_size=9)  # type: ignore[attr-defined]
    assert body["ignored_parameters_unsupported"] == ["shoe_size"]


def test_owner_changes_a_users_email(
    owner: Api, admin: Api, make_user, server: ServerProcess
) -> None:  # type: ignore[no-untyped-def]
    member = make_user(full_name="Mover")
    observer = make_user(full_name="Mail Watcher")
    new = unique_email("moved")
    sent = verify(
        observer,
        lambda: owner.ok("PATCH", f"/users/{member.user_id}", new_email=new),  # type: ignore[attr-defined]
    )
    persons = [e["person"] for e in sent]
    assert {"user_id": member.user_id, "delivery_email": new} in persons  # type: ignore[attr-defined]
    assert {"user_id": member.user_id, "new_email": new} in persons  # type: ignore[attr-defined]
    assert any("avatar_url" in p for p in persons)
    # The API key works with the new address; the old one is gone.
    moved = Api(server.url, new, member.api_key)
    assert moved.ok("GET", "/users/me")["delivery_email"] == new
    moved.close()
    assert_error(
        admin.patch(f"/users/{member.user_id}", new_email=unique_email()),  # type: ignore[attr-defined]
        "Must be an organization owner",
        "UNAUTHORIZED_PRINCIPAL",
    )
    assert_error(
        owner.patch(f"/users/{member.user_id}", new_email=observer.email),  # type: ignore[attr-defined]
        f"Email '{observer.email}' already in use",
    )
    assert_error(
        owner.patch(f"/users/{member.user_id}", new_email="nope"),  # type: ignore[attr-defined]
        "Invalid email 'nope'",
    )


def test_deactivation_locks_out_drops_queues_and_groups(  # type: ignore[no-untyped-def]
    admin: Api, make_user, server: ServerProcess
) -> None:
    member = make_user(full_name="Leaving Soon")
    observer = make_user(full_name="Stays Here")
    queue = register(member)
    admin.ok(
        "POST",
        "/user_groups/create",
        name=unique_email("g"),
        description="",
        members=[member.user_id],  # type: ignore[attr-defined]
    )
    sent = verify(observer, lambda: admin.ok("DELETE", f"/users/{member.user_id}"))
    # Both joined the default channels: the observer also hears peer_remove for each.
    assert {e["op"] for e in sent if e["type"] == "subscription"} == {"peer_remove"}
    sent = [{**e, "id": 0} for e in sent if e["type"] != "subscription"]
    assert sent == [
        {
            "type": "realm_user",
            "op": "update",
            "id": 0,
            "person": {"user_id": member.user_id, "is_active": False},
        }
    ]  # type: ignore[attr-defined]
    assert_error(member.get("/users/me"), "Account is deactivated", "USER_DEACTIVATED", 401)
    rows = rawdb.value(
        server.db, "SELECT count(*) FROM user_group_member WHERE user_id = ?", (member.user_id,)
    )
    assert rows == 0
    listed = admin.ok("GET", f"/users/{member.user_id}")["user"]
    assert listed["is_active"] is False
    # Errors: already deactivated, unknown, or not an administrator.
    assert_error(admin.delete(f"/users/{member.user_id}"), "User is deactivated")
    assert_error(admin.delete("/users/999999"), "No such user")
    assert_error(observer.delete(f"/users/{admin.user_id}"), "Insufficient permission")
    # Reactivation restores access (but not the old queue).
    after = verify(observer, lambda: admin.ok("POST", f"/users/{member.user_id}/reactivate"))
    people = [e["person"] for e in after if e["type"] == "realm_user"]
    assert people == [{"user_id": member.user_id, "is_active": True}]  # type: ignore[attr-defined]
    # It rejoins its role's system groups, not the named group it was dropped from.
    assert {e["op"] for e in after if e["type"] == "user_group"} == {"add_members"}
    assert member.ok("GET", "/users/me")["is_active"] is True
    assert_error(member.get("/events", queue_id=queue), None, "BAD_EVENT_QUEUE_ID")
    assert_error(admin.post(f"/users/{member.user_id}/reactivate"), "User is already active.")
    assert_error(observer.post(f"/users/{member.user_id}/reactivate"), "Insufficient permission")


def test_owners_are_protected(owner: Api, admin: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    owner_id = owner.ok("GET", "/users/me")["user_id"]
    assert_error(
        admin.delete(f"/users/{owner_id}"),
        "Must be an organization owner",
        "UNAUTHORIZED_PRINCIPAL",
    )
    assert_error(
        owner.delete(f"/users/{owner_id}"), "Cannot deactivate the only organization owner"
    )
    body = assert_error(
        owner.delete("/users/me"),
        "Cannot deactivate the only organization owner",
        "CANNOT_DEACTIVATE_LAST_USER",
    )
    assert body["is_last_owner"] is True and body["entity"] == "organization owner"
    second = make_role_user(owner, make_user, 100, "Second Owner")
    owner.ok("DELETE", f"/users/{second.user_id}")  # type: ignore[attr-defined]
    owner.ok("POST", f"/users/{second.user_id}/reactivate")  # type: ignore[attr-defined]


def test_deactivate_own_account(make_user, server: ServerProcess) -> None:  # type: ignore[no-untyped-def]
    member = make_user(full_name="Quitter")
    member.ok("DELETE", "/users/me")
    assert_error(member.get("/users/me"), "Account is deactivated", "USER_DEACTIVATED", 401)
    with Api(server.url) as anonymous:
        assert_error(
            anonymous.post(
                "/fetch_api_key", username=member.email, password="correct-horse-battery"
            ),
            "Account is deactivated",
            "USER_DEACTIVATED",
            401,
        )


def test_the_only_user_cannot_deactivate_themselves(start_server) -> None:  # type: ignore[no-untyped-def]
    proc = start_server()
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        body = assert_error(
            owner.delete("/users/me"),
            "Cannot deactivate the only user",
            "CANNOT_DEACTIVATE_LAST_USER",
        )
        assert body["is_last_owner"] is False and body["entity"] == "user"


def test_delete_user_needs_a_numeric_id(admin: Api, member: Api) -> None:
    assert_error(admin.delete(f"/users/{member.email}"), None, status=404)


def test_register_summarizes_ones_permissions(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    member = make_user(full_name="Permission Member")
    guest = make_role_user(owner, make_user, 600, "Permission Guest")
    keys = (
        "can_create_private_streams",
        "can_create_public_streams",
        "can_create_web_public_streams",
        "can_create_streams",
        "can_subscribe_other_users",
        "can_invite_others_to_realm",
    )
    mine = member.ok("POST", "/register", fetch_event_types=["realm_user"])
    assert [mine[k] for k in keys] == [True, True, False, True, True, True]
    theirs = guest.ok("POST", "/register", fetch_event_types=["realm_user"])
    assert [theirs[k] for k in keys] == [False] * 6

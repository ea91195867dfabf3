"""The organization-wide parts of POST /register and GET /users are built once per change of
what they come from: each change shows in the very next answer.

Each test registers (and lists people) before the change, so that the parts are built and
remembered, then checks the answer after it.
"""

from __future__ import annotations

from typing import Any

from tests.conftest import unique_email
from tests.support.api import Api

JsonDict = dict[str, Any]


def register(api: Api, **params: Any) -> JsonDict:
    body: JsonDict = api.ok("POST", "/register", include_subscribers=True, **params)
    return body


def people(state: JsonDict) -> dict[int, JsonDict]:
    return {u["user_id"]: u for u in state["realm_users"]}


def group(state: JsonDict, group_id: int) -> JsonDict:
    [found] = [g for g in state["realm_user_groups"] if g["id"] == group_id]
    return found


def channel_named(state: JsonDict, key: str, stream_id: int) -> JsonDict | None:
    return next((s for s in state[key] if s["stream_id"] == stream_id), None)


def test_a_new_user_is_in_the_next_register_and_users_list(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    register(owner)
    owner.ok("GET", "/users")
    newcomer = make_user(full_name="Cache Newcomer")
    assert people(register(owner))[newcomer.user_id]["full_name"] == "Cache Newcomer"
    listed = {m["user_id"]: m for m in owner.ok("GET", "/users")["members"]}
    assert listed[newcomer.user_id]["full_name"] == "Cache Newcomer"


def test_a_rename_and_a_role_change_show_at_once(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    person = make_user(full_name="Before Rename")
    register(owner)
    owner.ok("GET", "/users")
    person.ok("PATCH", "/settings", full_name="After Rename")
    assert people(register(owner))[person.user_id]["full_name"] == "After Rename"
    owner.ok("PATCH", f"/users/{person.user_id}", role=200)
    state = register(owner)
    assert people(state)[person.user_id]["role"] == 200
    assert people(state)[person.user_id]["is_admin"] is True
    admins = next(g for g in state["realm_user_groups"] if g["name"] == "role:administrators")
    assert person.user_id in admins["members"]
    listed = {m["user_id"]: m for m in owner.ok("GET", "/users")["members"]}
    assert listed[person.user_id]["role"] == 200


def test_what_a_viewer_sees_follows_their_own_role(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    hidden = make_user(full_name="Admins See My Address")
    hidden.ok("PATCH", "/settings", email_address_visibility=3)  # administrators only
    viewer = make_user(full_name="Becomes Admin")
    # Every member (of the same role) shares the remembered objects; each sees their own
    # address all the same.
    as_member = people(register(viewer))
    assert as_member[hidden.user_id]["delivery_email"] is None
    assert people(register(hidden))[hidden.user_id]["delivery_email"] == hidden.email
    assert as_member[viewer.user_id]["delivery_email"] == viewer.email
    member_list = {m["user_id"]: m for m in viewer.ok("GET", "/users")["members"]}
    assert member_list[hidden.user_id]["delivery_email"] is None
    assert member_list[viewer.user_id]["delivery_email"] == viewer.email
    owner.ok("PATCH", f"/users/{viewer.user_id}", role=200)
    assert people(register(viewer))[hidden.user_id]["delivery_email"] == hidden.email
    admin_list = {m["user_id"]: m for m in viewer.ok("GET", "/users")["members"]}
    assert admin_list[hidden.user_id]["delivery_email"] == hidden.email


def test_a_deactivated_user_moves_to_the_non_active_list(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    person = make_user(full_name="Soon Gone")
    name = f"cache-leaving-{person.user_id}"
    me = owner.ok("GET", "/users/me")["user_id"]
    owner.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": name}],
             principals=[me, person.user_id])  # fmt: skip
    stream_id = owner.ok("GET", "/get_stream_id", stream=name)["stream_id"]
    before = register(owner)
    assert person.user_id in channel_named(before, "subscriptions", stream_id)["subscribers"]  # type: ignore[index]
    owner.ok("DELETE", f"/users/{person.user_id}")
    after = register(owner)
    assert person.user_id not in people(after)
    assert person.user_id in {u["user_id"] for u in after["realm_non_active_users"]}
    assert person.user_id not in channel_named(after, "subscriptions", stream_id)["subscribers"]  # type: ignore[index]


def test_a_renamed_channel_and_a_new_subscriber_show_at_once(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    person = make_user(full_name="Late Subscriber")
    name = f"cache-channel-{person.user_id}"
    owner.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": name}])
    stream_id = owner.ok("GET", "/get_stream_id", stream=name)["stream_id"]
    # Ask for subscribers of many channels at once (the organization-wide answer).
    for extra in range(25):
        owner.ok("POST", "/users/me/subscriptions",
                 subscriptions=[{"name": f"cache-filler-{extra}"}])  # fmt: skip
    register(owner)
    register(person)
    owner.ok("PATCH", f"/streams/{stream_id}", new_name=f"{name}-renamed")
    state = register(owner)
    assert channel_named(state, "subscriptions", stream_id)["name"] == f"{name}-renamed"  # type: ignore[index]
    assert channel_named(state, "streams", stream_id)["name"] == f"{name}-renamed"  # type: ignore[index]
    theirs = register(person)
    assert channel_named(theirs, "never_subscribed", stream_id)["name"] == f"{name}-renamed"  # type: ignore[index]
    owner.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": f"{name}-renamed"}],
             principals=[person.user_id])  # fmt: skip
    state = register(owner)
    subscribed = channel_named(state, "subscriptions", stream_id)
    assert subscribed is not None and person.user_id in subscribed["subscribers"]
    assert channel_named(state, "streams", stream_id)["subscriber_count"] == 2  # type: ignore[index]
    assert channel_named(register(person), "subscriptions", stream_id) is not None


def test_group_changes_show_at_once(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    first, second = make_user(), make_user()
    name = f"cache group {first.user_id}"
    owner.ok("POST", "/user_groups/create", name=name, description="cached",
             members=[first.user_id])  # fmt: skip
    group_id = next(g["id"] for g in register(owner)["realm_user_groups"] if g["name"] == name)
    owner.ok("POST", f"/user_groups/{group_id}/members", add=[second.user_id])
    assert sorted(group(register(owner), group_id)["members"]) == sorted(
        [first.user_id, second.user_id]
    )
    owner.ok("PATCH", f"/user_groups/{group_id}", description="changed")
    assert group(register(owner), group_id)["description"] == "changed"
    owner.ok("DELETE", f"/users/{second.user_id}")  # a deactivated member leaves its groups
    assert group(register(owner), group_id)["members"] == [first.user_id]


def test_a_profile_field_value_shows_at_once(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    person = make_user(email=unique_email("profile"))
    field_id = owner.ok("POST", "/realm/profile_fields", name=f"Cache {person.user_id}",
                        field_type=1)["id"]  # fmt: skip
    register(owner)
    person.ok("PATCH", "/users/me/profile_data", data=[{"id": field_id, "value": "cached?"}])
    profile = people(register(owner))[person.user_id]["profile_data"]
    assert profile[str(field_id)]["value"] == "cached?"

"""User groups end to end: listing, creation, updates, members and subgroups, deactivation."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from tests.support import rawdb
from tests.support.api import Api, assert_error
from tests.support.org import Watcher, user_with_role
from tests.support.server import ServerProcess
from tests.test_events import check_event_schema

_names = itertools.count(1)
GROUP_EVENTS = ["user_group", "realm_user_groups"]


def group_name() -> str:
    return f"team {next(_names)}"


def system_ids(api: Api) -> dict[str, int]:
    groups = api.ok("GET", "/user_groups")["user_groups"]
    return {g["name"]: g["id"] for g in groups if g["is_system_group"]}


def create(api: Api, members: list[int] | None = None, **params: object) -> int:
    body = api.ok(
        "POST",
        "/user_groups/create",
        name=params.pop("name", group_name()),
        description=params.pop("description", "A group"),
        members=members or [],
        **params,
    )
    return int(body["group_id"])


def deactivate_user_in_db(server: ServerProcess, user_id: int) -> None:
    # Deactivating users is another area's endpoint; set the flag directly.
    rawdb.query(server.db, "UPDATE users SET is_active = 0 WHERE id = ?", (user_id,))


@pytest.fixture(scope="module")
def guest(server: ServerProcess) -> Api:
    return user_with_role(server, "guest")


def test_system_groups_list_members_by_role(owner: Api, make_user: Callable[..., Api]) -> None:
    member = make_user()
    groups = {g["name"]: g for g in member.ok("GET", "/user_groups")["user_groups"]}
    owner_id = owner.ok("GET", "/users/me")["user_id"]
    assert owner_id in groups["role:owners"]["members"]
    assert member.user_id in groups["role:members"]["members"]  # type: ignore[attr-defined]
    assert member.user_id in groups["role:fullmembers"]["members"]  # type: ignore[attr-defined]
    assert groups["role:members"]["direct_subgroup_ids"] == [groups["role:fullmembers"]["id"]]
    assert groups["role:administrators"]["direct_subgroup_ids"] == [groups["role:owners"]["id"]]
    nobody = groups["role:nobody"]["id"]
    assert all(groups["role:owners"][s] == nobody for s in ("can_manage_group", "can_join_group"))
    assert groups["role:nobody"]["members"] == [] and groups["role:owners"]["is_system_group"]


def test_guests_and_bots_cannot_use_group_endpoints(
    server: ServerProcess, guest: Api, owner: Api
) -> None:
    bot = user_with_role(server, "member", bot=True)
    ids = system_ids(owner)
    for api, message in ((guest, "Not allowed for guest users"),):
        assert_error(api.get("/user_groups"), message)
        assert_error(
            api.post("/user_groups/create", name="g", description="", members="[]"), message
        )
        assert_error(api.get(f"/user_groups/{ids['role:members']}/members"), message)
    # Bots may not use these endpoints, except changing members (SPEC, level 496).
    assert_error(bot.get("/user_groups"), "This endpoint does not accept bot requests.")
    assert_error(
        bot.post("/user_groups/create", name="g", description="", members="[]"),
        "This endpoint does not accept bot requests.",
    )


def test_bots_change_the_members_of_groups_they_may_manage(
    server: ServerProcess, owner: Api, make_user: Callable[..., Api]
) -> None:
    bot = user_with_role(server, "member", bot=True)
    person = make_user()
    watcher = Watcher(person, GROUP_EVENTS)
    nobody = system_ids(owner)["role:nobody"]
    group_id = create(owner)
    owner.ok("PATCH", f"/user_groups/{group_id}", can_add_members_group={"new": nobody})
    assert_error(
        bot.post(f"/user_groups/{group_id}/members", add=f"[{person.user_id}]"),  # type: ignore[attr-defined]
        "Insufficient permission",
    )
    allowed = {"direct_members": [bot.user_id], "direct_subgroups": []}  # type: ignore[attr-defined]
    owner.ok("PATCH", f"/user_groups/{group_id}", can_add_members_group={"new": allowed})
    bot.ok("POST", f"/user_groups/{group_id}/members", add=f"[{person.user_id}]")  # type: ignore[attr-defined]
    added = [e for e in watcher.events() if e.get("op") == "add_members"]
    assert [(e["group_id"], e["user_ids"]) for e in added] == [(group_id, [person.user_id])]  # type: ignore[attr-defined]
    members = owner.ok("GET", f"/user_groups/{group_id}/members")["members"]
    assert person.user_id in members  # type: ignore[attr-defined]


def test_create_group_sends_add_and_defaults_to_creator_management(
    make_user: Callable[..., Api], owner: Api
) -> None:
    creator, other, watcher_user = make_user(), make_user(), make_user()
    watcher = Watcher(watcher_user, GROUP_EVENTS)
    ids = system_ids(owner)
    name = group_name()
    group_id = create(
        creator,
        [other.user_id],  # type: ignore[attr-defined]
        name=name,
        subgroups=[ids["role:moderators"]],
        can_mention_group=ids["role:members"],
        bogus="x",
    )
    events = watcher.events()
    assert [e["op"] for e in events] == ["add", "add_subgroups"]
    for event in events:
        check_event_schema(event)
    group = events[0]["group"]
    assert group["name"] == name and group["members"] == [other.user_id]  # type: ignore[attr-defined]
    assert group["creator_id"] == creator.user_id  # type: ignore[attr-defined]
    assert group["can_manage_group"] == {
        "direct_members": [creator.user_id],  # type: ignore[attr-defined]
        "direct_subgroups": [],
    }
    assert group["can_mention_group"] == ids["role:members"]
    assert group["can_leave_group"] == ids["role:everyone"]
    assert group["can_join_group"] == ids["role:nobody"]
    watcher.check(events, ["realm_user_groups"])
    body = creator.ok(
        "POST", "/user_groups/create", name=group_name(), description="", members=[], bogus=1
    )
    assert body["ignored_parameters_unsupported"] == ["bogus"]
    assert group_id > 0


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("   ", "User group name can't be empty!"),
        ("x" * 101, "User group name cannot exceed 100 characters."),
        ("role:mine", "User group name cannot start with 'role:'."),
        ("@team", "User group name cannot start with '@'."),
    ],
)
def test_bad_group_names(owner: Api, name: str, message: str) -> None:
    assert_error(
        owner.post("/user_groups/create", name=name, description="", members="[]"), message
    )


def test_create_errors(server: ServerProcess, owner: Api, make_user: Callable[..., Api]) -> None:
    name = group_name()
    create(owner, name=name)
    assert_error(
        owner.post("/user_groups/create", name=name, description="", members="[]"),
        f"User group '{name}' already exists.",
    )
    gone = make_user()
    deactivate_user_in_db(server, gone.user_id)  # type: ignore[attr-defined]
    assert_error(
        owner.post(
            "/user_groups/create",
            name=group_name(),
            description="",
            members=f"[{gone.user_id}]",  # type: ignore[attr-defined]
        ),
        f"Invalid user ID: {gone.user_id}",  # type: ignore[attr-defined]
    )
    assert_error(
        owner.post(
            "/user_groups/create",
            name=group_name(),
            description="",
            members="[]",
            subgroups="[999999]",
        ),
        "Invalid user group ID: 999999",
    )
    assert_error(
        owner.post("/user_groups/create", name=group_name(), members="[]"),
        "Missing 'description' argument",
        "REQUEST_VARIABLE_MISSING",
    )
    ids = system_ids(owner)
    assert_error(
        owner.post(
            "/user_groups/create",
            name=group_name(),
            description="",
            members="[]",
            can_manage_group=ids["role:everyone"],
        ),
        "'can_manage_group' setting cannot be set to 'role:everyone' group.",
    )


def test_members_need_permission_to_create_when_restricted(
    owner: Api, make_user: Callable[..., Api]
) -> None:
    ids = system_ids(owner)
    owner.ok("PATCH", "/realm", can_create_groups={"new": ids["role:administrators"]})
    try:
        assert_error(
            make_user().post(
                "/user_groups/create", name=group_name(), description="", members="[]"
            ),
            "Insufficient permission",
        )
    finally:
        owner.ok("PATCH", "/realm", can_create_groups={"new": ids["role:members"]})


def test_update_group_and_its_permissions(
    owner: Api, make_user: Callable[..., Api], server: ServerProcess
) -> None:
    creator, stranger = make_user(), make_user()
    admin = user_with_role(server, "admin")
    ids = system_ids(owner)
    group_id = create(creator)
    watcher = Watcher(stranger, GROUP_EVENTS)
    new_name = group_name()
    creator.ok(
        "PATCH",
        f"/user_groups/{group_id}",
        name=new_name,
        description="Renamed",
        can_join_group={"new": ids["role:members"]},
    )
    events = watcher.events()
    assert [list(e["data"]) for e in events] == [["name"], ["description"], ["can_join_group"]]
    for event in events:
        check_event_schema(event)
    watcher.check(events, ["realm_user_groups"])
    path = f"/user_groups/{group_id}"
    assert_error(creator.patch(path), "No new data supplied")
    assert_error(stranger.patch(path, name="mine"), "Insufficient permission")
    # can_manage_all_groups defaults to owners: administrators manage only their own groups.
    assert_error(admin.patch(path, description="admin"), "Insufficient permission")
    owner.ok("PATCH", path, description="owner was here")
    assert_error(owner.patch("/user_groups/999999", name="x"), "Invalid user group")
    assert_error(
        owner.patch(f"/user_groups/{ids['role:members']}", name="x"), "Insufficient permission"
    )
    taken = group_name()
    create(owner, name=taken)
    assert_error(creator.patch(path, name=taken), f"User group '{taken}' already exists.")
    assert_error(
        creator.patch(path, can_join_group={"new": ids["role:members"], "old": ids["role:nobody"]}),
        "'old' value does not match the expected value.",
        "EXPECTATION_MISMATCH",
    )


def test_members_add_delete_and_self_join(
    owner: Api, make_user: Callable[..., Api], server: ServerProcess
) -> None:
    creator, joiner, other = make_user(), make_user(), make_user()
    ids = system_ids(owner)
    group_id = create(creator)
    path = f"/user_groups/{group_id}/members"
    watcher = Watcher(other, GROUP_EVENTS)
    creator.ok("POST", path, add=[other.user_id, joiner.user_id])  # type: ignore[attr-defined]
    creator.ok("POST", path, delete=[joiner.user_id])  # type: ignore[attr-defined]
    events = watcher.events()
    assert [e["op"] for e in events] == ["add_members", "remove_members"]
    for event in events:
        check_event_schema(event)
    watcher.check(events, ["realm_user_groups"])
    # Joining yourself needs can_join_group (role:nobody by default).
    me = [joiner.user_id]  # type: ignore[attr-defined]
    assert_error(joiner.post(path, add=me), "Insufficient permission")
    creator.ok("PATCH", f"/user_groups/{group_id}", can_join_group={"new": ids["role:members"]})
    joiner.ok("POST", path, add=me)
    joiner.ok("POST", path, delete=me)  # can_leave_group: everyone
    assert_error(joiner.post(path, add=[other.user_id]), "Insufficient permission")  # type: ignore[attr-defined]
    assert_error(
        creator.post(path, add=[other.user_id]),  # type: ignore[attr-defined]
        f"User {other.user_id} is already a member of this group",  # type: ignore[attr-defined]
    )
    assert_error(
        creator.post(path, delete=me),
        f"There is no member '{joiner.user_id}' in this user group",  # type: ignore[attr-defined]
    )
    assert_error(
        creator.post(path),
        'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or '
        '"delete_subgroups".',
    )
    assert [e["op"] for e in watcher.events()] == ["update", "add_members", "remove_members"]
    gone = make_user()
    joins = watcher.events()  # a new account joins its role's system groups
    assert {(e["op"], tuple(e["user_ids"])) for e in joins} == {("add_members", (gone.user_id,))}  # type: ignore[attr-defined]
    deactivate_user_in_db(server, gone.user_id)  # type: ignore[attr-defined]
    watcher.events()  # the new user's system group memberships
    assert_error(creator.post(path, add=[gone.user_id]), f"Invalid user ID: {gone.user_id}")  # type: ignore[attr-defined]
    # A failing part rolls back the parts before it.
    assert_error(
        creator.post(path, add=me, delete=[gone.user_id]),  # type: ignore[attr-defined]
        f"Invalid user ID: {gone.user_id}",  # type: ignore[attr-defined]
    )
    members = owner.ok("GET", path)["members"]
    assert members == [other.user_id] and watcher.events() == []  # type: ignore[attr-defined]


def test_subgroups_and_cycles(owner: Api, make_user: Callable[..., Api]) -> None:
    creator, watcher_user = make_user(), make_user()
    top, middle, bottom = create(creator), create(creator), create(creator, [watcher_user.user_id])  # type: ignore[attr-defined]
    watcher = Watcher(watcher_user, GROUP_EVENTS)
    creator.ok("POST", f"/user_groups/{top}/members", add_subgroups=[middle])
    creator.ok("POST", f"/user_groups/{middle}/subgroups", add=[bottom])
    assert_error(
        creator.post(f"/user_groups/{bottom}/members", add_subgroups=f"[{top}]"),
        f"User group {bottom} is already a subgroup of one of the passed subgroups.",
    )
    assert_error(
        creator.post(f"/user_groups/{top}/subgroups", add=f"[{top}]"),
        f"User group {top} is already a subgroup of one of the passed subgroups.",
    )
    assert_error(
        creator.post(f"/user_groups/{top}/subgroups", add=f"[{middle}]"),
        f"User group {middle} is already a subgroup of this group.",
    )
    assert_error(
        creator.post(f"/user_groups/{top}/subgroups", delete=f"[{bottom}]"),
        f"User group {bottom} is not a subgroup of this group.",
    )
    assert_error(
        creator.post(f"/user_groups/{top}/subgroups", add="[999999]"),
        "Invalid user group ID: 999999",
    )
    assert_error(
        creator.post(f"/user_groups/{top}/subgroups"),
        'Nothing to do. Specify at least one of "add" or "delete".',
    )
    assert owner.ok("GET", f"/user_groups/{top}/subgroups")["subgroups"] == [middle, bottom]
    direct = owner.ok("GET", f"/user_groups/{top}/subgroups", direct_subgroup_only=True)
    assert direct["subgroups"] == [middle]
    uid = watcher_user.user_id  # type: ignore[attr-defined]
    assert owner.ok("GET", f"/user_groups/{top}/members")["members"] == [uid]
    assert owner.ok("GET", f"/user_groups/{top}/members", direct_member_only=True)["members"] == []
    check = owner.ok("GET", f"/user_groups/{top}/members/{uid}")
    assert check["is_user_group_member"] is True
    check = owner.ok("GET", f"/user_groups/{top}/members/{uid}", direct_member_only=True)
    assert check["is_user_group_member"] is False
    assert_error(owner.get(f"/user_groups/{top}/members/999999"), "No such user")
    assert_error(owner.get("/user_groups/999999/members"), "Invalid user group")
    creator.ok("POST", f"/user_groups/{middle}/subgroups", delete=[bottom])
    events = watcher.events()
    assert [e["op"] for e in events] == ["add_subgroups", "add_subgroups", "remove_subgroups"]
    for event in events:
        check_event_schema(event)
    watcher.check(events, ["realm_user_groups"])


def test_system_groups_can_be_subgroups_but_not_edited(owner: Api) -> None:
    ids = system_ids(owner)
    group_id = create(owner)
    owner.ok("POST", f"/user_groups/{group_id}/subgroups", add=[ids["role:administrators"]])
    owner_id = owner.ok("GET", "/users/me")["user_id"]
    members = owner.ok("GET", f"/user_groups/{group_id}/members")["members"]
    assert owner_id in members  # owners are administrators through a subgroup
    assert_error(
        owner.post(f"/user_groups/{ids['role:members']}/members", add=f"[{owner_id}]"),
        "Insufficient permission",
    )


def test_deactivation_objections_events_and_reactivation(
    owner: Api, make_user: Callable[..., Api]
) -> None:
    creator, modern_user = make_user(), make_user()
    ids = system_ids(owner)
    used, parent = create(creator), create(creator)
    creator.ok("POST", f"/user_groups/{parent}/subgroups", add=[used])
    body = assert_error(
        creator.post(f"/user_groups/{used}/deactivate"),
        "Cannot deactivate user group in use.",
        "CANNOT_DEACTIVATE_GROUP_IN_USE",
    )
    assert body["objections"] == [{"type": "subgroup", "supergroup_ids": [parent]}]
    creator.ok("POST", f"/user_groups/{parent}/subgroups", delete=[used])
    owner.ok("PATCH", "/realm", can_add_custom_emoji_group={"new": used})
    body = assert_error(
        creator.post(f"/user_groups/{used}/deactivate"), None, "CANNOT_DEACTIVATE_GROUP_IN_USE"
    )
    assert body["objections"] == [{"type": "realm", "settings": ["can_add_custom_emoji_group"]}]
    owner.ok("PATCH", "/realm", can_add_custom_emoji_group={"new": ids["role:members"]})

    modern = Watcher(modern_user, GROUP_EVENTS)
    legacy = Watcher(modern_user, GROUP_EVENTS, include_deactivated_groups=False)
    creator.ok("POST", f"/user_groups/{used}/deactivate")
    assert_error(creator.post(f"/user_groups/{used}/deactivate"), "User group is deactivated.")
    # Since feature level 391 members of a deactivated group can still change.
    creator.ok("POST", f"/user_groups/{used}/members", add=[modern_user.user_id])  # type: ignore[attr-defined]
    assert_error(owner.get(f"/user_groups/{used}/members"), "User group is deactivated.")
    listed = [g["id"] for g in owner.ok("GET", "/user_groups")["user_groups"]]
    assert used not in listed
    listed = owner.ok("GET", "/user_groups", include_deactivated_groups=True)["user_groups"]
    assert [g["deactivated"] for g in listed if g["id"] == used] == [True]
    creator.ok("PATCH", f"/user_groups/{used}", deactivated=False)
    modern_events = modern.events()
    assert [e["op"] for e in modern_events] == ["update", "add_members", "update"]
    assert modern_events[0]["data"] == {"deactivated": True}
    legacy_events = legacy.events()
    assert [e["op"] for e in legacy_events] == ["remove", "add_members", "add"]
    for event in modern_events + legacy_events:
        check_event_schema(event)
    modern.check(modern_events, ["realm_user_groups"])
    listed = [g["id"] for g in owner.ok("GET", "/user_groups")["user_groups"]]
    assert used in listed

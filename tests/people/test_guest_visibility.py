"""Limited user visibility for guests (`can_access_all_users_group` = role:members): what a
guest reads (register state, GET /users, presence, messages, mentions) and the setting.

The organization: tests/support/guests.py (a server of this module's own).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from tests.support import flutter_types as fl
from tests.support import mobile
from tests.support.api import Api, assert_error
from tests.support.apply_events import unknown_user
from tests.support.flutter_events import parse_event
from tests.support.guests import (
    INCOMPLETE,
    JsonDict,
    Org,
    create_person,
    limit_guests,
    people_of,
    running_org,
    uid,
)
from tests.support.mobile import call
from tests.support.people import events, register, verify
from tests.support.server import ServerProcess, cli


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Org]:
    with running_org(tmp_path_factory.mktemp("guestvis")) as made:
        yield made


@pytest.fixture(scope="module")
def limited(org: Org) -> Org:
    return limit_guests(org)


def test_everyone_sees_everyone_by_default(org: Org) -> None:
    state = org.guest.ok("POST", "/register", fetch_event_types=["realm_user", "realm"])
    assert state["realm_can_access_all_users_group"] == org.group_ids["role:everyone"]
    assert people_of(state)[uid(org.stranger)]["full_name"] == "Stranger"


def test_only_everyone_or_members_may_be_chosen(org: Org) -> None:
    before = org.owner.ok("GET", "/server_settings")
    assert_error(
        org.owner.patch(
            "/realm", can_access_all_users_group={"new": org.group_ids["role:moderators"]}
        ),
        "'can_access_all_users_group' setting cannot be set to 'role:moderators' group.",
    )
    state = org.owner.ok("POST", "/register", fetch_event_types=["realm"])
    assert state["realm_can_access_all_users_group"] == org.group_ids["role:everyone"]
    assert before == org.owner.ok("GET", "/server_settings")


def test_guest_register_shows_strangers_as_unknownpeople_of(limited: Org) -> None:
    org = limited
    state = org.guest.ok("POST", "/register", fetch_event_types=["realm_user"])
    users = people_of(state)
    placeholder = unknown_user(uid(org.stranger), org.host)
    del placeholder["is_active"]  # the register lists carry no is_active, as Zulip's
    assert users[uid(org.stranger)] == placeholder
    assert users[uid(org.friend)]["full_name"] == "Friend"
    assert users[uid(org.guest)]["full_name"] == "Guest"
    assert not any(p["is_bot"] for p in state["realm_users"] if p["full_name"] == "Unknown user")
    assert {b["full_name"] for b in state["cross_realm_bots"]} >= {"Welcome Bot"}
    # Members still see everyone.
    member_view = people_of(org.friend.ok("POST", "/register", fetch_event_types=["realm_user"]))
    assert member_view[uid(org.stranger)]["full_name"] == "Stranger"


def test_user_list_incomplete_leaves_strangers_out(limited: Org) -> None:
    org = limited
    state = org.guest.ok("POST", "/register", fetch_event_types=["realm_user"], **INCOMPLETE)
    users = people_of(state)
    assert uid(org.stranger) not in users
    assert users[uid(org.friend)]["full_name"] == "Friend"


def test_get_users_as_a_guest(limited: Org) -> None:
    org = limited
    members = {m["user_id"]: m for m in org.guest.ok("GET", "/users")["members"]}
    assert members[uid(org.stranger)] == unknown_user(uid(org.stranger), org.host)
    assert members[uid(org.friend)]["full_name"] == "Friend"
    assert_error(org.guest.get(f"/users/{uid(org.stranger)}"), "Insufficient permission")
    assert_error(
        org.guest.get(f"/users/user{uid(org.stranger)}@{org.host}"), "Insufficient permission"
    )
    assert org.guest.ok("GET", f"/users/{uid(org.friend)}")["user"]["full_name"] == "Friend"
    stranger = org.owner.ok("GET", f"/users/{uid(org.stranger)}")["user"]
    assert stranger["full_name"] == "Stranger"


def test_presence_and_status_reach_guests_by_default(limited: Org) -> None:
    """As Zulip without CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE: user ids and their
    availability are all a guest learns of people it may not access."""
    org = limited
    org.stranger.ok("POST", "/users/me/presence", status="active")
    queue = register(org.guest, event_types=["user_status"])
    org.stranger.ok("POST", "/users/me/status", status_text="elsewhere")
    assert [e["user_id"] for e in events(org.guest, queue)] == [uid(org.stranger)]
    state = org.guest.ok(
        "POST", "/register", fetch_event_types=["presence", "user_status"], slim_presence=True
    )
    assert str(uid(org.stranger)) in state["presences"]
    assert state["user_status"][str(uid(org.stranger))]["status_text"] == "elsewhere"
    org.guest.ok("GET", f"/users/{uid(org.stranger)}/presence")
    assert_error(org.guest.get(f"/users/{uid(org.stranger)}/status"), "Insufficient permission")


def test_presence_limited_on_request(start_server: Callable[..., ServerProcess]) -> None:
    server = start_server({"TEAMCHAT_GUEST_ACCESS_LIMITS_PRESENCE": "1"})
    with Api(server.url, server.owner_email, server.owner_key) as owner:
        groups = owner.ok("GET", "/user_groups")["user_groups"]
        members = next(g["id"] for g in groups if g["name"] == "role:members")
        owner.ok("PATCH", "/realm", can_access_all_users_group={"new": members})
        guest = create_person(server, owner, "Guest", role=600)
        subs = guest.ok("GET", "/users/me/subscriptions")["subscriptions"]
        guest.ok("DELETE", "/users/me/subscriptions", subscriptions=[s["name"] for s in subs])
        friend = create_person(server, owner, "Friend")
        stranger = create_person(server, owner, "Stranger")
        owner.ok(
            "POST",
            "/users/me/subscriptions",
            subscriptions=[{"name": "room"}],
            principals=[uid(guest), uid(friend)],
        )
        for api in (friend, stranger):
            api.ok("POST", "/users/me/presence", status="active")
            api.ok("POST", "/users/me/status", status_text="here")
        queue = register(guest, event_types=["presence", "user_status"])
        stranger.ok("POST", "/users/me/status", status_text="elsewhere")
        friend.ok("POST", "/users/me/status", status_text="nearby")
        assert [e["user_id"] for e in events(guest, queue)] == [uid(friend)]
        state = guest.ok(
            "POST", "/register", fetch_event_types=["presence", "user_status"], slim_presence=True
        )
        assert set(state["presences"]) == {str(uid(friend))}
        assert set(state["user_status"]) == {str(uid(friend))}
        assert_error(guest.get(f"/users/{uid(stranger)}/presence"), "Insufficient permission")
        assert guest.ok("GET", f"/users/{uid(friend)}/presence")["presence"]

        # Gaining access brings the person's status along, so the state stays whole.
        def join() -> None:
            owner.ok(
                "POST",
                "/users/me/subscriptions",
                subscriptions=[{"name": "room"}],
                principals=[uid(stranger)],
            )

        found = verify(guest, join)
        statuses = [e for e in found if e["type"] == "user_status"]
        assert statuses == [
            {
                "type": "user_status",
                "user_id": uid(stranger),
                "status_text": "elsewhere",
                "id": statuses[0]["id"],
            }
        ]
        for api in (guest, friend, stranger):
            api.close()


def test_guest_mentions_only_people_it_can_access(limited: Org) -> None:
    org = limited
    content = f"@**Stranger|{uid(org.stranger)}** and @**Friend|{uid(org.friend)}**"
    rendered = org.guest.ok("POST", "/messages/render", content=content)["rendered"]
    assert f'data-user-id="{uid(org.friend)}"' in rendered
    assert f'data-user-id="{uid(org.stranger)}"' not in rendered
    assert f"@<strong>Stranger|{uid(org.stranger)}</strong>" in rendered
    member_view = org.friend.ok("POST", "/messages/render", content=content)["rendered"]
    assert f'data-user-id="{uid(org.stranger)}"' in member_view


def test_guest_cannot_message_a_stranger(limited: Org) -> None:
    org = limited
    before = org.stranger.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)
    assert_error(
        org.guest.post("/messages", type="direct", to=[uid(org.stranger)], content="hi"),
        "You do not have permission to access some of the recipients.",
    )
    after = org.stranger.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)
    assert before["messages"] == after["messages"]


def test_channel_message_from_a_stranger_shows_an_unknown_sender(limited: Org) -> None:
    org = limited
    queue = register(org.guest, event_types=["message"])
    org.stranger.ok(
        "POST", "/messages", type="stream", to="guest-room", topic="t", content="drive-by"
    )
    [event] = events(org.guest, queue)
    placeholder = {
        "sender_id": uid(org.stranger),
        "sender_full_name": "Unknown user",
        "sender_email": f"user{uid(org.stranger)}@{org.host}",
        "avatar_url": "/static/images/unknown-user-avatar.png",
    }
    assert {k: event["message"][k] for k in placeholder} == placeholder
    fetched = org.guest.ok(
        "GET", "/messages", anchor="newest", num_before=1, num_after=0, apply_markdown=True
    )["messages"][-1]
    assert {k: fetched[k] for k in placeholder} == placeholder
    # The placeholder avatar is served, to anyone, as a PNG.
    image = httpx.get(org.server.url + placeholder["avatar_url"])
    assert image.status_code == 200, image.text
    assert image.headers["content-type"] == "image/png"
    assert image.content.startswith(b"\x89PNG\r\n\x1a\n")
    # The friend, a member, sees the sender.
    seen = org.friend.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)
    assert seen["messages"][-1]["sender_full_name"] == "Stranger"


def test_the_mobile_app_decodes_what_a_limited_guest_gets(limited: Org) -> None:
    org = limited
    snapshot = call(org.guest, "POST", "/register", fl.InitialSnapshot, **mobile.REGISTER)
    queue_id = snapshot.queue_id
    assert queue_id is not None
    newcomer = org.person("Passer-by")
    principals = [uid(newcomer)]
    room = [{"name": "guest-room"}]
    org.owner.ok("POST", "/users/me/subscriptions", subscriptions=room, principals=principals)
    org.owner.ok(
        "DELETE", "/users/me/subscriptions", subscriptions=["guest-room"], principals=principals
    )
    found = [e for e in mobile.events(org.guest, queue_id) if e["type"] == "realm_user"]
    assert [e["op"] for e in found] == ["add", "add", "remove"]  # placeholder, person, gone
    for event in found:
        assert parse_event(event) is not None, event
    newcomer.close()


def test_back_to_everyone_shows_everyone(limited: Org) -> None:
    org = limited
    value = {"new": org.group_ids["role:everyone"]}

    def unlimit() -> None:
        org.owner.ok("PATCH", "/realm", can_access_all_users_group=value)

    found = verify(org.guest, unlimit, **INCOMPLETE)
    added = {e["person"]["user_id"]: e["person"] for e in found if e["type"] == "realm_user"}
    assert added[uid(org.stranger)]["full_name"] == "Stranger"
    assert all(e["op"] == "add" for e in found if e["type"] == "realm_user")
    assert org.guest.ok("GET", f"/users/{uid(org.stranger)}")["user"]["full_name"] == "Stranger"


def test_the_admin_cli_limits_guests_of_a_live_server(limited: Org) -> None:
    org = limited
    queue = register(org.guest, event_types=["realm", "realm_user"])
    cli(org.server.db, "admin", "realm", "set", "can_access_all_users_group", "role:members")
    deadline = time.monotonic() + 10
    found: list[JsonDict] = []
    while time.monotonic() < deadline and not any(e["type"] == "realm" for e in found):
        time.sleep(0.2)
        found = events(org.guest, queue)
    [realm_event] = [e for e in found if e["type"] == "realm"]
    assert realm_event["data"] == {"can_access_all_users_group": org.group_ids["role:members"]}
    lost = {e["person"]["user_id"] for e in found if e["type"] == "realm_user"}
    assert uid(org.stranger) in lost
    shown = json.loads(cli(org.server.db, "admin", "realm", "show", "--json").stdout)
    assert shown["can_access_all_users_group"] in ("role:members", org.group_ids["role:members"])
    cli(org.server.db, "admin", "realm", "set", "can_access_all_users_group", "role:everyone")

"""Limited user visibility for guests (`can_access_all_users_group` = role:members).

A server of its own: the setting changes what every guest of the organization sees. The
guest here shares the channel `guest-room` with `friend` only; `stranger` shares nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.support import flutter_types as fl
from tests.support import mobile
from tests.support.api import Api, assert_error
from tests.support.apply_events import apply_events, unknown_user
from tests.support.flutter_events import parse_event
from tests.support.mobile import call
from tests.support.people import events, login, new_email, register, verify
from tests.support.server import ServerProcess, cli

JsonDict = dict[str, Any]
PASSWORD = "pw-guest-123456"
INCOMPLETE = {"client_capabilities": {"user_list_incomplete": True}}


def create_person(server: ServerProcess, owner: Api, name: str, role: int = 400) -> Api:
    """A new account (role 600: a guest), logged in."""
    email = new_email()
    body = owner.ok("POST", "/users", email=email, password=PASSWORD, full_name=name)
    if role != 400:
        owner.ok("PATCH", f"/users/{body['user_id']}", role=role)
    return login(server.url, email, PASSWORD)


@dataclass
class Org:
    server: ServerProcess
    owner: Api
    guest: Api
    friend: Api
    stranger: Api
    host: str
    group_ids: dict[str, int]

    def person(self, name: str) -> Api:
        return create_person(self.server, self.owner, name)


def _ids(api: Api) -> int:
    user_id: int = api.user_id  # type: ignore[attr-defined]
    return user_id


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Org]:
    server = ServerProcess(tmp_path_factory.mktemp("guestvis")).start()
    owner = Api(server.url, server.owner_email, server.owner_key)
    groups = owner.ok("GET", "/user_groups")["user_groups"]
    group_ids = {g["name"]: g["id"] for g in groups if g["is_system_group"]}
    host = owner.ok("POST", "/register", fetch_event_types=["realm"])["realm_bot_domain"]
    guest = create_person(server, owner, "Guest", role=600)
    # The guest leaves the default channels, which every account shares.
    subs = guest.ok("GET", "/users/me/subscriptions")["subscriptions"]
    guest.ok("DELETE", "/users/me/subscriptions", subscriptions=[s["name"] for s in subs])
    friend = create_person(server, owner, "Friend")
    stranger = create_person(server, owner, "Stranger")
    made = Org(server, owner, guest, friend, stranger, host, group_ids)
    owner.ok(
        "POST",
        "/users/me/subscriptions",
        subscriptions=[{"name": "guest-room"}],
        principals=[_ids(made.guest), _ids(made.friend)],
    )
    owner.ok("DELETE", "/users/me/subscriptions", subscriptions=["guest-room"])
    yield made
    for api in (made.guest, made.friend, made.stranger, owner):
        api.close()
    server.stop()


@pytest.fixture(scope="module")
def limited(org: Org) -> Org:
    """The organization with guests limited (set once through the API, checked there): the
    guest's state after the events equals a fresh one, strangers now placeholders."""
    value = {"new": org.group_ids["role:members"]}

    def limit() -> None:
        org.owner.ok("PATCH", "/realm", can_access_all_users_group=value)

    found = verify(org.guest, limit)
    [event] = [e for e in found if e["type"] == "realm"]
    assert event["op"] == "update_dict"
    assert event["data"] == {"can_access_all_users_group": org.group_ids["role:members"]}
    lost = {e["person"]["user_id"] for e in found if e["type"] == "realm_user"}
    assert _ids(org.stranger) in lost
    assert {_ids(org.friend), _ids(org.guest)}.isdisjoint(lost)
    assert all(e["op"] == "remove" for e in found if e["type"] == "realm_user")
    return org


def _users(state: JsonDict) -> dict[int, JsonDict]:
    return {p["user_id"]: p for p in state["realm_users"] + state["realm_non_active_users"]}


def test_everyone_sees_everyone_by_default(org: Org) -> None:
    state = org.guest.ok("POST", "/register", fetch_event_types=["realm_user", "realm"])
    assert state["realm_can_access_all_users_group"] == org.group_ids["role:everyone"]
    assert _users(state)[_ids(org.stranger)]["full_name"] == "Stranger"


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


def test_guest_register_shows_strangers_as_unknown_users(limited: Org) -> None:
    org = limited
    state = org.guest.ok("POST", "/register", fetch_event_types=["realm_user"])
    users = _users(state)
    assert users[_ids(org.stranger)] == unknown_user(_ids(org.stranger), org.host)
    assert users[_ids(org.friend)]["full_name"] == "Friend"
    assert users[_ids(org.guest)]["full_name"] == "Guest"
    assert not any(p["is_bot"] for p in state["realm_users"] if p["full_name"] == "Unknown user")
    assert {b["full_name"] for b in state["cross_realm_bots"]} >= {"Welcome Bot"}
    # Members still see everyone.
    member_view = _users(org.friend.ok("POST", "/register", fetch_event_types=["realm_user"]))
    assert member_view[_ids(org.stranger)]["full_name"] == "Stranger"


def test_user_list_incomplete_leaves_strangers_out(limited: Org) -> None:
    org = limited
    state = org.guest.ok("POST", "/register", fetch_event_types=["realm_user"], **INCOMPLETE)
    users = _users(state)
    assert _ids(org.stranger) not in users
    assert users[_ids(org.friend)]["full_name"] == "Friend"


def test_get_users_as_a_guest(limited: Org) -> None:
    org = limited
    members = {m["user_id"]: m for m in org.guest.ok("GET", "/users")["members"]}
    assert members[_ids(org.stranger)] == unknown_user(_ids(org.stranger), org.host)
    assert members[_ids(org.friend)]["full_name"] == "Friend"
    assert_error(org.guest.get(f"/users/{_ids(org.stranger)}"), "Insufficient permission")
    assert_error(
        org.guest.get(f"/users/user{_ids(org.stranger)}@{org.host}"), "Insufficient permission"
    )
    assert org.guest.ok("GET", f"/users/{_ids(org.friend)}")["user"]["full_name"] == "Friend"
    stranger = org.owner.ok("GET", f"/users/{_ids(org.stranger)}")["user"]
    assert stranger["full_name"] == "Stranger"


def test_presence_and_status_reach_guests_by_default(limited: Org) -> None:
    """As Zulip without CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE: user ids and their
    availability are all a guest learns of people it may not access."""
    org = limited
    org.stranger.ok("POST", "/users/me/presence", status="active")
    queue = register(org.guest, event_types=["user_status"])
    org.stranger.ok("POST", "/users/me/status", status_text="elsewhere")
    assert [e["user_id"] for e in events(org.guest, queue)] == [_ids(org.stranger)]
    state = org.guest.ok(
        "POST", "/register", fetch_event_types=["presence", "user_status"], slim_presence=True
    )
    assert str(_ids(org.stranger)) in state["presences"]
    assert state["user_status"][str(_ids(org.stranger))]["status_text"] == "elsewhere"
    org.guest.ok("GET", f"/users/{_ids(org.stranger)}/presence")
    assert_error(org.guest.get(f"/users/{_ids(org.stranger)}/status"), "Insufficient permission")


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
            principals=[_ids(guest), _ids(friend)],
        )
        for api in (friend, stranger):
            api.ok("POST", "/users/me/presence", status="active")
            api.ok("POST", "/users/me/status", status_text="here")
        queue = register(guest, event_types=["presence", "user_status"])
        stranger.ok("POST", "/users/me/status", status_text="elsewhere")
        friend.ok("POST", "/users/me/status", status_text="nearby")
        assert [e["user_id"] for e in events(guest, queue)] == [_ids(friend)]
        state = guest.ok(
            "POST", "/register", fetch_event_types=["presence", "user_status"], slim_presence=True
        )
        assert set(state["presences"]) == {str(_ids(friend))}
        assert set(state["user_status"]) == {str(_ids(friend))}
        assert_error(guest.get(f"/users/{_ids(stranger)}/presence"), "Insufficient permission")
        assert guest.ok("GET", f"/users/{_ids(friend)}/presence")["presence"]

        # Gaining access brings the person's status along, so the state stays whole.
        def join() -> None:
            owner.ok(
                "POST",
                "/users/me/subscriptions",
                subscriptions=[{"name": "room"}],
                principals=[_ids(stranger)],
            )

        found = verify(guest, join)
        statuses = [e for e in found if e["type"] == "user_status"]
        assert statuses == [
            {
                "type": "user_status",
                "user_id": _ids(stranger),
                "status_text": "elsewhere",
                "id": statuses[0]["id"],
            }
        ]
        for api in (guest, friend, stranger):
            api.close()


def test_guest_mentions_only_people_it_can_access(limited: Org) -> None:
    org = limited
    content = f"@**Stranger|{_ids(org.stranger)}** and @**Friend|{_ids(org.friend)}**"
    rendered = org.guest.ok("POST", "/messages/render", content=content)["rendered"]
    assert f'data-user-id="{_ids(org.friend)}"' in rendered
    assert f'data-user-id="{_ids(org.stranger)}"' not in rendered
    assert f"@<strong>Stranger|{_ids(org.stranger)}</strong>" in rendered
    member_view = org.friend.ok("POST", "/messages/render", content=content)["rendered"]
    assert f'data-user-id="{_ids(org.stranger)}"' in member_view


def test_guest_cannot_message_a_stranger(limited: Org) -> None:
    org = limited
    before = org.stranger.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)
    assert_error(
        org.guest.post("/messages", type="direct", to=[_ids(org.stranger)], content="hi"),
        "You do not have permission to access some of the recipients.",
    )
    after = org.stranger.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)
    assert before["messages"] == after["messages"]


@pytest.mark.parametrize("params", [{}, INCOMPLETE], ids=["placeholders", "incomplete"])
def test_a_direct_message_gives_access_before_the_message(limited: Org, params: JsonDict) -> None:
    org = limited
    sender = org.person("Writer")

    def write() -> None:
        sender.ok("POST", "/messages", type="direct", to=[_ids(org.guest)], content="hello")

    found = verify(org.guest, write, **params)
    kinds = [(e["type"], e.get("op")) for e in found if e["type"] in ("realm_user", "message")]
    assert kinds == [("realm_user", "add"), ("message", None)]
    assert found[0]["person"]["full_name"] == "Writer"
    sender.close()
    # Now the guest may write back.
    org.guest.ok("POST", "/messages", type="direct", to=[_ids(sender)], content="hi back")


@pytest.mark.parametrize("params", [{}, INCOMPLETE], ids=["placeholders", "incomplete"])
def test_subscribing_and_unsubscribing_change_access(limited: Org, params: JsonDict) -> None:
    org = limited
    newcomer = org.person("Newcomer")
    principals = [_ids(newcomer)]

    def join() -> None:
        org.owner.ok(
            "POST",
            "/users/me/subscriptions",
            subscriptions=[{"name": "guest-room"}],
            principals=principals,
        )

    added = [e for e in verify(org.guest, join, **params) if e["type"] == "realm_user"]
    assert [(e["op"], e["person"]["full_name"]) for e in added] == [("add", "Newcomer")]

    def leave() -> None:
        org.owner.ok(
            "DELETE", "/users/me/subscriptions", subscriptions=["guest-room"], principals=principals
        )

    removed = [e for e in verify(org.guest, leave, **params) if e["type"] == "realm_user"]
    assert removed == [
        {
            "type": "realm_user",
            "op": "remove",
            "person": {"user_id": _ids(newcomer), "full_name": "Unknown user"},
            "id": removed[0]["id"],
        }
    ]
    newcomer.close()


def test_guest_joining_a_channel_gains_its_subscribers(limited: Org) -> None:
    org = limited
    org.owner.ok(
        "POST",
        "/users/me/subscriptions",
        subscriptions=[{"name": "stranger-room"}],
        principals=[_ids(org.stranger)],
    )

    def join() -> None:
        org.owner.ok(
            "POST",
            "/users/me/subscriptions",
            subscriptions=[{"name": "stranger-room"}],
            principals=[_ids(org.guest)],
        )

    found = verify(org.guest, join)
    added = {e["person"]["user_id"] for e in found if e["type"] == "realm_user"}
    assert _ids(org.stranger) in added

    def leave() -> None:
        org.guest.ok("DELETE", "/users/me/subscriptions", subscriptions=["stranger-room"])

    found = verify(org.guest, leave)
    lost = {e["person"]["user_id"] for e in found if e["type"] == "realm_user"}
    assert _ids(org.stranger) in lost


@pytest.mark.parametrize("params", [{}, INCOMPLETE], ids=["placeholders", "incomplete"])
def test_new_people_reach_guests_as_unknown_users(limited: Org, params: JsonDict) -> None:
    org = limited
    email = new_email()
    created: JsonDict = {}

    def create() -> None:
        created.update(
            org.owner.ok("POST", "/users", email=email, password=PASSWORD, full_name="Someone")
        )

    found = [e for e in verify(org.guest, create, **params) if e["type"] == "realm_user"]
    if params:
        assert found == []
    else:
        assert [e["person"] for e in found] == [unknown_user(created["user_id"], org.host)]


@pytest.mark.parametrize("params", [{}, INCOMPLETE], ids=["placeholders", "incomplete"])
def test_deactivation_reaches_guests_as_access_allows(limited: Org, params: JsonDict) -> None:
    org = limited
    mate, other = org.person("Mate"), org.person("Other")
    org.owner.ok(
        "POST",
        "/users/me/subscriptions",
        subscriptions=[{"name": "guest-room"}],
        principals=[_ids(mate)],
    )
    for user in (mate, other):
        found = verify(org.guest, lambda u=user: org.owner.ok("DELETE", f"/users/{_ids(u)}"))
        people = [e for e in found if e["type"] == "realm_user"]
        groups = [e for e in found if e["type"] == "user_group"]
        if user is mate:
            # The guest sees the mate deactivated, and drops it from groups itself.
            assert [e["person"] for e in people] == [{"user_id": _ids(mate), "is_active": False}]
            assert groups == []
        else:
            # An inaccessible person: no realm_user event, only the group exits.
            assert people == []
            assert groups
            assert {e["op"] for e in groups} == {"remove_members"}
        verify(org.guest, lambda u=user: org.owner.ok("POST", f"/users/{_ids(u)}/reactivate"))
    mate.close()
    other.close()


def people_after(api: Api, action: Callable[[], object], **caps: bool) -> list[JsonDict]:
    """Run `action`; check that the people a client holds after applying its realm_user
    events are those of a fresh register. Only those keys: a role change also alters
    permission keys (can_create_streams...) that clients recompute themselves."""
    params: JsonDict = {
        "event_types": ["realm_user"],
        "fetch_event_types": ["realm_user", "realm"],
        "client_capabilities": caps,
        "client_gravatar": False,
    }
    before = api.ok("POST", "/register", **params)
    action()
    found: list[JsonDict] = api.ok(
        "GET", "/events", queue_id=before["queue_id"], last_event_id=-1, dont_block=True
    )["events"]
    fresh = api.ok("POST", "/register", **params)
    incomplete = caps.get("user_list_incomplete", False)
    applied = apply_events(before, found, user_list_incomplete=incomplete)
    for key in ("realm_users", "realm_non_active_users"):
        assert applied[key] == fresh[key], key
    return found


def test_becoming_a_guest_and_back(limited: Org) -> None:
    org = limited
    person = org.person("Convert")
    subs = person.ok("GET", "/users/me/subscriptions")["subscriptions"]
    person.ok("DELETE", "/users/me/subscriptions", subscriptions=[s["name"] for s in subs])

    def set_role(role: int) -> None:
        org.owner.ok("PATCH", f"/users/{_ids(person)}", role=role)

    found = people_after(person, lambda: set_role(600))
    lost = {e["person"]["user_id"] for e in found if e["op"] == "remove"}
    assert {_ids(org.stranger), _ids(org.friend)} <= lost
    assert _ids(person) not in lost
    state = person.ok("POST", "/register", fetch_event_types=["realm_user"])
    assert _users(state)[_ids(org.stranger)]["full_name"] == "Unknown user"
    found = people_after(person, lambda: set_role(400), user_list_incomplete=True)
    added = {e["person"]["user_id"] for e in found if e["op"] == "add"}
    assert lost <= added
    person.close()


def test_channel_message_from_a_stranger_shows_an_unknown_sender(limited: Org) -> None:
    org = limited
    queue = register(org.guest, event_types=["message"])
    org.stranger.ok(
        "POST", "/messages", type="stream", to="guest-room", topic="t", content="drive-by"
    )
    [event] = events(org.guest, queue)
    placeholder = {
        "sender_id": _ids(org.stranger),
        "sender_full_name": "Unknown user",
        "sender_email": f"user{_ids(org.stranger)}@{org.host}",
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
    principals = [_ids(newcomer)]
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
    assert added[_ids(org.stranger)]["full_name"] == "Stranger"
    assert all(e["op"] == "add" for e in found if e["type"] == "realm_user")
    assert org.guest.ok("GET", f"/users/{_ids(org.stranger)}")["user"]["full_name"] == "Stranger"


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
    assert _ids(org.stranger) in lost
    shown = json.loads(cli(org.server.db, "admin", "realm", "show", "--json").stdout)
    assert shown["can_access_all_users_group"] in ("role:members", org.group_ids["role:members"])
    cli(org.server.db, "admin", "realm", "set", "can_access_all_users_group", "role:everyone")

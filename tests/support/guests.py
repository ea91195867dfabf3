"""An organization for the guest-visibility tests: a guest sharing the channel `guest-room`
with `friend` only, and a `stranger` it shares nothing with (each test module starts its
own server: the realm setting changes what every guest sees)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.api import Api
from tests.support.apply_events import apply_events
from tests.support.people import login, new_email, verify
from tests.support.server import ServerProcess

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


def uid(api: Api) -> int:
    user_id: int = api.user_id  # type: ignore[attr-defined]
    return user_id


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


@contextmanager
def running_org(directory: Path) -> Iterator[Org]:
    """A server with the guest, its friend and a stranger (guests not limited yet)."""
    server = ServerProcess(directory).start()
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
        principals=[uid(guest), uid(friend)],
    )
    owner.ok("DELETE", "/users/me/subscriptions", subscriptions=["guest-room"])
    try:
        yield made
    finally:
        for api in (guest, friend, stranger, owner):
            api.close()
        server.stop()


def limit_guests(org: Org) -> Org:
    """Set `can_access_all_users_group` to role:members through the API, checking the
    guest's events: its state after them equals a fresh one, the stranger now unknown."""
    value = {"new": org.group_ids["role:members"]}

    def limit() -> None:
        org.owner.ok("PATCH", "/realm", can_access_all_users_group=value)

    found = verify(org.guest, limit)
    [event] = [e for e in found if e["type"] == "realm"]
    assert event["op"] == "update_dict"
    assert event["data"] == {"can_access_all_users_group": org.group_ids["role:members"]}
    lost = {e["person"]["user_id"] for e in found if e["type"] == "realm_user"}
    assert uid(org.stranger) in lost
    assert {uid(org.friend), uid(org.guest)}.isdisjoint(lost)
    assert all(e["op"] == "remove" for e in found if e["type"] == "realm_user")
    return org


def people_of(state: JsonDict) -> dict[int, JsonDict]:
    return {p["user_id"]: p for p in state["realm_users"] + state["realm_non_active_users"]}


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

"""Limited user visibility for guests: the realm_user events that follow a guest's access as
it changes (direct messages, subscriptions, new people, deactivation, role changes), each
checked with the state-vs-events oracle, with and without `user_list_incomplete`.

The organization: tests/support/guests.py (a server of this module's own).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.apply_events import unknown_user
from tests.support.guests import (
    INCOMPLETE,
    PASSWORD,
    Org,
    limit_guests,
    people_after,
    people_of,
    running_org,
    uid,
)
from tests.support.people import new_email, verify

JsonDict = dict[str, Any]


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Org]:
    with running_org(tmp_path_factory.mktemp("guestevents")) as made:
        yield made


@pytest.fixture(scope="module")
def limited(org: Org) -> Org:
    return limit_guests(org)


@pytest.mark.parametrize("params", [{}, INCOMPLETE], ids=["placeholders", "incomplete"])
def test_a_direct_message_gives_access_before_the_message(limited: Org, params: JsonDict) -> None:
    org = limited
    sender = org.person("Writer")

    def write() -> None:
        sender.ok("POST", "/messages", type="direct", to=[uid(org.guest)], content="hello")

    found = verify(org.guest, write, **params)
    kinds = [(e["type"], e.get("op")) for e in found if e["type"] in ("realm_user", "message")]
    assert kinds == [("realm_user", "add"), ("message", None)]
    assert found[0]["person"]["full_name"] == "Writer"
    sender.close()
    # Now the guest may write back.
    org.guest.ok("POST", "/messages", type="direct", to=[uid(sender)], content="hi back")


@pytest.mark.parametrize("params", [{}, INCOMPLETE], ids=["placeholders", "incomplete"])
def test_subscribing_and_unsubscribing_change_access(limited: Org, params: JsonDict) -> None:
    org = limited
    newcomer = org.person("Newcomer")
    principals = [uid(newcomer)]

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
            "person": {"user_id": uid(newcomer), "full_name": "Unknown user"},
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
        principals=[uid(org.stranger)],
    )

    def join() -> None:
        org.owner.ok(
            "POST",
            "/users/me/subscriptions",
            subscriptions=[{"name": "stranger-room"}],
            principals=[uid(org.guest)],
        )

    found = verify(org.guest, join)
    added = {e["person"]["user_id"] for e in found if e["type"] == "realm_user"}
    assert uid(org.stranger) in added

    def leave() -> None:
        org.guest.ok("DELETE", "/users/me/subscriptions", subscriptions=["stranger-room"])

    found = verify(org.guest, leave)
    lost = {e["person"]["user_id"] for e in found if e["type"] == "realm_user"}
    assert uid(org.stranger) in lost


@pytest.mark.parametrize("params", [{}, INCOMPLETE], ids=["placeholders", "incomplete"])
def test_new_people_reach_guests_as_unknownpeople_of(limited: Org, params: JsonDict) -> None:
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
        principals=[uid(mate)],
    )
    for user in (mate, other):
        found = verify(org.guest, lambda u=user: org.owner.ok("DELETE", f"/users/{uid(u)}"))
        people = [e for e in found if e["type"] == "realm_user"]
        groups = [e for e in found if e["type"] == "user_group"]
        if user is mate:
            # The guest sees the mate deactivated, and drops it from groups itself.
            assert [e["person"] for e in people] == [{"user_id": uid(mate), "is_active": False}]
            assert groups == []
        else:
            # An inaccessible person: no realm_user event, only the group exits.
            assert people == []
            assert groups
            assert {e["op"] for e in groups} == {"remove_members"}
        verify(org.guest, lambda u=user: org.owner.ok("POST", f"/users/{uid(u)}/reactivate"))
    mate.close()
    other.close()


def test_becoming_a_guest_and_back(limited: Org) -> None:
    org = limited
    person = org.person("Convert")
    subs = person.ok("GET", "/users/me/subscriptions")["subscriptions"]
    person.ok("DELETE", "/users/me/subscriptions", subscriptions=[s["name"] for s in subs])

    def set_role(role: int) -> None:
        org.owner.ok("PATCH", f"/users/{uid(person)}", role=role)

    found = people_after(person, lambda: set_role(600))
    lost = {e["person"]["user_id"] for e in found if e["op"] == "remove"}
    assert {uid(org.stranger), uid(org.friend)} <= lost
    assert uid(person) not in lost
    state = person.ok("POST", "/register", fetch_event_types=["realm_user"])
    assert people_of(state)[uid(org.stranger)]["full_name"] == "Unknown user"
    found = people_after(person, lambda: set_role(400), user_list_incomplete=True)
    added = {e["person"]["user_id"] for e in found if e["op"] == "add"}
    assert lost <= added
    person.close()

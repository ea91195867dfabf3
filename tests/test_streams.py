"""GET /streams, /streams/{id}, /get_stream_id, /streams/{id}/members; PATCH, DELETE."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.api import Api, assert_error
from tests.support.channels import Queue, stream_id, subscribe, unique_name

MakeUser = Callable[..., Api]


@pytest.fixture(scope="module")
def alice(make_user: MakeUser) -> Api:
    return make_user("Alice Streams")


@pytest.fixture(scope="module")
def bob(make_user: MakeUser) -> Api:
    return make_user("Bob Streams")


def test_get_streams_filters(owner: Api, alice: Api, bob: Api) -> None:
    public, private = unique_name("GetPub"), unique_name("GetPriv")
    subscribe(alice, public)
    subscribe(alice, private, invite_only=True)
    names = {s["name"] for s in bob.ok("GET", "/streams")["streams"]}
    assert public in names and private not in names
    names = {s["name"] for s in alice.ok("GET", "/streams")["streams"]}
    assert {public, private} <= names
    names = {
        s["name"]
        for s in alice.ok("GET", "/streams", include_public=False, include_subscribed=False)[
            "streams"
        ]
    }
    assert names == set()
    assert_error(bob.get("/streams", include_all=True), "User not authorized for this query")
    everything = owner.ok("GET", "/streams", include_all=True, include_default=True)["streams"]
    assert private in {s["name"] for s in everything}
    assert all(s["is_default"] is False for s in everything)
    ids = [s["stream_id"] for s in everything]
    assert ids == sorted(ids)


def test_get_stream_by_id_and_name(owner: Api, alice: Api, bob: Api) -> None:
    name = unique_name("ById")
    subscribe(alice, name)
    sid = stream_id(bob, name)
    stream = bob.ok("GET", f"/streams/{sid}")["stream"]
    assert stream["name"] == name and stream["subscriber_count"] == 1
    assert "color" not in stream
    assert bob.ok("GET", "/get_stream_id", stream=f'"{name}"')["stream_id"] == sid
    assert_error(bob.get("/streams/999999"), "Invalid channel ID")
    assert_error(bob.get("/get_stream_id", stream="nope-x"), "Invalid channel name 'nope-x'")
    assert_error(bob.get("/get_stream_id"), "Missing 'stream' argument", "REQUEST_VARIABLE_MISSING")


def test_members(owner: Api, alice: Api, bob: Api) -> None:
    name = unique_name("Members")
    subscribe(alice, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    sid = stream_id(alice, name)
    body = owner.ok("GET", f"/streams/{sid}/members")
    assert body["subscribers"] == sorted([alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    private = unique_name("MembersPriv")
    subscribe(alice, private, invite_only=True)
    psid = stream_id(alice, private)
    assert_error(bob.get(f"/streams/{psid}/members"), "Invalid channel ID")
    assert owner.ok("GET", f"/streams/{psid}/members")["subscribers"] == [alice.user_id]  # type: ignore[attr-defined]


def test_rename_and_describe(owner: Api, alice: Api, bob: Api) -> None:
    name = unique_name("Rename")
    subscribe(alice, name)
    sid = stream_id(alice, name)
    queue = Queue(bob, event_types=["stream"])
    new_name = unique_name("Renamed")
    alice.ok("PATCH", f"/streams/{sid}", new_name=new_name, description="about *this*")
    events = queue.events()
    assert [(e["property"], e["value"]) for e in events] == [
        ("name", new_name),
        ("description", "about *this*"),
    ]
    assert events[0]["name"] == name and "rendered_description" in events[1]
    stream = bob.ok("GET", f"/streams/{sid}")["stream"]
    assert stream["name"] == new_name and stream["description"] == "about *this*"
    assert_error(
        alice.patch(f"/streams/{sid}", new_name=new_name), "Channel already has that name."
    )
    other = unique_name("Taken")
    subscribe(alice, other)
    assert_error(
        alice.patch(f"/streams/{sid}", new_name=other.upper()), "Channel name already in use."
    )
    assert_error(alice.patch(f"/streams/{sid}", new_name=" "), "Channel name can't be empty.")
    # Bob is neither an admin nor in the channel's administrators.
    assert_error(
        bob.patch(f"/streams/{sid}", description="mine"),
        "You do not have permission to administer this channel.",
    )
    # Case-only renames are allowed.
    alice.ok("PATCH", f"/streams/{sid}", new_name=new_name.upper())


def test_privacy_changes_notify_who_gains_or_loses_access(owner: Api, alice: Api, bob: Api) -> None:
    name = unique_name("Flip")
    subscribe(alice, name)
    sid = stream_id(alice, name)
    bob_queue = Queue(bob, event_types=["stream", "subscription"])
    alice_queue = Queue(alice, event_types=["stream"])
    alice.ok("PATCH", f"/streams/{sid}", is_private=True)
    [update] = alice_queue.events()
    assert (update["property"], update["value"]) == ("invite_only", True)
    assert update["history_public_to_subscribers"] is False and update["is_web_public"] is False
    assert [(e["type"], e["op"]) for e in bob_queue.events()] == [
        ("stream", "update"),
        ("stream", "delete"),
    ]
    alice.ok("PATCH", f"/streams/{sid}", is_private=False)
    assert [(e["type"], e["op"]) for e in bob_queue.events()] == [
        ("stream", "update"),
        ("stream", "create"),
        ("subscription", "peer_add"),
    ]
    assert_error(
        alice.patch(f"/streams/{sid}", history_public_to_subscribers=False), "Invalid parameters"
    )
    assert_error(
        alice.patch(f"/streams/{sid}", is_web_public=True), "Web-public channels are not enabled."
    )
    assert_error(
        alice.patch(f"/streams/{sid}", message_retention_days=5),
        "Must be an organization owner",
        "UNAUTHORIZED_PRINCIPAL",
    )
    owner.ok(
        "PATCH", f"/streams/{sid}", message_retention_days=5, topics_policy="disable_empty_topic"
    )
    stream = bob.ok("GET", f"/streams/{sid}")["stream"]
    assert stream["message_retention_days"] == 5
    assert stream["topics_policy"] == "disable_empty_topic"


def test_group_setting_changes(owner: Api, alice: Api, bob: Api) -> None:
    name = unique_name("Groups")
    subscribe(alice, name)
    sid = stream_id(alice, name)
    stream = alice.ok("GET", f"/streams/{sid}")["stream"]
    admins = stream["can_remove_subscribers_group"]
    new = {"direct_members": [bob.user_id], "direct_subgroups": [admins]}  # type: ignore[attr-defined]
    queue = Queue(bob, event_types=["stream"])
    alice.ok(
        "PATCH",
        f"/streams/{sid}",
        can_remove_subscribers_group={"new": new, "old": admins},
    )
    [event] = queue.events()
    assert event["property"] == "can_remove_subscribers_group" and event["value"] == new
    assert_error(
        alice.patch(f"/streams/{sid}", can_remove_subscribers_group={"new": admins, "old": admins}),
        "'old' value does not match the expected value.",
    )
    assert_error(
        alice.patch(f"/streams/{sid}", can_send_message_group={"new": 999999}),
        "Invalid user group",
    )
    # Bob may now remove subscribers.
    bob.ok("DELETE", "/users/me/subscriptions", subscriptions=[name], principals=[alice.user_id])  # type: ignore[attr-defined]


def test_archive_and_unarchive(owner: Api, alice: Api, bob: Api) -> None:
    name = unique_name("Archive")
    subscribe(alice, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    sid = stream_id(alice, name)
    legacy = Queue(bob, event_types=["stream", "subscription"])
    modern = Queue(
        bob, event_types=["stream", "subscription"], client_capabilities={"archived_channels": True}
    )
    assert_error(
        bob.delete(f"/streams/{sid}"),
        "You do not have permission to administer this channel.",
    )
    alice.ok("DELETE", f"/streams/{sid}")
    [delete] = legacy.events()
    assert (delete["type"], delete["op"], delete["stream_ids"]) == ("stream", "delete", [sid])
    [update] = modern.events()
    assert (update["property"], update["value"]) == ("is_archived", True)
    assert name not in [
        s["name"] for s in bob.ok("GET", "/users/me/subscriptions")["subscriptions"]
    ]
    state = bob.ok(
        "POST",
        "/register",
        fetch_event_types=["subscription", "stream"],
        client_capabilities={"archived_channels": True},
    )
    archived = next(s for s in state["subscriptions"] if s["name"] == name)
    assert archived["is_archived"] is True
    assert_error(alice.delete(f"/streams/{sid}"), "Channel is already deactivated")
    assert_error(
        alice.post("/users/me/subscriptions", subscriptions=[{"name": name}]),
        f"Channel '{name}' is archived.",
    )
    alice.ok("PATCH", f"/streams/{sid}", is_archived=False)
    assert [(e["type"], e["op"]) for e in legacy.events()] == [
        ("stream", "create"),
        ("subscription", "add"),
    ]
    [update] = modern.events()
    assert (update["property"], update["value"]) == ("is_archived", False)
    assert name in [s["name"] for s in bob.ok("GET", "/users/me/subscriptions")["subscriptions"]]


def test_ignored_parameters(alice: Api) -> None:
    name = unique_name("Ignored")
    subscribe(alice, name)
    sid = stream_id(alice, name)
    body = alice.ok("PATCH", f"/streams/{sid}", description="d", colour="red")
    assert body["ignored_parameters_unsupported"] == ["colour"]
    assert alice.ok("GET", "/streams", x=1)["ignored_parameters_unsupported"] == ["x"]

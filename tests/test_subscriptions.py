"""POST/GET/DELETE /users/me/subscriptions, subscription properties, membership checks."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.conftest import unique_email
from tests.support.api import Api, assert_error
from tests.support.channels import Queue, make_role_user, stream_id, subscribe, unique_name
from tests.support.server import ServerProcess

MakeUser = Callable[..., Api]


@pytest.fixture(scope="module")
def guest(server: ServerProcess) -> Api:
    return make_role_user(server, unique_email("guest"), "Guest Person", "guest")


def my_sub(api: Api, name: str) -> dict:  # type: ignore[type-arg]
    subs = api.ok("GET", "/users/me/subscriptions")["subscriptions"]
    return next(s for s in subs if s["name"] == name)


def test_subscribing_creates_a_public_channel_with_every_field(
    owner: Api, make_user: MakeUser
) -> None:
    alice = make_user("Alice Sub")
    name = unique_name("Create")
    body = alice.ok(
        "POST",
        "/users/me/subscriptions",
        subscriptions=[{"name": f" {name} ", "description": "first\nsecond"}],
    )
    assert body["subscribed"] == {str(alice.user_id): [name]}  # type: ignore[attr-defined]
    assert body["already_subscribed"] == {}
    sub = my_sub(alice, name)
    assert re.fullmatch(r"#[0-9a-f]{6}", sub["color"])
    assert sub["invite_only"] is False and sub["history_public_to_subscribers"] is True
    assert sub["is_web_public"] is False and sub["is_archived"] is False
    assert sub["creator_id"] == alice.user_id  # type: ignore[attr-defined]
    assert sub["stream_weekly_traffic"] is None and sub["message_retention_days"] is None
    # The first message is the Notification Bot's notice (topic "channel events").
    assert sub["first_message_id"] is not None and sub["subscriber_count"] == 1
    assert sub["description"] == "first second"
    for setting in ("desktop_notifications", "email_notifications", "push_notifications"):
        assert sub[setting] is None
    assert sub["is_muted"] is False and sub["in_home_view"] is True and sub["pin_to_top"] is False
    assert sub["can_administer_channel_group"] == {
        "direct_members": [alice.user_id],  # type: ignore[attr-defined]
        "direct_subgroups": [],
    }
    assert isinstance(sub["can_send_message_group"], int)
    assert sub["stream_post_policy"] == 1 and sub["is_announcement_only"] is False
    assert "subscribers" not in sub
    with_subs = alice.ok("GET", "/users/me/subscriptions", include_subscribers=True)
    mine = next(s for s in with_subs["subscriptions"] if s["name"] == name)
    assert mine["subscribers"] == [alice.user_id]  # type: ignore[attr-defined]


def test_subscription_events_reach_the_subscriber_and_the_peers(
    owner: Api, make_user: MakeUser
) -> None:
    alice, bob = make_user("Alice Ev"), make_user("Bob Ev")
    alice_queue = Queue(alice, event_types=["stream", "subscription"])
    bob_queue = Queue(bob, event_types=["stream", "subscription"])
    name = unique_name("Events")
    subscribe(alice, name)
    ops = [(e["type"], e["op"]) for e in alice_queue.events()]
    # ... then the channel's first message (its notice) sets first_message_id.
    assert ops == [("stream", "create"), ("subscription", "add"), ("stream", "update")]
    bob_events = bob_queue.events()
    assert [(e["type"], e["op"]) for e in bob_events] == [
        ("stream", "create"),
        ("subscription", "peer_add"),
        ("stream", "update"),
    ]
    assert bob_events[2]["property"] == "first_message_id"
    sid = bob_events[0]["streams"][0]["stream_id"]
    assert bob_events[1]["stream_ids"] == [sid]
    assert bob_events[1]["user_ids"] == [alice.user_id]  # type: ignore[attr-defined]
    # Bob joins: he gets his subscription, Alice a peer_add.
    subscribe(bob, name)
    add = bob_queue.events()
    assert [(e["type"], e["op"]) for e in add] == [("subscription", "add")]
    assert add[0]["subscriptions"][0]["subscribers"] == sorted(
        [alice.user_id, bob.user_id]  # type: ignore[attr-defined]
    )
    peer = alice_queue.events()
    assert [(e["op"], e["user_ids"]) for e in peer] == [("peer_add", [bob.user_id])]  # type: ignore[attr-defined]


def test_legacy_clients_get_notification_defaults_not_null(make_user: MakeUser) -> None:
    alice = make_user("Alice Legacy")
    name = unique_name("Legacy")
    subscribe(alice, name)
    legacy = alice.ok("POST", "/register", fetch_event_types=["subscription"])
    sub = next(s for s in legacy["subscriptions"] if s["name"] == name)
    # zulip-compat: Zulip fills in four of the five; wildcard_mentions_notify stays null.
    assert sub["desktop_notifications"] is False and sub["wildcard_mentions_notify"] is None
    modern = alice.ok(
        "POST",
        "/register",
        fetch_event_types=["subscription"],
        client_capabilities={"notification_settings_null": True},
    )
    sub = next(s for s in modern["subscriptions"] if s["name"] == name)
    assert sub["desktop_notifications"] is None and sub["wildcard_mentions_notify"] is None
    queue = Queue(alice, event_types=["subscription"])
    subscribe(alice, unique_name("Legacy2"))
    [event] = queue.events()
    assert event["subscriptions"][0]["push_notifications"] is False


def test_subscribing_others_by_id_and_email(owner: Api, make_user: MakeUser) -> None:
    alice, bob, carol = make_user("Alice P"), make_user("Bob P"), make_user("Carol P")
    name = unique_name("Principals")
    body = subscribe(alice, name, principals=[bob.user_id, carol.user_id])  # type: ignore[attr-defined]
    assert body["subscribed"] == {
        str(bob.user_id): [name],  # type: ignore[attr-defined]
        str(carol.user_id): [name],  # type: ignore[attr-defined]
    }
    body = subscribe(alice, name, principals=[bob.email, alice.email])
    assert body["subscribed"] == {str(alice.user_id): [name]}  # type: ignore[attr-defined]
    assert body["already_subscribed"] == {str(bob.user_id): [name]}  # type: ignore[attr-defined]
    assert_error(
        alice.post("/users/me/subscriptions", subscriptions=[{"name": name}], principals=[999999]),
        "No such user",
    )


def test_private_channels_are_hidden_from_non_subscribers(owner: Api, make_user: MakeUser) -> None:
    alice, bob = make_user("Alice Priv"), make_user("Bob Priv")
    bob_queue = Queue(bob, event_types=["stream", "subscription"])
    owner_queue = Queue(owner, event_types=["stream", "subscription"])
    name = unique_name("Secret")
    subscribe(alice, name, invite_only=True)
    assert bob_queue.events() == []
    assert [(e["type"], e["op"]) for e in owner_queue.events()] == [
        ("stream", "create"),
        ("subscription", "peer_add"),
        ("stream", "update"),  # first_message_id: the channel's notice
    ]
    sid = stream_id(alice, name)
    sub = my_sub(alice, name)
    assert sub["invite_only"] is True and sub["history_public_to_subscribers"] is False
    assert name not in [s["name"] for s in bob.ok("GET", "/streams")["streams"]]
    assert_error(bob.get(f"/streams/{sid}"), "Invalid channel ID")
    assert_error(bob.get("/get_stream_id", stream=name), f"Invalid channel name '{name}'")
    assert owner.ok("GET", f"/streams/{sid}")["stream"]["name"] == name
    assert_error(
        bob.post("/users/me/subscriptions", subscriptions=[{"name": name}]),
        f"Unable to access channel ({name}).",
    )
    body = bob.ok(
        "POST",
        "/users/me/subscriptions",
        subscriptions=[{"name": name}],
        authorization_errors_fatal=False,
    )
    assert body["unauthorized"] == [name] and body["subscribed"] == {}
    # Alice adds Bob: he first learns about the channel, then gets the subscription.
    subscribe(alice, name, principals=[bob.user_id])  # type: ignore[attr-defined]
    assert [(e["type"], e["op"]) for e in bob_queue.events()] == [
        ("stream", "create"),
        ("subscription", "add"),
    ]
    # Leaving a private channel makes it disappear for him again.
    bob.ok("DELETE", "/users/me/subscriptions", subscriptions=[name])
    assert [(e["type"], e["op"]) for e in bob_queue.events()] == [
        ("subscription", "remove"),
        ("stream", "delete"),
    ]


def test_history_public_private_channel(make_user: MakeUser) -> None:
    alice = make_user("Alice Hist")
    name = unique_name("Shared")
    subscribe(alice, name, invite_only=True, history_public_to_subscribers=True)
    assert my_sub(alice, name)["history_public_to_subscribers"] is True
    # Public channels always have public history.
    public = unique_name("Pub")
    subscribe(alice, public, history_public_to_subscribers=False)
    assert my_sub(alice, public)["history_public_to_subscribers"] is True


def test_guests_cannot_subscribe_or_see_public_channels(guest: Api, make_user: MakeUser) -> None:
    alice = make_user("Alice G")
    name = unique_name("ForGuest")
    subscribe(alice, name)
    assert_error(
        guest.post("/users/me/subscriptions", subscriptions=[{"name": name}]),
        "Not allowed for guest users",
    )
    assert name not in [s["name"] for s in guest.ok("GET", "/streams")["streams"]]
    guest_queue = Queue(guest, event_types=["stream", "subscription"])
    subscribe(alice, name, principals=[guest.user_id])  # type: ignore[attr-defined]
    assert [(e["type"], e["op"]) for e in guest_queue.events()] == [
        ("stream", "create"),
        ("subscription", "add"),
    ]


def test_bad_subscription_requests(owner: Api) -> None:
    assert_error(
        owner.post("/users/me/subscriptions"),
        "Missing 'subscriptions' argument",
        "REQUEST_VARIABLE_MISSING",
    )
    cases = {
        "Channel name can't be empty.": [{"name": "  "}],
        "Channel name too long (limit: 60 characters).": [{"name": "x" * 61}],
        "Invalid character in channel name, at position 2.": [{"name": "a\x01"}],
        "add.color is not a valid hex color code": [{"name": unique_name(), "color": "red"}],
        "subscriptions[0] is not a dict": ["general"],
    }
    for msg, subscriptions in cases.items():
        assert_error(owner.post("/users/me/subscriptions", subscriptions=subscriptions), msg)
    assert_error(
        owner.post("/users/me/subscriptions", subscriptions="[nope"),
        "subscriptions is not valid JSON",
    )
    assert_error(
        owner.post(
            "/users/me/subscriptions",
            subscriptions=[{"name": unique_name()}],
            is_web_public=True,
        ),
        "Web-public channels are not enabled.",
    )


def test_members_cannot_set_retention_but_owners_can(owner: Api, make_user: MakeUser) -> None:
    alice = make_user("Alice Ret")
    assert_error(
        alice.post(
            "/users/me/subscriptions",
            subscriptions=[{"name": unique_name()}],
            message_retention_days=30,
        ),
        "Must be an organization owner",
        "UNAUTHORIZED_PRINCIPAL",
    )
    name = unique_name("Retained")
    owner.ok(
        "POST",
        "/users/me/subscriptions",
        subscriptions=[{"name": name, "color": "#ABC"}],
        message_retention_days="unlimited",
    )
    sub = my_sub(owner, name)
    assert sub["message_retention_days"] == -1 and sub["color"] == "#aabbcc"


def test_ignored_parameters_are_reported(owner: Api) -> None:
    body = subscribe(owner, unique_name(), bogus="x")
    assert body["ignored_parameters_unsupported"] == ["bogus"]
    body = owner.ok("GET", "/users/me/subscriptions", bogus=1)
    assert body["ignored_parameters_unsupported"] == ["bogus"]


def test_unsubscribing(owner: Api, make_user: MakeUser) -> None:
    alice, bob = make_user("Alice Un"), make_user("Bob Un")
    name, other = unique_name("Leave"), unique_name("Never")
    subscribe(alice, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    subscribe(owner, other)
    alice_queue = Queue(alice, event_types=["subscription"])
    bob_queue = Queue(bob, event_types=["subscription"])
    body = bob.ok("DELETE", "/users/me/subscriptions", subscriptions=[name, other])
    assert body["removed"] == [name] and body["not_removed"] == [other]
    [remove] = bob_queue.events()
    assert remove["op"] == "remove"
    assert remove["subscriptions"] == [{"name": name, "stream_id": stream_id(alice, name)}]
    [peer] = alice_queue.events()
    assert peer["op"] == "peer_remove" and peer["user_ids"] == [bob.user_id]  # type: ignore[attr-defined]
    assert_error(
        bob.delete("/users/me/subscriptions", subscriptions=["no-such-channel-xyz"]),
        "Channel(s) (no-such-channel-xyz) do not exist",
    )
    # Removing someone else needs can_remove_subscribers_group (administrators by default).
    assert_error(
        bob.delete(
            "/users/me/subscriptions",
            subscriptions=[name],
            principals=[alice.user_id],  # type: ignore[attr-defined]
        ),
        "Insufficient permission",
    )
    body = owner.ok(
        "DELETE",
        "/users/me/subscriptions",
        subscriptions=[name],
        principals=[alice.email],
    )
    assert body["removed"] == [name]


def test_unsubscribed_channels_move_to_unsubscribed_state(make_user: MakeUser) -> None:
    alice = make_user("Alice State")
    name = unique_name("Former")
    subscribe(alice, name)
    alice.ok("DELETE", "/users/me/subscriptions", subscriptions=[name])
    state = alice.ok("POST", "/register", fetch_event_types=["subscription", "stream"])
    assert name in [s["name"] for s in state["unsubscribed"]]
    assert name not in [s["name"] for s in state["subscriptions"]]
    assert name not in [s["name"] for s in state["never_subscribed"]]
    assert name in [s["name"] for s in state["streams"]]
    # Resubscribing keeps the old color.
    color = next(s for s in state["unsubscribed"] if s["name"] == name)["color"]
    subscribe(alice, name)
    assert my_sub(alice, name)["color"] == color


def test_subscription_properties(make_user: MakeUser) -> None:
    alice = make_user("Alice Props")
    name = unique_name("Props")
    subscribe(alice, name)
    sid = stream_id(alice, name)
    queue = Queue(alice, event_types=["subscription"])
    alice.ok(
        "POST",
        "/users/me/subscriptions/properties",
        subscription_data=[
            {"stream_id": sid, "property": "color", "value": "#FF0000"},
            {"stream_id": sid, "property": "is_muted", "value": True},
            {"stream_id": sid, "property": "pin_to_top", "value": True},
            {"stream_id": sid, "property": "desktop_notifications", "value": False},
        ],
    )
    events = [(e["property"], e["value"]) for e in queue.events()]
    assert events == [
        ("color", "#ff0000"),
        ("in_home_view", False),
        ("is_muted", True),
        ("pin_to_top", True),
        ("desktop_notifications", False),
    ]
    sub = my_sub(alice, name)
    assert (sub["color"], sub["is_muted"], sub["in_home_view"]) == ("#ff0000", True, False)
    assert sub["pin_to_top"] is True and sub["desktop_notifications"] is False
    alice.ok("PATCH", f"/users/me/subscriptions/{sid}", property="in_home_view", value=True)
    assert my_sub(alice, name)["is_muted"] is False
    bad = {
        "Unknown subscription property: loud": {"property": "loud", "value": True},
        "pin_to_top is not a boolean": {"property": "pin_to_top", "value": "yes"},
        "color is not a valid hex color code": {"property": "color", "value": "#12"},
    }
    for msg, change in bad.items():
        response = alice.post(
            "/users/me/subscriptions/properties", subscription_data=[{"stream_id": sid, **change}]
        )
        assert_error(response, msg)
    other = unique_name("NotMine")
    subscribe(make_user("Other Owner"), other)
    response = alice.post(
        "/users/me/subscriptions/properties",
        subscription_data=[
            {"stream_id": stream_id(alice, other), "property": "pin_to_top", "value": True}
        ],
    )
    assert_error(response, f"Not subscribed to channel ID {stream_id(alice, other)}")
    response = alice.post(
        "/users/me/subscriptions/properties",
        subscription_data=[{"stream_id": 999999, "property": "pin_to_top", "value": True}],
    )
    assert_error(response, "Invalid channel ID")


def test_is_user_subscribed(owner: Api, make_user: MakeUser) -> None:
    alice = make_user("Alice Check")
    name = unique_name("Check")
    subscribe(alice, name)
    sid = stream_id(alice, name)
    body = owner.ok("GET", f"/users/{alice.user_id}/subscriptions/{sid}")  # type: ignore[attr-defined]
    assert body["is_subscribed"] is True
    body = alice.ok("GET", f"/users/{owner_id(owner)}/subscriptions/{sid}")
    assert body["is_subscribed"] is False
    assert_error(owner.get(f"/users/999999/subscriptions/{sid}"), "No such user")
    assert_error(owner.get(f"/users/{owner_id(owner)}/subscriptions/999999"), "Invalid channel ID")


def owner_id(owner: Api) -> int:
    return int(owner.ok("GET", "/users/me")["user_id"])

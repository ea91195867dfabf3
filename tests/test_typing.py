"""POST /typing: direct and channel typing notifications."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.api import Api, assert_error
from tests.support.channels import Queue, stream_id, subscribe, unique_name

MakeUser = Callable[..., Api]


def test_direct_typing(make_user: MakeUser) -> None:
    alice, bob = make_user("Alice Typing"), make_user("Bob Typing")
    bob_queue, alice_queue = (
        Queue(bob, event_types=["typing"]),
        Queue(alice, event_types=["typing"]),
    )
    alice.ok("POST", "/typing", op="start", to=[bob.user_id])  # type: ignore[attr-defined]
    [event] = bob_queue.events()
    assert (event["op"], event["message_type"]) == ("start", "direct")
    assert event["sender"] == {"user_id": alice.user_id, "email": alice.email}  # type: ignore[attr-defined]
    assert {r["user_id"] for r in event["recipients"]} == {alice.user_id, bob.user_id}  # type: ignore[attr-defined]
    assert len(alice_queue.events()) == 1
    alice.ok("POST", "/typing", type="direct", op="stop", to=[bob.user_id])  # type: ignore[attr-defined]
    assert bob_queue.events()[0]["op"] == "stop"
    assert_error(alice.post("/typing", op="start", to=[999999]), "Invalid user ID 999999")
    assert_error(alice.post("/typing", op="start", to=[]), "Empty 'to' list")
    assert_error(alice.post("/typing", op="start"), "Missing 'to' argument")
    assert_error(alice.post("/typing", op="dance", to=[bob.user_id]), "Invalid op")  # type: ignore[attr-defined]


def test_channel_typing(make_user: MakeUser) -> None:
    alice, bob = make_user("Alice ChTyping"), make_user("Bob ChTyping")
    name = unique_name("Typing")
    subscribe(alice, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    sid = stream_id(alice, name)
    modern = Queue(
        bob, event_types=["typing"], client_capabilities={"stream_typing_notifications": True}
    )
    legacy = Queue(bob, event_types=["typing"])
    alice.ok("POST", "/typing", type="channel", op="start", stream_id=sid, topic="t")
    [event] = modern.events()
    assert (event["message_type"], event["stream_id"], event["topic"]) == ("stream", sid, "t")
    assert legacy.events() == []
    assert_error(
        alice.post("/typing", type="stream", op="start", topic="t"),
        "Missing 'stream_id' argument",
        "REQUEST_VARIABLE_MISSING",
    )
    assert_error(alice.post("/typing", type="stream", op="start", stream_id=sid), "Missing topic")
    assert_error(
        alice.post("/typing", type="stream", op="start", stream_id=999999, topic="t"),
        "Invalid channel ID",
    )

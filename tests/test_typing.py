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
    )
    assert_error(alice.post("/typing", type="stream", op="start", stream_id=sid), "Missing topic")
    assert_error(
        alice.post("/typing", type="stream", op="start", stream_id=999999, topic="t"),
        "Invalid channel ID",
    )


def test_message_edit_typing(make_user: MakeUser) -> None:
    alice, bob, carol = (
        make_user("Alice EdTyping"),
        make_user("Bob EdTyping"),
        make_user("Carol EdTyping"),
    )
    ids = {u: u.user_id for u in (alice, bob, carol)}  # type: ignore[attr-defined]
    name = unique_name("EditTyping")
    subscribe(alice, name, principals=[ids[alice], ids[bob]])
    sid = stream_id(alice, name)
    channel_message = alice.ok(
        "POST", "/messages", type="stream", to=sid, topic="plans", content="draft"
    )["id"]
    dm = alice.ok("POST", "/messages", type="direct", to=[ids[bob]], content="hi")["id"]
    bob_queue = Queue(bob, event_types=["typing_edit_message"])
    carol_queue = Queue(carol, event_types=["typing_edit_message"])
    alice.ok("POST", f"/messages/{channel_message}/typing", op="start")
    [event] = bob_queue.events()
    assert event["type"] == "typing_edit_message"
    assert (event["op"], event["sender_id"], event["message_id"]) == (
        "start", ids[alice], channel_message,
    )  # fmt: skip
    assert event["recipient"] == {"type": "channel", "channel_id": sid, "topic": "plans"}
    alice.ok("POST", f"/messages/{dm}/typing", op="stop")
    [event] = bob_queue.events()
    assert event["op"] == "stop"
    assert event["recipient"]["type"] == "direct"
    assert sorted(event["recipient"]["user_ids"]) == sorted([ids[alice], ids[bob]])
    # The endpoint's older name, message_id in the body.
    alice.ok("POST", "/message_edit_typing", message_id=dm, op="start")
    assert bob_queue.events()[0]["op"] == "start"
    assert carol_queue.events() == []
    # Only someone who may edit the message now: not another user, not an unseen message.
    no_permission = "You don't have permission to edit this message"
    assert_error(bob.post(f"/messages/{channel_message}/typing", op="start"), no_permission)
    assert_error(carol.post(f"/messages/{dm}/typing", op="start"), "Invalid message(s)")
    assert_error(alice.post("/messages/999999/typing", op="start"), "Invalid message(s)")
    assert_error(alice.post(f"/messages/{dm}/typing", op="type"), "Invalid op")
    assert_error(
        alice.post(f"/messages/{dm}/typing"), "Missing 'op' argument", "REQUEST_VARIABLE_MISSING"
    )
    alice.ok("PATCH", "/settings", send_private_typing_notifications="false")
    assert_error(
        alice.post(f"/messages/{dm}/typing", op="start"),
        "User has disabled typing notifications for direct messages",
    )
    assert bob_queue.events() == [] and carol_queue.events() == []

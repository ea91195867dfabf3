"""PATCH /messages/{id} (content, topic and channel moves), GET /messages/{id}/history,
DELETE /messages/{id} and POST /streams/{id}/delete_topic, with their events."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest

from tests.support.api import Api, assert_error
from tests.support.channels import Queue, drop_channel_notice, stream_id, subscribe, unique_name

MakeUser = Callable[..., Api]


@pytest.fixture(scope="module")
def alice(make_user: MakeUser) -> Api:
    return make_user("Alice Edit")


@pytest.fixture(scope="module")
def bob(make_user: MakeUser) -> Api:
    return make_user("Bob Edit")


def send(api: Api, channel: str, topic: str, content: str) -> int:
    body = api.ok("POST", "/messages", type="stream", to=channel, topic=topic, content=content)
    return int(body["id"])


def shared_channel(alice: Api, bob: Api, prefix: str) -> str:
    name = unique_name(prefix)
    subscribe(alice, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    return name


def test_content_edit(alice: Api, bob: Api) -> None:
    name = shared_channel(alice, bob, "EditContent")
    message_id = send(alice, name, "t", "first version")
    queue = Queue(bob, event_types=["update_message"])
    digest = hashlib.sha256(b"first version").hexdigest()
    alice.ok(
        "PATCH",
        f"/messages/{message_id}",
        content="second @**Bob Edit**",
        prev_content_sha256=digest,
    )
    [event] = queue.events()
    assert event["message_id"] == message_id and event["message_ids"] == [message_id]
    assert event["orig_content"] == "first version"
    assert event["orig_rendered_content"] == "<p>first version</p>"
    assert event["content"] == "second @**Bob Edit**"
    assert event["rendered_content"].startswith('<p>second <span class="user-mention"')
    assert event["is_me_message"] is False and event["rendering_only"] is False
    assert event["flags"] == ["mentioned"] and event["user_id"] == alice.user_id  # type: ignore[attr-defined]
    assert event["stream_id"] == stream_id(alice, name) and event["stream_name"] == name
    assert "propagate_mode" not in event and "subject" not in event
    message = bob.ok("GET", f"/messages/{message_id}")["message"]
    assert message["flags"] == ["mentioned"]
    assert "last_edit_timestamp" in message and "last_moved_timestamp" not in message
    [entry] = message["edit_history"]
    assert entry["prev_content"] == "first version" and entry["user_id"] == alice.user_id  # type: ignore[attr-defined]
    assert entry["prev_rendered_content"] == "<p>first version</p>"
    assert_error(
        alice.patch(f"/messages/{message_id}", content="x", prev_content_sha256=digest),
        "'prev_content_sha256' value does not match the current content.",
    )
    alice.ok("PATCH", f"/messages/{message_id}", content="   ")
    assert bob.ok("GET", f"/messages/{message_id}")["raw_content"] == "(deleted)"


def test_edit_errors(alice: Api, bob: Api) -> None:
    name = shared_channel(alice, bob, "EditErr")
    message_id = send(alice, name, "t", "mine")
    dm = alice.ok("POST", "/messages", type="private", to=[bob.user_id], content="dm")["id"]  # type: ignore[attr-defined]
    cases = [
        (bob, message_id, {"content": "hijack"}, "You don't have permission to edit this message"),
        (alice, message_id, {}, "Nothing to change"),
        (alice, message_id, {"topic": "t"}, "Nothing to change"),
        (alice, dm, {"topic": "x"}, "Direct messages cannot have topics."),
        (
            alice,
            dm,
            {"stream_id": stream_id(alice, name)},
            "Direct messages cannot be moved to channels.",
        ),
        (
            alice,
            message_id,
            {"content": "x", "propagate_mode": "change_all"},
            "Invalid propagate_mode without topic edit",
        ),
        (
            alice,
            message_id,
            {"content": "x", "stream_id": stream_id(alice, name) + 10**6},
            "Cannot change message content while changing channel",
        ),
        (alice, message_id, {"topic": "✔"}, "General chat cannot be marked as resolved"),
        (
            alice,
            message_id,
            {"topic": "x", "propagate_mode": "change_some"},
            "Invalid propagate_mode",
        ),
        (alice, 99999999, {"content": "x"}, "Invalid message(s)"),
    ]
    for api, target, params, msg in cases:
        assert_error(api.patch(f"/messages/{target}", **params), msg)
    body = alice.ok("PATCH", f"/messages/{dm}", content="edited dm", flavour="x")
    assert body["ignored_parameters_unsupported"] == ["flavour"]


def test_topic_moves_with_propagate_modes(alice: Api, bob: Api) -> None:
    name = shared_channel(alice, bob, "Move")
    ids = [send(alice, name, "old", f"m{i}") for i in range(4)]
    queue = Queue(bob, event_types=["update_message"])
    alice.ok("PATCH", f"/messages/{ids[2]}", topic="later", propagate_mode="change_later")
    [event] = queue.events()
    assert event["message_ids"] == ids[2:] and event["propagate_mode"] == "change_later"
    assert (event["orig_subject"], event["subject"]) == ("old", "later")
    assert event["topic_links"] == [] and "new_stream_id" not in event
    alice.ok("PATCH", f"/messages/{ids[0]}", topic="one", propagate_mode="change_one")
    assert queue.events()[0]["message_ids"] == [ids[0]]
    bob.ok("PATCH", f"/messages/{ids[1]}", subject="all", propagate_mode="change_all")
    assert queue.events()[0]["message_ids"] == [ids[1]]
    moved = bob.ok("GET", f"/messages/{ids[3]}")["message"]
    assert moved["subject"] == "later" and "last_moved_timestamp" in moved
    assert "last_edit_timestamp" not in moved
    [entry] = moved["edit_history"]
    assert (entry["prev_topic"], entry["topic"]) == ("old", "later")
    assert "prev_content" not in entry


def test_resolving_is_not_a_move(alice: Api, bob: Api) -> None:
    name = shared_channel(alice, bob, "Resolve")
    message_id = send(alice, name, "bug", "broken")
    alice.ok("PATCH", f"/messages/{message_id}", topic="✔ bug", propagate_mode="change_all")
    message = bob.ok("GET", f"/messages/{message_id}")["message"]
    assert message["subject"] == "✔ bug" and "last_moved_timestamp" not in message
    assert message["edit_history"][0]["prev_topic"] == "bug"
    resolved = bob.ok(
        "GET",
        "/messages",
        anchor="newest",
        num_before=5,
        narrow=[["channel", name], ["is", "resolved"]],
    )
    # The topic now also holds the Notification Bot's "marked as resolved" notice.
    found = [(m["id"], m["sender_full_name"]) for m in resolved["messages"]]
    assert found[0] == (message_id, "Alice") or found[0][0] == message_id
    assert [sender for _, sender in found[1:]] == ["Notification Bot"]


def test_channel_moves(owner: Api, alice: Api, bob: Api) -> None:
    source = shared_channel(alice, bob, "From")
    private = unique_name("ToPrivate")
    subscribe(alice, private, invite_only=True)
    message_id = send(alice, source, "t", "travelling")
    bob_queue = Queue(
        bob,
        event_types=["update_message", "delete_message"],
        client_capabilities={"bulk_message_deletion": True},
    )
    alice.ok(
        "PATCH",
        f"/messages/{message_id}",
        stream_id=stream_id(alice, private),
        propagate_mode="change_all",
    )
    events = bob_queue.events()
    assert [e["type"] for e in events] == ["delete_message"]
    assert events[0]["message_ids"] == [message_id] and events[0]["topic"] == "t"
    assert_error(bob.get(f"/messages/{message_id}"), "Invalid message(s)")
    message = alice.ok("GET", f"/messages/{message_id}")["message"]
    assert message["display_recipient"] == private
    entry = message["edit_history"][0]
    assert entry["prev_stream"] == stream_id(alice, source)
    assert entry["stream"] == stream_id(alice, private)
    # Bob cannot move messages into a channel he cannot see.
    mine = send(bob, source, "t", "stay")
    assert_error(
        bob.patch(f"/messages/{mine}", stream_id=stream_id(alice, private)), "Invalid channel ID"
    )


def test_edit_history(alice: Api, bob: Api) -> None:
    name = shared_channel(alice, bob, "History")
    message_id = send(alice, name, "start", "one two")
    alice.ok("PATCH", f"/messages/{message_id}", content="one three")
    alice.ok("PATCH", f"/messages/{message_id}", topic="")
    history = bob.ok("GET", f"/messages/{message_id}/history")["message_history"]
    assert len(history) == 3
    assert set(history[0]) == {"topic", "content", "rendered_content", "timestamp", "user_id"}
    assert history[0]["content"] == "one two" and history[0]["topic"] == "start"
    assert history[1]["prev_content"] == "one two" and history[1]["content"] == "one three"
    assert "highlight_text_inserted" in history[1]["content_html_diff"]
    assert "highlight_text_deleted" in history[1]["content_html_diff"]
    assert history[2]["prev_topic"] == "start" and history[2]["topic"] == "general chat"
    raw = bob.ok("GET", f"/messages/{message_id}/history", allow_empty_topic_name=True)
    assert raw["message_history"][2]["topic"] == ""
    assert_error(bob.get("/messages/99999999/history"), "Invalid message(s)")


def test_delete_message(owner: Api, alice: Api, bob: Api) -> None:
    name = shared_channel(alice, bob, "Delete")
    drop_channel_notice(owner, name)
    first = send(alice, name, "t", "first")
    second = send(alice, name, "t", "second")
    bulk = Queue(
        bob,
        event_types=["delete_message", "stream"],
        client_capabilities={"bulk_message_deletion": True},
    )
    legacy = Queue(bob, event_types=["delete_message"])
    assert_error(
        bob.delete(f"/messages/{first}"), "You don't have permission to delete this message"
    )
    alice.ok("DELETE", f"/messages/{first}")
    events = bulk.events()
    assert [e["type"] for e in events] == ["delete_message", "stream"]
    assert events[0] == {
        **events[0],
        "message_ids": [first],
        "message_type": "stream",
        "stream_id": stream_id(alice, name),
        "topic": "t",
    }
    assert (events[1]["property"], events[1]["value"]) == ("first_message_id", second)
    [old_style] = legacy.events()
    assert old_style["message_id"] == first and "message_ids" not in old_style
    assert_error(alice.get(f"/messages/{first}"), "Invalid message(s)")
    owner.ok("DELETE", f"/messages/{second}")
    dm = alice.ok("POST", "/messages", type="private", to=[bob.user_id], content="oops")["id"]  # type: ignore[attr-defined]
    alice.ok("DELETE", f"/messages/{dm}")
    deletes = [e for e in bulk.events() if e["type"] == "delete_message"]
    assert [e["message_type"] for e in deletes] == ["stream", "private"]


def test_delete_topic(owner: Api, alice: Api, bob: Api) -> None:
    name = shared_channel(alice, bob, "DelTopic")
    drop_channel_notice(owner, name)
    subscribe(owner, name)
    ids = [send(alice, name, "doomed", f"x{i}") for i in range(3)]
    keep = send(alice, name, "kept", "stays")
    sid = stream_id(alice, name)
    assert_error(
        bob.post(f"/streams/{sid}/delete_topic", topic_name="doomed"),
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
    )
    queue = Queue(
        alice,
        event_types=["delete_message", "user_topic"],
        client_capabilities={"bulk_message_deletion": True},
    )
    body = owner.ok("POST", f"/streams/{sid}/delete_topic", topic_name="doomed")
    assert body["complete"] is True
    events = queue.events()
    assert events[0]["message_ids"] == ids
    assert (events[1]["topic_name"], events[1]["visibility_policy"]) == ("doomed", 0)
    left = alice.ok("GET", "/messages", anchor="newest", num_before=10, narrow=[["channel", name]])
    assert [m["id"] for m in left["messages"]] == [keep]

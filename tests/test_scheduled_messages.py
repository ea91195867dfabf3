"""Scheduled messages and reminders: the endpoints, their events and state, and delivery by
the server's scheduler at the time (also after a restart), or a clear failure."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from tests.support.api import Api, assert_error
from tests.support.apply_events import apply_events, assert_state_matches
from tests.support.channels import Queue, stream_id, subscribe, unique_name
from tests.support.people import verify
from tests.support.server import ServerProcess

MakeUser = Callable[..., Api]
STATE = {"fetch_event_types": '["scheduled_messages", "reminders"]'}


def _wait_for(queue: Queue, kind: str, op: str | None = None, timeout: float = 10) -> list[Any]:
    """Everything queued up to and including the first `kind` (and `op`) event."""
    seen: list[Any] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen += queue.events()
        if any(e["type"] == kind and (op is None or e.get("op") == op) for e in seen):
            return seen
        time.sleep(0.1)
    raise AssertionError(f"no {kind} {op} event in {seen}")


def _schedule(api: Api, **params: Any) -> Any:
    return api.post("/scheduled_messages", **params)


def test_schedule_edit_and_deliver(make_user: MakeUser) -> None:
    alice, bob = make_user("Alice Later"), make_user("Bob Later")
    name = unique_name("Later")
    subscribe(alice, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    sid = stream_id(alice, name)
    when = int(time.time()) + 30
    created: list[Any] = []
    [added] = verify(
        alice,
        lambda: created.append(
            alice.ok(
                "POST",
                "/scheduled_messages",
                type="channel",
                to=sid,
                topic="plans",
                content="Ship **it**",
                scheduled_delivery_timestamp=when,
            )
        ),
        **STATE,
    )
    scheduled_id = created[0]["scheduled_message_id"]
    assert added["scheduled_messages"] == [
        {
            "scheduled_message_id": scheduled_id,
            "type": "stream",
            "to": sid,
            "topic": "plans",
            "content": "Ship **it**",
            "rendered_content": "<p>Ship <strong>it</strong></p>",
            "scheduled_delivery_timestamp": when,
            "failed": False,
        },
    ]
    assert (
        alice.ok("GET", "/scheduled_messages")["scheduled_messages"] == added["scheduled_messages"]
    )
    assert bob.ok("GET", "/scheduled_messages")["scheduled_messages"] == []
    [updated] = verify(
        alice,
        lambda: alice.ok("PATCH", f"/scheduled_messages/{scheduled_id}", content="Ship it now"),
        **STATE,
    )
    assert updated["scheduled_message"]["content"] == "Ship it now"
    # Bring it forward: the server sends it within a second or so.
    sender_state = Queue(alice, **STATE)
    bob_queue = Queue(bob, event_types=["message"])
    alice.ok(
        "PATCH",
        f"/scheduled_messages/{scheduled_id}",
        scheduled_delivery_timestamp=int(time.time()) + 1,
    )
    events = _wait_for(sender_state, "scheduled_messages", "remove")
    [message] = _wait_for(bob_queue, "message")
    assert message["message"]["content"] == "Ship it now"
    assert (
        message["message"]["subject"] == "plans"
        and message["message"]["sender_id"] == alice.user_id
    )  # type: ignore[attr-defined]
    fresh = alice.ok("POST", "/register", **STATE)
    assert_state_matches(apply_events(sender_state.state, events), fresh, events)
    assert fresh["scheduled_messages"] == []
    assert_error(
        alice.delete(f"/scheduled_messages/{scheduled_id}"),
        "Scheduled message does not exist",
        status=404,
    )


def test_schedule_errors_change_nothing(make_user: MakeUser) -> None:
    alice, bob = make_user("Alice Sched Err"), make_user("Bob Sched Err")
    later = int(time.time()) + 3600
    dm = {"type": "direct", "to": json.dumps([bob.user_id]), "content": "hi"}  # type: ignore[attr-defined]
    assert_error(
        _schedule(alice, **dm, scheduled_delivery_timestamp=int(time.time()) - 5),
        "Scheduled delivery time must be in the future.",
    )
    assert_error(
        _schedule(alice, **dm),
        "Missing 'scheduled_delivery_timestamp' argument",
        "REQUEST_VARIABLE_MISSING",
    )
    assert_error(
        _schedule(
            alice, type="stream", to="general", content="x", scheduled_delivery_timestamp=later
        ),
        "Invalid data type for channel ID",
    )
    assert_error(
        _schedule(
            alice,
            type="stream",
            to="999999",
            topic="t",
            content="x",
            scheduled_delivery_timestamp=later,
        ),
        "Channel with ID '999999' does not exist",
        "STREAM_DOES_NOT_EXIST",
    )
    assert_error(
        _schedule(
            alice, type="direct", to='["a@b.c"]', content="x", scheduled_delivery_timestamp=later
        ),
        "Recipient list may only contain user IDs",
    )
    assert_error(
        _schedule(alice, **{**dm, "content": " "}, scheduled_delivery_timestamp=later),
        "Message must not be empty",
    )
    scheduled_id = alice.ok(
        "POST", "/scheduled_messages", **dm, scheduled_delivery_timestamp=later
    )["scheduled_message_id"]
    [stored] = alice.ok("GET", "/scheduled_messages")["scheduled_messages"]
    assert (stored["type"], stored["to"], "topic" in stored) == ("private", [bob.user_id], False)  # type: ignore[attr-defined]
    path = f"/scheduled_messages/{scheduled_id}"
    assert_error(alice.patch(path), "Nothing to change")
    assert_error(
        alice.patch(path, type="stream"),
        "Recipient required when updating type of scheduled message.",
    )
    assert_error(
        alice.patch(path, type="stream", to="1"),
        "Topic required when updating scheduled message type to stream.",
    )
    assert_error(
        alice.patch(path, scheduled_delivery_timestamp=1),
        "Scheduled delivery time must be in the future.",
    )
    assert_error(bob.patch(path, content="mine"), "Scheduled message does not exist", status=404)
    assert_error(bob.delete(path), "Scheduled message does not exist", status=404)
    assert alice.ok("GET", "/scheduled_messages")["scheduled_messages"] == [stored]


def test_failed_delivery_is_reported_and_can_be_rescheduled(make_user: MakeUser) -> None:
    alice = make_user("Alice Fails")
    name = unique_name("Doomed")
    subscribe(alice, name)
    sid = stream_id(alice, name)
    scheduled_id = alice.ok(
        "POST",
        "/scheduled_messages",
        type="stream",
        to=sid,
        topic="t",
        content="too late",
        scheduled_delivery_timestamp=int(time.time()) + 2,
    )["scheduled_message_id"]
    alice.ok("DELETE", f"/streams/{sid}")  # archived before its time comes
    queue = Queue(alice, event_types=["scheduled_messages", "message"])
    events = _wait_for(queue, "scheduled_messages", "update")
    events += _wait_for(queue, "message") if not any(e["type"] == "message" for e in events) else []
    [update] = [e for e in events if e["type"] == "scheduled_messages"]
    assert update["scheduled_message"]["failed"] is True
    [notice] = [e["message"] for e in events if e["type"] == "message"]
    assert notice["sender_email"].startswith("notification-bot")
    text = alice.ok("GET", f"/messages/{notice['id']}", apply_markdown="false")["message"][
        "content"
    ]
    assert text.startswith("The message you scheduled for <time:")
    assert "was not sent because of the following error:\n\n> " in text
    assert text.rstrip().endswith("[View scheduled messages](#scheduled)")
    [stored] = alice.ok("GET", "/scheduled_messages")["scheduled_messages"]
    assert stored["failed"] is True
    path = f"/scheduled_messages/{scheduled_id}"
    assert_error(
        alice.patch(path, content="again"), "Scheduled delivery time must be in the future."
    )
    elsewhere = unique_name("Alive")
    subscribe(alice, elsewhere)
    alice.ok(
        "PATCH",
        path,
        type="stream",
        to=stream_id(alice, elsewhere),
        topic="t",
        scheduled_delivery_timestamp=int(time.time()) + 3600,
    )
    [stored] = alice.ok("GET", "/scheduled_messages")["scheduled_messages"]
    assert stored["failed"] is False and stored["to"] == stream_id(alice, elsewhere)


def test_due_while_down_is_sent_at_start(start_server: Callable[..., ServerProcess]) -> None:
    server = start_server()
    owner = Api(server.url, server.owner_email, server.owner_key)
    me = owner.ok("GET", "/users/me")["user_id"]
    owner.ok(
        "POST",
        "/scheduled_messages",
        type="direct",
        to=json.dumps([me]),
        content="while you were out",
        scheduled_delivery_timestamp=int(time.time()) + 2,
    )
    server.stop()
    time.sleep(3)
    server.start(port=server.port)
    deadline = time.monotonic() + 10
    while owner.ok("GET", "/scheduled_messages")["scheduled_messages"]:
        assert time.monotonic() < deadline, "not sent after the restart"
        time.sleep(0.2)
    newest = owner.ok(
        "GET", "/messages", anchor="newest", num_before=1, num_after=0, apply_markdown="false"
    )["messages"][-1]
    assert newest["content"] == "while you were out"


def test_reminders(make_user: MakeUser) -> None:
    alice, bob = make_user("Alice Remind"), make_user("Bob Remind")
    name = unique_name("Remind")
    subscribe(alice, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    sid = stream_id(alice, name)
    target = bob.ok(
        "POST", "/messages", type="stream", to=sid, topic="deploy", content="Deploy on **Friday**"
    )["id"]
    created: list[Any] = []
    [added] = verify(
        alice,
        lambda: created.append(
            alice.ok(
                "POST",
                "/reminders",
                message_id=target,
                note="check this",
                scheduled_delivery_timestamp=int(time.time()) + 3600,
            )
        ),
        **STATE,
    )
    reminder_id = created[0]["reminder_id"]
    [reminder] = added["reminders"]
    assert (reminder["reminder_id"], reminder["type"], reminder["to"]) == (
        reminder_id,
        "private",
        [alice.user_id],  # type: ignore[attr-defined]
    )
    assert reminder["reminder_target_message_id"] == target and reminder["failed"] is False
    assert reminder["content"].startswith(
        "You requested a reminder for the following message. Note:\n > check this\n\n"
    )
    assert alice.ok("GET", "/reminders")["reminders"] == [reminder]
    [removed] = verify(alice, lambda: alice.ok("DELETE", f"/reminders/{reminder_id}"), **STATE)
    assert removed == {**removed, "op": "remove", "reminder_id": reminder_id}
    assert_error(alice.delete(f"/reminders/{reminder_id}"), "Reminder does not exist", status=404)
    assert_error(
        alice.post("/reminders", message_id=target, scheduled_delivery_timestamp=1),
        "Scheduled delivery time must be in the future.",
    )
    assert_error(
        alice.post(
            "/reminders", message_id=999999, scheduled_delivery_timestamp=int(time.time()) + 60
        ),
        "Invalid message(s)",
    )
    assert_error(
        alice.post(
            "/reminders",
            message_id=target,
            note="n" * 1001,
            scheduled_delivery_timestamp=int(time.time()) + 60,
        ),
        "Maximum reminder note length: 1000 characters",
    )
    # Delivered by the Notification Bot at its time, quoting the message.
    queue = Queue(alice, event_types=["message", "reminders"])
    alice.ok(
        "POST", "/reminders", message_id=target, scheduled_delivery_timestamp=int(time.time()) + 1
    )
    events = _wait_for(queue, "reminders", "remove")
    if not any(e["type"] == "message" for e in events):
        events += _wait_for(queue, "message")
    [dm] = [e for e in events if e["type"] == "message"]
    assert dm["message"]["sender_email"].startswith("notification-bot")
    raw = alice.ok("GET", f"/messages/{dm['message']['id']}", apply_markdown="false")["message"]
    assert raw["content"].startswith("You requested a reminder for the following message.\n\n")
    assert f"@_**Bob Remind|{bob.user_id}** [said](" in raw["content"]  # type: ignore[attr-defined]
    assert f"in #**{name}>deploy@{target}**:\n```quote\nDeploy on **Friday**\n```" in raw["content"]
    assert alice.ok("GET", "/reminders")["reminders"] == []

"""State versus events for messages: unread counts, stars, conversations and topic policies
rebuilt from a queue's events equal a fresh register state."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.api import Api
from tests.support.channels import Queue, stream_id, subscribe, unique_name
from tests.support.message_oracle import apply_message_events
from tests.support.messaging_state import assert_same

MakeUser = Callable[..., Api]
KEYS = (
    "unread_msgs",
    "starred_messages",
    "recent_private_conversations",
    "user_topics",
    "max_message_id",
    "subscriptions",
)
FETCH = [
    "message",
    "update_message_flags",
    "starred_messages",
    "recent_private_conversations",
    "user_topic",
    "subscription",
    "stream",
]


def send(api: Api, channel: str, topic: str, content: str) -> int:
    body = api.ok("POST", "/messages", type="stream", to=channel, topic=topic, content=content)
    return int(body["id"])


def run_story(owner: Api, alice: Api, bob: Api) -> None:
    name = unique_name("Story")
    subscribe(bob, name, principals=[alice.user_id, bob.user_id, owner_id(owner)])  # type: ignore[attr-defined]
    sid = stream_id(bob, name)
    plain = send(bob, name, "chat", "hello everyone")
    mention = send(bob, name, "chat", "hey @**Alice State**")
    send(bob, name, "chat", "@**all** meeting")
    doomed = send(bob, name, "other", "to be deleted")
    quiet = send(bob, name, "quiet", "in a topic alice will mute")
    dm = bob.ok("POST", "/messages", type="private", to=[alice.user_id], content="psst")["id"]  # type: ignore[attr-defined]
    bob.ok("POST", "/messages", type="private", to=[alice.email, owner.email], content="group")
    alice.ok("POST", "/messages/flags", op="add", flag="starred", messages=[plain, dm])
    alice.ok("POST", "/messages/flags", op="add", flag="read", messages=[plain, mention])
    alice.ok("POST", "/messages/flags", op="remove", flag="read", messages=[mention])
    alice.ok("POST", "/user_topics", stream_id=sid, topic="quiet", visibility_policy=1)
    bob.ok("PATCH", f"/messages/{plain}", content="hello @**Alice State**")
    bob.ok("PATCH", f"/messages/{quiet}", topic="loud", propagate_mode="change_all")
    bob.ok("DELETE", f"/messages/{doomed}")
    send(alice, name, "mine", "my own message")
    alice.ok("POST", "/mark_topic_as_read", stream_id=sid, topic_name="chat")
    send(bob, name, "later", "more news")
    alice.ok(
        "POST",
        "/users/me/subscriptions/properties",
        subscription_data=[{"stream_id": sid, "property": "is_muted", "value": True}],
    )
    alice.ok(
        "POST",
        "/messages/flags/narrow",
        anchor="oldest",
        num_before=0,
        num_after=1000,
        narrow=[["is", "dm"]],
        op="add",
        flag="read",
    )
    alice.ok("POST", "/messages/flags", op="remove", flag="starred", messages=[plain])


def owner_id(owner: Api) -> int:
    return int(owner.ok("GET", "/users/me")["user_id"])


@pytest.mark.parametrize("empty_topic_name", [True, False], ids=["modern", "legacy"])
def test_message_events_match_fresh_state(
    owner: Api, make_user: MakeUser, empty_topic_name: bool
) -> None:
    alice, bob = make_user("Alice State"), make_user("Bob State")
    params = {
        "fetch_event_types": FETCH,
        "client_capabilities": {"empty_topic_name": empty_topic_name},
    }
    queue = Queue(alice, **params)
    run_story(owner, alice, bob)
    hybrid = apply_message_events(queue.state, queue.events(), alice.user_id)  # type: ignore[attr-defined]
    fresh = alice.ok("POST", "/register", **params)
    assert_same(hybrid, fresh, KEYS)
    assert fresh["unread_msgs"]["count"] >= 1 and fresh["starred_messages"]


def test_mark_all_as_read_clears_unread_state(make_user: MakeUser) -> None:
    alice, bob = make_user("Alice AllRead"), make_user("Bob AllRead")
    name = unique_name("AllRead")
    subscribe(bob, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    send(bob, name, "t", "one")
    queue = Queue(alice, fetch_event_types=FETCH)
    send(bob, name, "t", "two")
    assert alice.ok("POST", "/mark_all_as_read")["complete"] is True
    events = queue.events()
    assert events[-1]["all"] is True and events[-1]["messages"] == []
    hybrid = apply_message_events(queue.state, events, alice.user_id)  # type: ignore[attr-defined]
    fresh = alice.ok("POST", "/register", fetch_event_types=FETCH)
    assert_same(hybrid, fresh, KEYS)
    assert fresh["unread_msgs"]["count"] == 0

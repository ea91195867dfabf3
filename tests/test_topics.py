"""GET /users/me/{stream_id}/topics, POST /user_topics, PATCH
/users/me/subscriptions/muted_topics."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.api import Api, assert_error
from tests.support.channels import Queue, stream_id, subscribe, unique_name

MakeUser = Callable[..., Api]


@pytest.fixture(scope="module")
def alice(make_user: MakeUser) -> Api:
    return make_user("Alice Topics")


@pytest.fixture(scope="module")
def bob(make_user: MakeUser) -> Api:
    return make_user("Bob Topics")


def send(api: Api, channel: str, topic: str, content: str = "x") -> int:
    body = api.ok("POST", "/messages", type="stream", to=channel, topic=topic, content=content)
    return int(body["id"])


def test_topics_of_a_channel(alice: Api, bob: Api) -> None:
    name = unique_name("TopicList")
    subscribe(alice, name)
    sid = stream_id(alice, name)
    first = send(alice, name, "Alpha")
    beta = send(alice, name, "beta")
    alpha = send(alice, name, "alpha")
    empty = send(alice, name, "")
    topics = bob.ok("GET", f"/users/me/{sid}/topics")["topics"]
    assert topics[:3] == [
        {"name": "general chat", "max_id": empty},
        {"name": "alpha", "max_id": alpha},
        {"name": "beta", "max_id": beta},
    ]
    assert [t["name"] for t in topics[3:]] == ["channel events"]  # the channel's first notice
    raw = bob.ok("GET", f"/users/me/{sid}/topics", allow_empty_topic_name=True)["topics"]
    assert raw[0]["name"] == "" and first < alpha
    assert_error(bob.get("/users/me/999999/topics"), "Invalid channel ID")


def test_topics_with_protected_history(alice: Api, bob: Api) -> None:
    name = unique_name("TopicPriv")
    subscribe(alice, name, invite_only=True)
    sid = stream_id(alice, name)
    send(alice, name, "before")
    assert_error(bob.get(f"/users/me/{sid}/topics"), "Invalid channel ID")
    subscribe(alice, name, principals=[bob.user_id])  # type: ignore[attr-defined]
    after = send(alice, name, "after")
    assert bob.ok("GET", f"/users/me/{sid}/topics")["topics"] == [
        {"name": "after", "max_id": after}
    ]
    topics = alice.ok("GET", f"/users/me/{sid}/topics")["topics"]
    assert [t["name"] for t in topics] == ["after", "before", "channel events"]


def test_user_topics(alice: Api) -> None:
    name = unique_name("UserTopic")
    subscribe(alice, name)
    sid = stream_id(alice, name)
    queue = Queue(alice, event_types=["user_topic", "muted_topics"])
    alice.ok("POST", "/user_topics", stream_id=sid, topic="noisy", visibility_policy=1)
    muted, event = queue.events()
    assert muted["type"] == "muted_topics" and [name, "noisy"] == muted["muted_topics"][-1][:2]
    assert (event["stream_id"], event["topic_name"], event["visibility_policy"]) == (
        sid,
        "noisy",
        1,
    )
    state = alice.ok("POST", "/register", fetch_event_types=["user_topic", "muted_topics"])
    assert {
        "stream_id": sid,
        "topic_name": "noisy",
        "visibility_policy": 1,
        "last_updated": event["last_updated"],
    } in state["user_topics"]
    # zulip-compat: naming user_topic suppresses the legacy list; alone, it is there.
    assert "muted_topics" not in state
    legacy = alice.ok("POST", "/register", fetch_event_types=["muted_topics"])
    assert [name, "noisy", event["last_updated"]] in legacy["muted_topics"]
    alice.ok("POST", "/user_topics", stream_id=sid, topic="noisy", visibility_policy=0)
    assert queue.events()[1]["visibility_policy"] == 0
    assert_error(
        alice.post("/user_topics", stream_id=sid, topic="x", visibility_policy=7),
        "Invalid visibility_policy",
    )
    assert_error(
        alice.post("/user_topics", stream_id=999999, topic="x", visibility_policy=1),
        "Invalid channel ID",
    )


def test_legacy_muted_topics_endpoint(alice: Api) -> None:
    name = unique_name("Legacy")
    subscribe(alice, name)
    alice.ok("PATCH", "/users/me/subscriptions/muted_topics", stream=name, topic="t", op="add")
    assert_error(
        alice.patch("/users/me/subscriptions/muted_topics", stream=name, topic="t", op="add"),
        "Topic already muted",
    )
    sid = stream_id(alice, name)
    alice.ok("PATCH", "/users/me/subscriptions/muted_topics", stream_id=sid, topic="t", op="remove")
    assert_error(
        alice.patch("/users/me/subscriptions/muted_topics", stream_id=sid, topic="t", op="remove"),
        "Topic is not muted",
    )
    assert_error(
        alice.patch("/users/me/subscriptions/muted_topics", topic="t", op="add"),
        "Missing 'stream_id' argument",
        "REQUEST_VARIABLE_MISSING",
    )

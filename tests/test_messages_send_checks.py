"""A send's channel and permission checks apply the very next send after a change: a role,
a group's members or subgroups, a channel's posting group, topic policy or archiving (the
server remembers these between sends, and must never answer from a stale copy)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

import pytest

from tests.support import rawdb
from tests.support.api import Api, assert_error
from tests.support.channels import Queue, stream_id, subscribe, unique_name
from tests.support.server import ServerProcess

MakeUser = Callable[..., Api]
NOT_ALLOWED = "You do not have permission to post in this channel."
_names = itertools.count(1)


@pytest.fixture(scope="module")
def alice(make_user: MakeUser) -> Api:
    return make_user("Alice Checks")


def system_ids(api: Api) -> dict[str, int]:
    groups = api.ok("GET", "/user_groups")["user_groups"]
    return {g["name"]: g["id"] for g in groups if g["is_system_group"]}


def new_group(owner: Api, members: list[int]) -> int:
    name = f"send checks {next(_names)} {unique_name('g')}"
    body = owner.ok("POST", "/user_groups/create", name=name, description="d", members=members)
    return int(body["group_id"])


def me(api: Api) -> int:
    return int(api.ok("GET", "/users/me")["user_id"])


def channel(owner: Api, alice: Api) -> int:
    name = unique_name("Checks")
    subscribe(owner, name, principals=[me(owner), me(alice)])
    return stream_id(owner, name)


def send(api: Api, sid: int, topic: str = "t") -> object:
    return api.post("/messages", type="stream", to=sid, topic=topic, content="plain words")


def post_as(owner: Api, sid: int, value: object) -> None:
    owner.ok("PATCH", f"/streams/{sid}", can_send_message_group={"new": value})


def test_a_channel_posting_group_change_applies_to_the_next_send(owner: Api, alice: Api) -> None:
    sid = channel(owner, alice)
    ids = system_ids(owner)
    alice.ok("POST", "/messages", type="stream", to=sid, topic="t", content="before")
    post_as(owner, sid, ids["role:administrators"])
    assert_error(send(alice, sid), NOT_ALLOWED)
    post_as(owner, sid, {"direct_members": [alice.user_id], "direct_subgroups": []})  # type: ignore[attr-defined]
    alice.ok("POST", "/messages", type="stream", to=sid, topic="t", content="direct member")
    post_as(owner, sid, ids["role:everyone"])
    alice.ok("POST", "/messages", type="stream", to=sid, topic="t", content="everyone")


def test_a_role_change_applies_to_the_next_send(owner: Api, make_user: MakeUser) -> None:
    bob = make_user("Bob Checks")
    sid = channel(owner, bob)
    post_as(owner, sid, system_ids(owner)["role:administrators"])
    assert_error(send(bob, sid), NOT_ALLOWED)
    owner.ok("PATCH", f"/users/{bob.user_id}", role=200)  # type: ignore[attr-defined]
    bob.ok("POST", "/messages", type="stream", to=sid, topic="t", content="as administrator")
    owner.ok("PATCH", f"/users/{bob.user_id}", role=400)  # type: ignore[attr-defined]
    assert_error(send(bob, sid), NOT_ALLOWED)


def test_group_members_and_subgroups_apply_to_the_next_send(owner: Api, alice: Api) -> None:
    sid = channel(owner, alice)
    outer = new_group(owner, [me(owner)])
    post_as(owner, sid, outer)
    assert_error(send(alice, sid), NOT_ALLOWED)
    owner.ok("POST", f"/user_groups/{outer}/members", add=[alice.user_id])  # type: ignore[attr-defined]
    alice.ok("POST", "/messages", type="stream", to=sid, topic="t", content="member")
    owner.ok("POST", f"/user_groups/{outer}/members", delete=[alice.user_id])  # type: ignore[attr-defined]
    assert_error(send(alice, sid), NOT_ALLOWED)
    inner = new_group(owner, [alice.user_id])  # type: ignore[attr-defined]
    owner.ok("POST", f"/user_groups/{outer}/subgroups", add=[inner])
    alice.ok("POST", "/messages", type="stream", to=sid, topic="t", content="via subgroup")
    owner.ok("POST", f"/user_groups/{outer}/subgroups", delete=[inner])
    assert_error(send(alice, sid), NOT_ALLOWED)
    owner.ok("POST", f"/user_groups/{outer}/subgroups", add=[inner])
    alice.ok("POST", "/messages", type="stream", to=sid, topic="t", content="again")
    owner.ok("POST", f"/user_groups/{inner}/members", delete=[me(alice)])
    assert_error(send(alice, sid), NOT_ALLOWED)


def test_channel_changes_apply_to_the_next_send(owner: Api, alice: Api) -> None:
    sid = channel(owner, alice)
    alice.ok("POST", "/messages", type="stream", to=sid, topic="t", content="before")
    owner.ok("PATCH", f"/streams/{sid}", topics_policy="empty_topic_only")
    assert_error(send(alice, sid), 'Only the "general chat" topic is allowed in this channel.')
    alice.ok("POST", "/messages", type="stream", to=sid, topic="", content="empty topic")
    owner.ok("PATCH", f"/streams/{sid}", topics_policy="inherit")
    name = owner.ok("GET", f"/streams/{sid}")["stream"]["name"]
    owner.ok("DELETE", f"/streams/{sid}")
    assert_error(send(alice, sid), f"Not authorized to send to channel '{name}'")


def test_the_first_send_after_a_long_quiet_makes_a_channel_recently_active(
    server: ServerProcess, owner: Api, alice: Api
) -> None:
    sid = channel(owner, alice)
    alice.ok("POST", "/messages", type="stream", to=sid, topic="t", content="first")
    alice.ok("POST", "/messages", type="stream", to=sid, topic="t", content="second")
    # A year without messages: set the channel's age and traffic back (no endpoint does).
    today = int(time.time()) // 86400
    rawdb.query(server.db, "UPDATE stream SET date_created = ? WHERE id = ?", (0, sid))
    back = (today - 365, sid)
    rawdb.query(server.db, "UPDATE stream_traffic SET day = ? WHERE stream_id = ?", back)
    queue = Queue(alice, event_types=["stream"])
    alice.ok("POST", "/messages", type="stream", to=sid, topic="t", content="back again")
    alice.ok("POST", "/messages", type="stream", to=sid, topic="t", content="and again")
    events = [e for e in queue.events() if e.get("stream_id") == sid]
    assert [(e["property"], e["value"]) for e in events] == [("is_recently_active", True)]
    # A recent message (a month ago) keeps the channel active: no event.
    other = channel(owner, alice)
    alice.ok("POST", "/messages", type="stream", to=other, topic="t", content="first")
    rawdb.query(server.db, "UPDATE stream SET date_created = ? WHERE id = ?", (0, other))
    back = (today - 30, other)
    rawdb.query(server.db, "UPDATE stream_traffic SET day = ? WHERE stream_id = ?", back)
    queue = Queue(alice, event_types=["stream"])
    alice.ok("POST", "/messages", type="stream", to=other, topic="t", content="still here")
    assert [e for e in queue.events() if e.get("stream_id") == other] == []


def test_alert_words_apply_to_the_next_send(owner: Api, make_user: MakeUser) -> None:
    carol = make_user("Carol Checks")
    sid = channel(owner, carol)

    def carol_flags(content: str) -> list[str]:
        message_id = owner.ok(
            "POST", "/messages", type="stream", to=sid, topic="t", content=content
        )["id"]
        return list(carol.ok("GET", f"/messages/{message_id}")["message"]["flags"])

    assert "has_alert_word" not in carol_flags("the teapot is here")
    carol.ok("POST", "/users/me/alert_words", alert_words=["teapot"])
    assert "has_alert_word" in carol_flags("the teapot is here")
    assert "has_alert_word" in carol_flags("the *teapot* is here")  # the parser's path too
    carol.ok("DELETE", "/users/me/alert_words", alert_words=["teapot"])
    assert "has_alert_word" not in carol_flags("the teapot is here")

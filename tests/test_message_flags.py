"""POST /messages/flags, /messages/flags/narrow, /mark_all_as_read, /mark_stream_as_read,
/mark_topic_as_read; the unread and starred register state."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.api import Api, assert_error
from tests.support.channels import Queue, drop_channel_notice, stream_id, subscribe, unique_name

MakeUser = Callable[..., Api]


@pytest.fixture(scope="module")
def alice(make_user: MakeUser) -> Api:
    return make_user("Alice Flags")


@pytest.fixture(scope="module")
def bob(make_user: MakeUser) -> Api:
    return make_user("Bob Flags")


def send(api: Api, channel: str, topic: str, content: str) -> int:
    body = api.ok("POST", "/messages", type="stream", to=channel, topic=topic, content=content)
    return int(body["id"])


def flags_of(api: Api, message_id: int) -> list[str]:
    return list(api.ok("GET", f"/messages/{message_id}")["message"]["flags"])


def test_read_and_starred_flags(alice: Api, bob: Api) -> None:
    name = unique_name("Flags")
    subscribe(bob, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    ids = [send(bob, name, "t", f"m{i}") for i in range(3)]
    queue = Queue(alice, event_types=["update_message_flags"])
    body = alice.ok("POST", "/messages/flags", messages=ids, op="add", flag="read")
    assert body["messages"] == ids
    [event] = queue.events()
    assert (event["op"], event["operation"], event["flag"], event["all"]) == (
        "add",
        "add",
        "read",
        False,
    )
    assert event["messages"] == ids
    alice.ok("POST", "/messages/flags", messages=ids, op="add", flag="read")
    assert queue.events() == []  # nothing changed, nothing sent
    alice.ok("POST", "/messages/flags", messages=[ids[0]], op="remove", flag="read")
    [event] = queue.events()
    detail = event["message_details"][str(ids[0])]
    assert detail == {
        "type": "stream",
        "stream_id": stream_id(alice, name),
        "topic": "t",
        "unmuted_stream_msg": True,
    }
    alice.ok("POST", "/messages/flags", messages=[ids[1]], op="add", flag="starred")
    assert flags_of(alice, ids[1]) == ["read", "starred"]
    state = alice.ok(
        "POST",
        "/register",
        fetch_event_types=["starred_messages", "update_message_flags", "message"],
    )
    assert ids[1] in state["starred_messages"]
    unread = state["unread_msgs"]["streams"]
    assert any(ids[0] in item["unread_message_ids"] for item in unread)
    assert state["max_message_id"] >= ids[-1]


def test_flag_errors(alice: Api) -> None:
    cases = {
        "Invalid flag: 'shiny'": {"flag": "shiny", "op": "add"},
        "Flag not editable: 'mentioned'": {"flag": "mentioned", "op": "add"},
        "Invalid message flag operation: 'toggle'": {"flag": "read", "op": "toggle"},
    }
    for msg, params in cases.items():
        assert_error(alice.post("/messages/flags", messages=[1], **params), msg)
    assert_error(
        alice.post("/messages/flags", messages=[99999999], op="add", flag="starred"),
        "Invalid message(s)",
    )
    assert_error(
        alice.post("/messages/flags", op="add", flag="read"),
        "Missing 'messages' argument",
        "REQUEST_VARIABLE_MISSING",
    )


def test_starring_a_historical_message(alice: Api, bob: Api, make_user: MakeUser) -> None:
    name = unique_name("Historic")
    subscribe(bob, name)
    message_id = send(bob, name, "t", "before alice joined")
    assert_error(alice.get("/messages/999999999"), "Invalid message(s)")
    alice.ok("POST", "/messages/flags", messages=[message_id], op="add", flag="starred")
    assert flags_of(alice, message_id) == ["read", "starred", "historical"]
    secret = unique_name("SecretStar")
    subscribe(bob, secret, invite_only=True)
    hidden = send(bob, secret, "t", "hidden")
    assert_error(
        alice.post("/messages/flags", messages=[hidden], op="add", flag="starred"),
        "Invalid message(s)",
    )


def test_flags_for_narrow(owner: Api, alice: Api, bob: Api) -> None:
    name = unique_name("NarrowFlags")
    subscribe(bob, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    drop_channel_notice(owner, name)
    ids = [send(bob, name, "t", f"m{i}") for i in range(5)]
    body = alice.ok(
        "POST",
        "/messages/flags/narrow",
        anchor="oldest",
        num_before=0,
        num_after=3,
        narrow=[["channel", name]],
        op="add",
        flag="read",
    )
    assert (body["processed_count"], body["updated_count"]) == (3, 3)
    assert (body["first_processed_id"], body["last_processed_id"]) == (ids[0], ids[2])
    assert body["found_oldest"] is True and body["found_newest"] is False
    body = alice.ok(
        "POST",
        "/messages/flags/narrow",
        anchor=ids[2],
        include_anchor=False,
        num_before=0,
        num_after=100,
        narrow=[["channel", name], ["is", "unread"]],
        op="add",
        flag="read",
    )
    assert body["updated_count"] == 2 and body["found_newest"] is True
    assert_error(
        alice.post(
            "/messages/flags/narrow",
            anchor=ids[2],
            include_anchor=False,
            num_before=1,
            num_after=1,
            narrow=[],
            op="add",
            flag="read",
        ),
        "The anchor can only be excluded at an end of the range",
    )


def test_mark_channel_topic_and_all_as_read(owner: Api, alice: Api, bob: Api) -> None:
    name = unique_name("MarkRead")
    subscribe(bob, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    drop_channel_notice(owner, name)
    sid = stream_id(alice, name)
    first = send(bob, name, "a", "x")
    second = send(bob, name, "b", "y")
    queue = Queue(alice, event_types=["update_message_flags"])
    alice.ok("POST", "/mark_topic_as_read", stream_id=sid, topic_name="a")
    assert queue.events()[0]["messages"] == [first]
    assert_error(
        alice.post("/mark_topic_as_read", stream_id=sid, topic_name="zzz"), "No such topic 'zzz'"
    )
    alice.ok("POST", "/mark_stream_as_read", stream_id=sid)
    assert queue.events()[0]["messages"] == [second]
    assert_error(alice.post("/mark_stream_as_read", stream_id=999999), "Invalid channel ID")
    third = send(bob, name, "c", "z")
    assert alice.ok("POST", "/mark_all_as_read")["complete"] is True
    assert queue.events()[0]["all"] is True
    assert "read" in flags_of(alice, third)


def test_recent_private_conversations(alice: Api, bob: Api, owner: Api) -> None:
    one = alice.ok("POST", "/messages", type="private", to=[bob.user_id], content="hi")["id"]  # type: ignore[attr-defined]
    group = alice.ok(
        "POST", "/messages", type="private", to=[bob.email, owner.email], content="all"
    )["id"]
    state = alice.ok("POST", "/register", fetch_event_types=["recent_private_conversations"])
    conversations = state["recent_private_conversations"]
    assert conversations[0]["max_message_id"] == group
    assert sorted(conversations[0]["user_ids"]) == sorted([bob.user_id, owner_user_id(owner)])  # type: ignore[attr-defined]
    assert {"user_ids": [bob.user_id], "max_message_id": one} in conversations  # type: ignore[attr-defined]
    pms = bob.ok("POST", "/register", fetch_event_types=["update_message_flags", "message"])
    pm = next(p for p in pms["unread_msgs"]["pms"] if p["other_user_id"] == alice.user_id)  # type: ignore[attr-defined]
    assert pm["sender_id"] == alice.user_id and one in pm["unread_message_ids"]  # type: ignore[attr-defined]
    assert any(group in h["unread_message_ids"] for h in pms["unread_msgs"]["huddles"])


def owner_user_id(owner: Api) -> int:
    return int(owner.ok("GET", "/users/me")["user_id"])

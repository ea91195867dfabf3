"""Widgets: /poll and /todo messages, bots' zform widget_content, POST /submessage."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.support.api import Api, assert_error
from tests.support.channels import Queue, stream_id, subscribe, unique_name
from tests.support.people import verify

MakeUser = Callable[..., Api]


def _channel(alice: Api, bob: Api, prefix: str) -> int:
    name = unique_name(prefix)
    subscribe(alice, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    return stream_id(alice, name)


def _message(api: Api, message_id: int) -> Any:
    return api.ok("GET", f"/messages/{message_id}")["message"]


def test_poll_lifecycle(make_user: MakeUser) -> None:
    alice, bob = make_user("Alice Poll"), make_user("Bob Poll")
    sid = _channel(alice, bob, "Polls")
    bob_queue = Queue(bob, event_types=["message", "submessage"])
    content = "/poll Lunch where?\n- Pizza\n* Sushi\n\nTacos"
    poll_id = alice.ok("POST", "/messages", type="stream", to=sid, topic="lunch", content=content)[
        "id"
    ]
    [event] = bob_queue.events()
    [widget] = event["message"]["submessages"]
    assert (widget["msg_type"], widget["sender_id"], widget["message_id"]) == (
        "widget", alice.user_id, poll_id,  # type: ignore[attr-defined]
    )  # fmt: skip
    assert json.loads(widget["content"]) == {
        "widget_type": "poll",
        "extra_data": {"question": "Lunch where?", "options": ["Pizza", "Sushi", "Tacos"]},
    }
    assert _message(bob, poll_id)["submessages"] == [widget]
    vote = json.dumps({"type": "vote", "key": "canned,1", "vote": 1})
    [added] = verify(
        bob,
        lambda: bob.ok("POST", "/submessage", message_id=poll_id, msg_type="widget", content=vote),
    )
    assert added["type"] == "submessage"
    assert (added["sender_id"], added["content"], added["message_id"]) == (
        bob.user_id, vote, poll_id,  # type: ignore[attr-defined]
    )  # fmt: skip
    option = json.dumps({"type": "new_option", "idx": 1, "option": "Curry"})
    bob.ok("POST", "/submessage", message_id=poll_id, msg_type="widget", content=option)
    stored = _message(alice, poll_id)["submessages"]
    assert [s["content"] for s in stored[1:]] == [vote, option]
    assert [s["id"] for s in stored] == sorted(s["id"] for s in stored)
    # The author may change the question; nobody else may.
    question = json.dumps({"type": "question", "question": "Dinner where?"})
    alice.ok("POST", "/submessage", message_id=poll_id, msg_type="widget", content=question)
    assert_error(
        bob.post("/submessage", message_id=poll_id, msg_type="widget", content=question),
        "You can't edit a question unless you are the author.",
    )
    bad_votes = [
        ({"type": "vote", "key": "x", "vote": 2}, "poll data['vote'] is not in [1, -1]"),
        ({"type": "vote", "key": "x"}, "vote key is missing from poll data"),
        ({"type": "vote", "key": "canned", "vote": 1}, "poll data['key'] is not an option key"),
        ({"type": "vote", "key": 1, "vote": 1}, "poll data['key'] is not a string"),
        ({"type": "new_option", "idx": 1001, "option": "x"},
         "poll data['idx'] is not in the range 0 to 1000"),
        ({"type": "vote", "key": "x", "vote": 1, "extra": 1}, "Unexpected arguments: extra"),
        ({"type": "dance"}, "Unknown type for poll data: dance"),
        ([1, 2], "poll data is not a dict"),
    ]  # fmt: skip
    for data, msg in bad_votes:
        assert_error(
            bob.post(
                "/submessage", message_id=poll_id, msg_type="widget", content=json.dumps(data)
            ),
            msg,
        )
    assert_error(
        bob.post("/submessage", message_id=poll_id, msg_type="widget", content="{nope"),
        "Invalid json for submessage",
    )
    assert len(_message(alice, poll_id)["submessages"]) == 4
    assert_error(
        alice.patch(f"/messages/{poll_id}", content="/poll other"), "Widgets cannot be edited."
    )


def test_todo_and_permissions(make_user: MakeUser) -> None:
    alice, bob, carol = make_user("Alice Todo"), make_user("Bob Todo"), make_user("Carol Todo")
    todo_id = alice.ok(
        "POST",
        "/messages",
        type="direct",
        to=[bob.user_id],  # type: ignore[attr-defined]
        content="/todo Launch\nWrite docs: the README\nShip it",
    )["id"]
    [widget] = _message(bob, todo_id)["submessages"]
    assert json.loads(widget["content"])["extra_data"] == {
        "task_list_title": "Launch",
        "tasks": [{"task": "Write docs", "desc": "the README"}, {"task": "Ship it", "desc": ""}],
    }
    task = {"type": "new_task", "key": 2, "task": "Party", "desc": "", "completed": False}
    bob.ok("POST", "/submessage", message_id=todo_id, msg_type="widget", content=json.dumps(task))
    bob.ok("POST", "/submessage", message_id=todo_id, msg_type="widget",
           content=json.dumps({"type": "strike", "key": "1,canned"}))  # fmt: skip
    assert_error(
        bob.post("/submessage", message_id=todo_id, msg_type="widget",
                 content=json.dumps({"type": "new_task_list_title", "title": "Mine"})),
        "You can't edit the task list title unless you are the author.",
    )  # fmt: skip
    # Someone who does not have the message cannot reach it.
    assert_error(
        carol.post("/submessage", message_id=todo_id, msg_type="widget", content="{}"),
        "Invalid message(s)",
    )
    # On an ordinary message, the sender must attach the first submessage.
    plain = bob.ok("POST", "/messages", type="direct", to=[alice.user_id], content="hi")["id"]  # type: ignore[attr-defined]
    assert_error(
        alice.post("/submessage", message_id=plain, msg_type="widget", content="{}"),
        "You cannot attach a submessage to this message.",
    )
    assert_error(
        bob.post("/submessage", message_id=plain, msg_type="widget"),
        "Missing 'content' argument",
        "REQUEST_VARIABLE_MISSING",
    )
    assert _message(alice, plain)["submessages"] == []


def test_bot_widget_content(make_user: MakeUser) -> None:
    alice, bob = make_user("Alice Zform"), make_user("Bob Zform")
    sid = _channel(alice, bob, "Zform")
    zform = {
        "widget_type": "zform",
        "extra_data": {
            "type": "choices",
            "heading": "Pick one",
            "choices": [{"short_name": "A", "long_name": "Apple", "reply": "apple"}],
        },
    }
    sent = alice.ok("POST", "/messages", type="stream", to=sid, topic="z", content="Pick",
                    widget_content=json.dumps(zform))["id"]  # fmt: skip
    [widget] = _message(bob, sent)["submessages"]
    assert json.loads(widget["content"]) == zform
    bad = [
        ("{{{", "Widgets: API programmer sent invalid JSON content"),
        (json.dumps({"color": "red"}), "Widgets: widget_type is not in widget_content"),
        (json.dumps({"widget_type": "poll", "extra_data": {}}),
         "Widgets: unknown widget type: poll"),
        (json.dumps({**zform, "extra_data": {"type": "choices", "heading": "h", "choices": [7]}}),
         'Widgets: extra_data["choices"][0] is not a dict'),
    ]  # fmt: skip
    before = alice.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)["messages"]
    for widget_content, msg in bad:
        assert_error(
            alice.post("/messages", type="stream", to=sid, topic="z", content="x",
                       widget_content=widget_content),
            msg,
        )  # fmt: skip
    after = alice.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)["messages"]
    assert before == after
    # Ordinary messages that only look like commands are not widgets.
    for text in ("use /poll", "/me shrugs", "/bogus_command"):
        sent = alice.ok("POST", "/messages", type="stream", to=sid, topic="z", content=text)["id"]
        assert _message(alice, sent)["submessages"] == []

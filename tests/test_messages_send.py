"""POST /messages: every rule of SPEC's "Send a message", and the events it sends."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from tests.conftest import unique_email
from tests.support.api import Api, assert_error, assert_success
from tests.support.channels import Queue, make_role_user, stream_id, subscribe, unique_name
from tests.support.server import ServerProcess

MakeUser = Callable[..., Api]


@pytest.fixture(scope="module")
def alice(make_user: MakeUser) -> Api:
    return make_user("Alice Send")


@pytest.fixture(scope="module")
def bob(make_user: MakeUser) -> Api:
    return make_user("Bob Send")


def send_stream(api: Api, channel: str | int, topic: str, content: str, **params: object) -> int:
    body = api.ok(
        "POST", "/messages", type="stream", to=channel, topic=topic, content=content, **params
    )
    return int(body["id"])


def test_channel_message_by_name_and_id(alice: Api, bob: Api) -> None:
    name = unique_name("Send")
    subscribe(alice, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    bob_queue = Queue(bob, event_types=["message"], apply_markdown=True)
    first = send_stream(alice, name, "greetings", "hello **world**")
    second = alice.ok(
        "POST",
        "/messages",
        type="channel",
        to=stream_id(alice, name),
        subject="greetings",
        content="by id",
    )["id"]
    third = send_stream(alice, f'"{name}"', "greetings", "json name")
    assert first < second < third
    events = bob_queue.events()
    assert [e["message"]["id"] for e in events] == [first, second, third]
    message = events[0]["message"]
    assert message["content"] == "<p>hello <strong>world</strong></p>"
    assert message["type"] == "stream" and message["display_recipient"] == name
    assert message["subject"] == "greetings" and message["sender_id"] == alice.user_id  # type: ignore[attr-defined]
    assert events[0]["flags"] == [] and "local_message_id" not in events[0]
    body = bob.ok("GET", f"/messages/{first}")
    assert body["raw_content"] == "hello **world**"
    assert body["message"]["content_type"] == "text/html"
    raw = bob.ok("GET", f"/messages/{first}", apply_markdown=False)["message"]
    assert raw["content"] == "hello **world**" and raw["content_type"] == "text/x-markdown"


def test_direct_messages_by_ids_and_emails(alice: Api, bob: Api, owner: Api) -> None:
    queue = Queue(bob, event_types=["message"])
    by_ids = alice.ok("POST", "/messages", type="direct", to=[bob.user_id], content="hi")  # type: ignore[attr-defined]
    by_emails = alice.ok("POST", "/messages", type="private", to=f"{bob.email}", content="hey")
    group = alice.ok(
        "POST", "/messages", type="private", to=[bob.email, owner.email], content="all of us"
    )
    events = queue.events()
    assert [e["message"]["id"] for e in events] == [by_ids["id"], by_emails["id"], group["id"]]
    pair = {u["id"] for u in events[0]["message"]["display_recipient"]}
    assert pair == {alice.user_id, bob.user_id}  # type: ignore[attr-defined]
    assert events[0]["message"]["subject"] == "" and "stream_id" not in events[0]["message"]
    # One conversation, one recipient id; the group is another.
    assert events[0]["message"]["recipient_id"] == events[1]["message"]["recipient_id"]
    assert events[2]["message"]["recipient_id"] != events[0]["message"]["recipient_id"]
    assert len(events[2]["message"]["display_recipient"]) == 3
    # The sender in the list is ignored unless alone: then it is a message to oneself.
    alone = alice.ok("POST", "/messages", type="private", to=[alice.email], content="note")
    mine = alice.ok("GET", f"/messages/{alone['id']}")["message"]
    assert [u["id"] for u in mine["display_recipient"]] == [alice.user_id]  # type: ignore[attr-defined]


def test_send_errors(alice: Api, bob: Api) -> None:
    name = unique_name("Errors")
    subscribe(alice, name)
    body = assert_error(
        alice.post("/messages", type="stream", to="no-such-channel", topic="t", content="x"),
        "Channel 'no-such-channel' does not exist",
        "STREAM_DOES_NOT_EXIST",
    )
    assert body["stream"] == "no-such-channel"
    assert_error(
        alice.post("/messages", type="stream", to=999999, topic="t", content="x"),
        "Channel with ID '999999' does not exist",
        "STREAM_DOES_NOT_EXIST",
    )
    cases = [
        ({"type": "private", "to": ["nobody@example.com"]}, "Invalid email 'nobody@example.com'"),
        ({"type": "private", "to": [999999]}, "Invalid user ID 999999"),
        ({"type": "private", "to": []}, "Message must have recipients"),
        (
            {"type": "private", "to": [bob.email, 1]},
            "Recipient lists may contain emails or user IDs, but not both.",
        ),
        ({"type": "stream", "to": name}, "Missing topic"),
        (
            {"type": "stream", "to": name, "topic": "t", "content": "  \n"},
            "Message must not be empty",
        ),
        (
            {"type": "stream", "to": name, "topic": "t", "content": "a\x00b"},
            "Message must not contain null bytes",
        ),
        ({"type": "stream", "topic": "t"}, "Missing channel"),
        ({"type": "broadcast", "to": name, "topic": "t"}, "Invalid type"),
        ({"type": "stream", "to": [name, name], "topic": "t"}, "Expected exactly one channel"),
        (
            {"type": "stream", "to": name, "topic": "a\x07"},
            "Invalid character in topic, at position 2!",
        ),
    ]
    for params, msg in cases:
        response = alice.post("/messages", **{"content": "hello", **params})
        assert_error(response, msg)
    assert_error(
        alice.post("/messages", type="stream", to=name, topic="t"),
        "Missing 'content' argument",
        "REQUEST_VARIABLE_MISSING",
    )
    assert_error(
        alice.post("/messages", type="stream", to=name, topic="t", content="x", queue_id="q"),
        "Missing 'local_id' argument",
        "REQUEST_VARIABLE_MISSING",
    )


def test_private_channels_and_guests(server: ServerProcess, alice: Api, bob: Api) -> None:
    secret = unique_name("NoSend")
    subscribe(alice, secret, invite_only=True)
    assert_error(
        bob.post("/messages", type="stream", to=secret, topic="t", content="x"),
        f"Not authorized to send to channel '{secret}'",
    )
    public = unique_name("GuestNo")
    subscribe(alice, public)
    guest = make_role_user(server, unique_email("guestsend"), "Guest Send", "guest")
    assert_error(
        guest.post("/messages", type="stream", to=public, topic="t", content="x"),
        f"Not authorized to send to channel '{public}'",
    )
    subscribe(alice, public, principals=[guest.user_id])  # type: ignore[attr-defined]
    send_stream(guest, public, "t", "now I can")


def test_topic_rules(owner: Api, alice: Api) -> None:
    name = unique_name("Topics")
    subscribe(alice, name)
    ids = [
        send_stream(alice, name, "(no topic)", "a"),
        send_stream(alice, name, "general chat", "b"),
        send_stream(alice, name, "", "c"),
    ]
    for message_id in ids:
        shown = alice.ok("GET", f"/messages/{message_id}")["message"]["subject"]
        real = alice.ok("GET", f"/messages/{message_id}", allow_empty_topic_name=True)
        assert shown == "general chat" and real["message"]["subject"] == ""
    long_id = send_stream(alice, name, "x" * 70, "long")
    assert alice.ok("GET", f"/messages/{long_id}")["message"]["subject"] == "x" * 57 + "..."
    padded = send_stream(alice, name, "  spaced  ", "trimmed")
    assert alice.ok("GET", f"/messages/{padded}")["message"]["subject"] == "spaced"
    sid = stream_id(alice, name)
    # Members may set topic policies (Zulip's default) in a channel they administer.
    alice.ok("PATCH", f"/streams/{sid}", topics_policy="disable_empty_topic")
    assert_error(
        alice.post("/messages", type="stream", to=name, topic="(no topic)", content="x"),
        'Sending messages to "general chat" is not allowed in this channel.',
    )


def test_long_content_is_truncated(alice: Api) -> None:
    name = unique_name("Long")
    subscribe(alice, name)
    message_id = send_stream(alice, name, "t", "y" * 10050)
    raw = alice.ok("GET", f"/messages/{message_id}")["raw_content"]
    assert len(raw) == 10000 and raw.endswith("\n[message truncated]")


def test_local_id_goes_only_to_the_sending_queue(alice: Api, bob: Api) -> None:
    name = unique_name("Local")
    subscribe(alice, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    mine, other = Queue(alice, event_types=["message"]), Queue(alice, event_types=["message"])
    bobs = Queue(bob, event_types=["message"])
    send_stream(alice, name, "t", "echo", queue_id=mine.queue_id, local_id="123.01")
    assert [e.get("local_message_id") for e in mine.events()] == ["123.01"]
    assert [e.get("local_message_id") for e in other.events()] == [None]
    assert [e.get("local_message_id") for e in bobs.events()] == [None]


def test_read_by_sender(server: ServerProcess, alice: Api) -> None:
    name = unique_name("ReadBy")
    subscribe(alice, name)
    queue = Queue(alice, event_types=["message"])
    send_stream(alice, name, "t", "explicit", read_by_sender=True)
    send_stream(alice, name, "t", "api client")
    terminal = httpx.Client(
        base_url=f"{server.url}/api/v1",
        auth=(alice.email, alice.api_key),  # type: ignore[arg-type]
        headers={"User-Agent": "ZulipTerminal/0.7.0 Linux"},
    )
    with terminal:
        body = assert_success(
            terminal.post(
                "/messages", data={"type": "stream", "to": name, "topic": "t", "content": "zt"}
            )
        )
    events = queue.events()
    assert [("read" in e["flags"]) for e in events] == [True, False, True]
    assert alice.ok("GET", f"/messages/{body['id']}")["message"]["client"] == "ZulipTerminal"


def test_sending_follows_a_new_topic(alice: Api) -> None:
    name = unique_name("Follow")
    subscribe(alice, name)
    queue = Queue(alice, event_types=["user_topic", "muted_topics"])
    body = alice.ok("POST", "/messages", type="stream", to=name, topic="fresh", content="first")
    assert body["automatic_new_visibility_policy"] == 3
    events = queue.events()
    assert [e["type"] for e in events] == ["muted_topics", "user_topic"]
    assert (events[1]["topic_name"], events[1]["visibility_policy"]) == ("fresh", 3)
    again = alice.ok("POST", "/messages", type="stream", to=name, topic="fresh", content="more")
    assert "automatic_new_visibility_policy" not in again
    assert queue.events() == []


def test_mentions_set_flags_and_follow_the_topic(alice: Api, bob: Api) -> None:
    name = unique_name("Mention")
    subscribe(alice, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    queue = Queue(bob, event_types=["message", "user_topic"])
    send_stream(alice, name, "t", "hi @**Bob Send**")
    send_stream(alice, name, "t", "silent @_**Bob Send**")
    send_stream(alice, name, "t", "hey @**all**")
    send_stream(alice, name, "t", "and @**topic**")
    events = queue.events()
    flags = [e["flags"] for e in events if e["type"] == "message"]
    assert flags == [
        ["mentioned"],
        [],
        ["stream_wildcard_mentioned", "wildcard_mentioned"],
        [],
    ]
    follows = [e for e in events if e["type"] == "user_topic"]
    assert [(f["topic_name"], f["visibility_policy"]) for f in follows] == [("t", 3)]


def test_ignored_parameters(alice: Api) -> None:
    name = unique_name("Ign")
    subscribe(alice, name)
    body = alice.ok(
        "POST", "/messages", type="stream", to=name, topic="t", content="x", not_a_parameter="{}"
    )
    assert body["ignored_parameters_unsupported"] == ["not_a_parameter"]


@pytest.fixture(scope="module")
def crowd(make_user: MakeUser) -> list[Api]:
    """Fifteen more members: enough to make a channel or topic "large" for wildcards."""
    return [make_user(f"Crowd {index}") for index in range(15)]


def test_wildcard_mentions_in_large_channels(owner: Api, alice: Api, crowd: list[Api]) -> None:
    crowd_ids = [api.user_id for api in crowd]  # type: ignore[attr-defined]
    name = unique_name("Large")
    subscribe(alice, name, principals=[alice.user_id, *crowd_ids[:14]])  # type: ignore[attr-defined]
    send_stream(alice, name, "t", "15 subscribers: @**all** is fine")
    subscribe(alice, name, principals=[crowd_ids[14]])
    assert_error(
        alice.post("/messages", type="stream", to=name, topic="t", content="@**everyone** hi"),
        "You do not have permission to use channel wildcard mentions in this channel.",
        "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
    )
    send_stream(alice, name, "t", "silent @_**all** is fine")
    # Administrators are in can_mention_many_users_group.
    send_stream(owner, name, "t", "@**channel** from an admin")


def test_topic_wildcard_in_busy_topics(owner: Api, alice: Api, crowd: list[Api]) -> None:
    name = unique_name("Busy")
    subscribe(owner, name)
    send_stream(alice, name, "busy", "@**topic** while quiet")
    # Reactions count as participation, so 16 people reacting make the topic large.
    target = send_stream(owner, name, "busy", "react here")
    for reactor in crowd[:14]:
        reactor.ok("POST", f"/messages/{target}/reactions", emoji_name="smile")
    assert_error(
        alice.post("/messages", type="stream", to=name, topic="busy", content="@**topic** hi"),
        "You do not have permission to use topic wildcard mentions in this topic.",
        "TOPIC_WILDCARD_MENTION_NOT_ALLOWED",
    )
    send_stream(alice, name, "other", "@**topic** in a quiet topic")


def test_render_message(alice: Api) -> None:
    body = alice.ok("POST", "/messages/render", content="**bold** <script>x</script>")
    assert body["rendered"] == "<p><strong>bold</strong> &lt;script&gt;x&lt;/script&gt;</p>"
    assert_error(
        alice.post("/messages/render"), "Missing 'content' argument", "REQUEST_VARIABLE_MISSING"
    )

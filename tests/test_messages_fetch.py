"""GET /messages (anchors, narrows, search) and GET /messages/{id}; message events as each
queue asked for them."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.api import Api, assert_error
from tests.support.channels import Queue, drop_channel_notice, stream_id, subscribe, unique_name

MakeUser = Callable[..., Api]


@pytest.fixture(scope="module")
def alice(make_user: MakeUser) -> Api:
    return make_user("Alice Fetch")


@pytest.fixture(scope="module")
def bob(make_user: MakeUser) -> Api:
    return make_user("Bob Fetch")


def send(api: Api, channel: str, topic: str, content: str) -> int:
    body = api.ok("POST", "/messages", type="stream", to=channel, topic=topic, content=content)
    return int(body["id"])


def fetch(api: Api, narrow: object, **params: object) -> dict:  # type: ignore[type-arg]
    window = {"anchor": "newest", "num_before": 100, "num_after": 0, **params}
    return api.ok("GET", "/messages", narrow=narrow, **window)


def ids(body: dict) -> list[int]:  # type: ignore[type-arg]
    return [m["id"] for m in body["messages"]]


@pytest.fixture(scope="module")
def channel(owner: Api, alice: Api, bob: Api) -> tuple[str, list[int]]:
    """A channel with ten messages in two topics, the last mentioning Bob."""
    name = unique_name("Fetch")
    subscribe(alice, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    drop_channel_notice(owner, name)
    sent = [send(alice, name, f"topic {i % 2}", f"message number {i}") for i in range(9)]
    sent.append(send(alice, name, "topic 1", "last one for @**Bob Fetch** with https://x.org"))
    return name, sent


def test_anchors_and_found_flags(bob: Api, channel: tuple[str, list[int]]) -> None:
    name, sent = channel
    narrow = [["channel", name]]
    body = fetch(bob, narrow, num_before=3)
    assert ids(body) == sent[-3:] and body["anchor"] == 10000000000000000
    assert (body["found_newest"], body["found_oldest"], body["found_anchor"]) == (
        True,
        False,
        False,
    )
    assert body["history_limited"] is False
    body = fetch(bob, narrow, anchor="oldest", num_before=0, num_after=4)
    assert ids(body) == sent[:4] and body["found_oldest"] and not body["found_newest"]
    middle = sent[4]
    body = fetch(bob, narrow, anchor=middle, num_before=2, num_after=2)
    assert ids(body) == sent[2:7] and body["found_anchor"] is True
    body = fetch(bob, narrow, anchor=middle, num_before=2, num_after=0, include_anchor=False)
    assert ids(body) == sent[2:4]
    body = fetch(bob, narrow, anchor=middle, num_before=0, num_after=0)
    assert ids(body) == [middle]
    body = fetch(bob, narrow, anchor=sent[-1], num_before=0, num_after=5)
    assert ids(body) == [sent[-1]] and body["found_newest"] is True


def test_first_unread_anchor(bob: Api, channel: tuple[str, list[int]]) -> None:
    name, sent = channel
    body = fetch(bob, [["stream", name]], anchor="first_unread", num_before=1, num_after=1)
    assert body["anchor"] == sent[0] and ids(body) == sent[:2]
    legacy = bob.ok(
        "GET",
        "/messages",
        use_first_unread_anchor=True,
        num_before=0,
        num_after=1,
        narrow=[["stream", name]],
    )
    assert legacy["anchor"] == sent[0]
    none_unread = fetch(bob, [["stream", name], ["is", "starred"]], anchor="first_unread")
    assert none_unread["anchor"] == 10000000000000000


def test_narrows(alice: Api, bob: Api, channel: tuple[str, list[int]]) -> None:
    name, sent = channel
    sid = stream_id(bob, name)
    assert ids(fetch(bob, [["stream", name], ["topic", "topic 0"]])) == sent[0:9:2]
    by_id = [
        {"operator": "channel", "operand": sid},
        {"operator": "topic", "operand": "TOPIC 1"},
    ]
    assert ids(fetch(bob, by_id)) == sent[1:10:2]
    assert ids(
        fetch(
            bob,
            [
                ["channel", name],
                [
                    "topic",
                    "topic 0",
                ],
                ["search", "number 4"],
            ],
        )
    ) == [sent[4]]
    assert ids(fetch(bob, [["channel", name], ["is", "mentioned"]])) == [sent[-1]]
    assert ids(fetch(bob, [["channel", name], ["has", "link"]])) == [sent[-1]]
    assert ids(fetch(bob, [["channel", name], ["sender", alice.email]])) == sent
    assert ids(fetch(bob, [["channel", name], ["id", str(sent[3])]])) == [sent[3]]
    negated = [{"operator": "topic", "operand": "topic 0", "negated": True}]
    assert ids(fetch(bob, [["channel", name], *negated])) == sent[1:10:2]
    assert ids(fetch(bob, [["channel", name], ["near", str(sent[3])]])) == sent
    assert ids(fetch(bob, [["with", str(sent[2])]])) == sent[0:9:2]
    # Bob was mentioned in "topic 1", so he follows it; Alice started both topics.
    assert ids(fetch(bob, [["channel", name], ["is", "followed"]])) == sent[1:10:2]
    assert ids(fetch(alice, [["channel", name], ["is", "followed"]])) == sent


def test_search_uses_words_and_phrases(alice: Api, channel: tuple[str, list[int]]) -> None:
    name, sent = channel
    assert ids(fetch(alice, [["channel", name], ["search", "numbers"]])) == sent[:9]
    assert ids(fetch(alice, [["channel", name], ["search", '"number 7"']])) == [sent[7]]
    assert ids(fetch(alice, [["channel", name], ["search", "topic"]])) == sent
    assert ids(fetch(alice, [["channel", name], ["search", "absent-word-zz"]])) == []


def test_direct_message_narrows(alice: Api, bob: Api, owner: Api) -> None:
    one = alice.ok("POST", "/messages", type="private", to=[bob.user_id], content="psst")["id"]  # type: ignore[attr-defined]
    group = alice.ok(
        "POST", "/messages", type="private", to=[bob.email, owner.email], content="group chat"
    )["id"]
    assert ids(fetch(bob, [["dm", alice.email]]))[-1] == one
    assert ids(fetch(bob, [{"operator": "pm-with", "operand": [alice.user_id]}]))[-1] == one  # type: ignore[attr-defined]
    assert ids(fetch(bob, [["dm", f"{alice.email},{owner.email}"]]))[-1] == group
    assert {one, group} <= set(ids(fetch(bob, [["is", "dm"]])))
    including = [{"operator": "dm-including", "operand": alice.user_id}]  # type: ignore[attr-defined]
    assert {one, group} <= set(ids(fetch(bob, including)))
    assert ids(fetch(bob, [["is", "private"], ["search", "group chat"]]))[-1] == group
    assert ids(fetch(owner, [["dm", bob.email]])) == []


def test_conversation_and_sender_windows(make_user: MakeUser) -> None:
    """Windows around an anchor over a conversation, a sender and a flag among other
    conversations: the shapes whose index (message or user_message) drives the query."""
    carol, dave, erin = make_user("Carol Window"), make_user("Dave Window"), make_user("Erin")

    def dm(sender: Api, to: Api, content: str) -> int:
        recipients = [to.user_id]  # type: ignore[attr-defined]
        return int(
            sender.ok("POST", "/messages", type="private", to=recipients, content=content)["id"]
        )

    carol_dms, erin_dms = [], []
    for i in range(6):
        carol_dms.append(dm(carol, dave, f"from carol {i}"))
        erin_dms.append(dm(erin, dave, f"from erin {i}"))
    conversation = [["dm", carol.email]]
    body = fetch(dave, conversation, anchor=carol_dms[2], num_before=2, num_after=2)
    assert ids(body) == carol_dms[0:5] and body["found_anchor"] is True
    assert not body["found_oldest"] and not body["found_newest"]
    body = fetch(dave, conversation, anchor=erin_dms[2], num_before=1, num_after=1)
    assert ids(body) == carol_dms[2:4] and body["found_anchor"] is False
    body = fetch(dave, conversation, anchor="oldest", num_before=0, num_after=10)
    assert ids(body) == carol_dms and body["found_oldest"] and body["found_newest"]
    assert ids(fetch(dave, conversation, num_before=3)) == carol_dms[-3:]
    sender = [["sender", erin.email]]
    around = fetch(dave, sender, anchor=carol_dms[3], num_before=2, num_after=2)
    assert ids(around) == erin_dms[1:5]
    starred_ids = [carol_dms[1], carol_dms[4]]
    dave.ok("POST", "/messages/flags", messages=starred_ids, op="add", flag="starred")
    starred = [*conversation, ["is", "starred"]]
    assert ids(fetch(dave, starred, anchor=carol_dms[3], num_before=5, num_after=5)) == starred_ids
    dave.ok("POST", "/messages/flags", messages=carol_dms[:3], op="add", flag="read")
    unread = [*conversation, ["is", "unread"]]
    first = fetch(dave, unread, anchor="first_unread", num_before=0, num_after=2)
    assert first["anchor"] == carol_dms[3] and ids(first) == carol_dms[3:6]
    assert ids(fetch(dave, [*sender, ["is", "unread"]], num_before=2)) == erin_dms[-2:]


def test_public_history_and_protected_history(
    owner: Api, alice: Api, bob: Api, make_user: MakeUser
) -> None:
    late = make_user("Late Joiner")
    public, private = unique_name("PubHist"), unique_name("PrivHist")
    subscribe(alice, public)
    drop_channel_notice(owner, public)
    subscribe(alice, private, invite_only=True)
    old_public = send(alice, public, "t", "before you came")
    old_private = send(alice, private, "t", "secret past")
    # Public history is readable without subscribing; those messages are historical.
    body = fetch(late, [["channel", public]])
    assert ids(body) == [old_public]
    assert body["messages"][0]["flags"] == ["read", "historical"]
    assert fetch(late, [])["messages"] == [] or old_public not in ids(fetch(late, []))
    subscribe(alice, private, principals=[late.user_id])  # type: ignore[attr-defined]
    new_private = send(alice, private, "t", "welcome")
    assert ids(fetch(late, [["channel", private]])) == [new_private]
    assert_error(late.get(f"/messages/{old_private}"), "Invalid message(s)")
    assert late.ok("GET", f"/messages/{new_private}")["message"]["flags"] == []
    assert_error(bob.get(f"/messages/{new_private}"), "Invalid message(s)")
    assert_error(bob.get("/messages/99999999"), "Invalid message(s)")


def test_fetch_errors(bob: Api) -> None:
    assert_error(bob.get("/messages", num_before=1, num_after=0), "Missing 'anchor' argument.")
    assert_error(bob.get("/messages", anchor="soon"), "Invalid anchor")
    assert_error(
        bob.get("/messages", anchor="newest", num_before=5001),
        "Too many messages requested (maximum 5000).",
    )
    assert_error(bob.get("/messages", anchor=5, num_before=-1), "num_before is too small")
    assert_error(
        bob.get("/messages", anchor=5, num_before=1, num_after=1, include_anchor=False),
        "The anchor can only be excluded at an end of the range",
    )
    body = assert_error(
        bob.get("/messages", anchor="newest", narrow=[["channel", "nope-zz"]]),
        "Invalid narrow operator: unknown channel nope-zz",
        "BAD_NARROW",
    )
    assert body["desc"] == "unknown channel nope-zz"
    assert_error(
        bob.get("/messages", anchor="newest", narrow=[["is", "weird"]]),
        "Invalid narrow operator: unknown 'is' operand weird",
        "BAD_NARROW",
    )
    assert_error(
        bob.get("/messages", anchor="newest", narrow=[["bogus", "x"]]),
        "Invalid narrow operator: unknown operator bogus",
        "BAD_NARROW",
    )
    body = bob.ok("GET", "/messages", anchor="newest", stream="x", type="y")
    assert body["ignored_parameters_unsupported"] == ["stream", "type"]


def test_message_view_options(alice: Api, bob: Api, channel: tuple[str, list[int]]) -> None:
    name, _ = channel
    raw = fetch(bob, [["channel", name]], apply_markdown=False, num_before=1)["messages"][0]
    assert raw["content"].startswith("last one for @**Bob Fetch**")
    assert raw["content_type"] == "text/x-markdown"
    # Alice's email is visible to everyone and she uses Gravatar: clients compute it.
    assert fetch(bob, [["channel", name]], num_before=1)["messages"][0]["avatar_url"] is None
    shown = fetch(bob, [["channel", name]], num_before=1, client_gravatar=False)["messages"][0]
    assert shown["avatar_url"].startswith("https://secure.gravatar.com/avatar/")


def test_message_events_follow_each_queue(alice: Api, bob: Api) -> None:
    name, other = unique_name("EvShape"), unique_name("EvOther")
    subscribe(alice, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    subscribe(alice, other, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    raw = Queue(bob, event_types=["message"])
    html = Queue(bob, event_types=["message"], apply_markdown=True, client_gravatar=False)
    narrowed = Queue(bob, event_types=["message"], narrow=[["stream", name]])
    legacy_topic = Queue(bob, event_types=["message"], client_capabilities={})
    send(alice, name, "", "*empty* topic")
    send(alice, other, "t", "elsewhere")
    raw_events, html_events = raw.events(), html.events()
    assert raw_events[0]["message"]["content"] == "*empty* topic"
    assert raw_events[0]["message"]["avatar_url"] is None
    assert html_events[0]["message"]["content"] == "<p><em>empty</em> topic</p>"
    assert html_events[0]["message"]["avatar_url"] is not None
    assert [e["message"]["display_recipient"] for e in narrowed.events()] == [name]
    assert legacy_topic.events()[0]["message"]["subject"] == "general chat"
    modern = Queue(bob, event_types=["message"], client_capabilities={"empty_topic_name": True})
    send(alice, name, "", "again")
    assert modern.events()[0]["message"]["subject"] == ""


def test_messages_by_id(alice: Api, bob: Api, channel: tuple[str, list[int]]) -> None:
    _, sent = channel
    body = bob.ok("GET", "/messages", message_ids=[sent[0], sent[3], 99999999])
    assert [m["id"] for m in body["messages"]] == [sent[0], sent[3]]
    narrowed = bob.ok("GET", "/messages", message_ids=sent[:4], narrow=[["topic", "topic 1"]])
    assert [m["id"] for m in narrowed["messages"]] == [sent[1], sent[3]]
    secret = unique_name("ByIdSecret")
    subscribe(alice, secret, invite_only=True)
    hidden = send(alice, secret, "t", "hidden")
    assert bob.ok("GET", "/messages", message_ids=[hidden])["messages"] == []
    assert_error(
        bob.get("/messages", message_ids=[1], anchor="newest"),
        "Unsupported parameter combination: anchor, message_ids",
    )


def test_all_public_streams_queues(alice: Api, make_user: MakeUser) -> None:
    watcher = make_user("Watcher Bot")
    everything = Queue(watcher, event_types=["message"], all_public_streams=True)
    usual = Queue(watcher, event_types=["message"])
    public, private = unique_name("Watched"), unique_name("Unwatched")
    subscribe(alice, public)
    subscribe(alice, private, invite_only=True)
    send(alice, public, "t", "seen by all_public_streams queues")
    send(alice, private, "t", "not seen")
    notice, event = everything.events()  # the new public channel's notice, then the message
    assert notice["message"]["subject"] == "channel events"
    assert event["message"]["display_recipient"] == public and event["flags"] == []
    assert usual.events() == []

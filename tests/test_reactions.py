"""POST and DELETE /messages/{message_id}/reactions, with reaction events."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.api import Api, assert_error
from tests.support.channels import Queue, subscribe, unique_name

MakeUser = Callable[..., Api]


@pytest.fixture(scope="module")
def alice(make_user: MakeUser) -> Api:
    return make_user("Alice React")


@pytest.fixture(scope="module")
def bob(make_user: MakeUser) -> Api:
    return make_user("Bob React")


@pytest.fixture(scope="module")
def message_id(alice: Api, bob: Api) -> int:
    name = unique_name("React")
    subscribe(alice, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    body = alice.ok("POST", "/messages", type="stream", to=name, topic="t", content="react!")
    return int(body["id"])


def reactions_of(api: Api, message_id: int) -> list[dict]:  # type: ignore[type-arg]
    return list(api.ok("GET", f"/messages/{message_id}")["message"]["reactions"])


def test_unicode_reactions(alice: Api, bob: Api, message_id: int) -> None:
    queue = Queue(alice, event_types=["reaction"])
    bob.ok(
        "POST",
        f"/messages/{message_id}/reactions",
        emoji_name="thumbs_up",
        emoji_code="1f44d",
        reaction_type="unicode_emoji",
    )
    [event] = queue.events()
    assert event["op"] == "add" and event["user_id"] == bob.user_id  # type: ignore[attr-defined]
    assert (event["emoji_name"], event["emoji_code"], event["reaction_type"]) == (
        "thumbs_up",
        "1f44d",
        "unicode_emoji",
    )
    assert event["user"]["user_id"] == bob.user_id  # type: ignore[attr-defined]
    # Alice votes with another name for the same emoji: the first name wins.
    alice.ok("POST", f"/messages/{message_id}/reactions", emoji_name="+1")
    names = [(r["emoji_name"], r["user_id"]) for r in reactions_of(bob, message_id)]
    assert names == [("thumbs_up", bob.user_id), ("thumbs_up", alice.user_id)]  # type: ignore[attr-defined]
    body = assert_error(
        bob.post(f"/messages/{message_id}/reactions", emoji_name="thumbs_up"),
        "Reaction already exists.",
        "REACTION_ALREADY_EXISTS",
    )
    assert body["code"] == "REACTION_ALREADY_EXISTS"
    queue.events()
    bob.ok(
        "DELETE",
        f"/messages/{message_id}/reactions",
        emoji_code="1f44d",
        reaction_type="unicode_emoji",
    )
    [removed] = queue.events()
    assert removed["op"] == "remove" and removed["emoji_code"] == "1f44d"
    alice.ok("DELETE", f"/messages/{message_id}/reactions", emoji_name="+1")
    assert reactions_of(bob, message_id) == []


def test_zulip_extra_emoji(alice: Api, bob: Api, message_id: int) -> None:
    queue = Queue(bob, event_types=["reaction"])
    alice.ok(
        "POST",
        f"/messages/{message_id}/reactions",
        emoji_name="zulip",
        emoji_code="zulip",
        reaction_type="service_extra_emoji",
    )
    [event] = queue.events()
    assert event["reaction_type"] == "zulip_extra_emoji"
    assert reactions_of(bob, message_id)[0]["reaction_type"] == "zulip_extra_emoji"
    alice.ok("DELETE", f"/messages/{message_id}/reactions", emoji_name="zulip")
    alice.ok("POST", f"/messages/{message_id}/reactions", emoji_name="zulip")
    alice.ok(
        "DELETE",
        f"/messages/{message_id}/reactions",
        emoji_code="zulip",
        reaction_type="zulip_extra_emoji",
    )


def test_reaction_errors(alice: Api, message_id: int) -> None:
    url = f"/messages/{message_id}/reactions"
    cases = [
        ({"emoji_name": "not_an_emoji"}, "Emoji 'not_an_emoji' does not exist"),
        (
            {"emoji_name": "smile", "emoji_code": "zzzz", "reaction_type": "unicode_emoji"},
            "Invalid emoji code.",
        ),
        (
            {"emoji_name": "smile", "emoji_code": "1f44d", "reaction_type": "unicode_emoji"},
            "Invalid emoji name.",
        ),
        (
            {"emoji_name": "party", "emoji_code": "999999", "reaction_type": "realm_emoji"},
            "Invalid custom emoji.",
        ),
        (
            {"emoji_name": "smile", "emoji_code": "1f642", "reaction_type": "odd"},
            "Invalid emoji type.",
        ),
    ]
    for params, msg in cases:
        assert_error(alice.post(url, **params), msg)
    assert_error(alice.post(url), "Missing 'emoji_name' argument", "REQUEST_VARIABLE_MISSING")
    assert_error(
        alice.post("/messages/99999999/reactions", emoji_name="smile"), "Invalid message(s)"
    )
    assert_error(
        alice.delete(url, emoji_name="smile"), "Reaction doesn't exist.", "REACTION_DOES_NOT_EXIST"
    )
    assert_error(
        alice.delete(url, emoji_code="nope", reaction_type="unicode_emoji"), "Invalid emoji code."
    )
    assert_error(
        alice.delete(url),
        "At least one of the following arguments must be present: emoji_name, emoji_code",
    )
    body = alice.ok("POST", url, emoji_name="smile", colour="x")
    assert body["ignored_parameters_unsupported"] == ["colour"]


def test_reacting_to_channel_history(alice: Api, make_user: MakeUser) -> None:
    newcomer = make_user("React Newcomer")
    name = unique_name("ReactHist")
    subscribe(alice, name)
    message_id = alice.ok("POST", "/messages", type="stream", to=name, topic="t", content="old")[
        "id"
    ]
    newcomer.ok("POST", f"/messages/{message_id}/reactions", emoji_name="tada")
    message = newcomer.ok("GET", f"/messages/{message_id}")["message"]
    assert message["flags"] == ["read", "historical"] and len(message["reactions"]) == 1

"""GET/PUT/DELETE /bot_storage (zulip_bots' StateHandler) and GET /messages/matches_narrow."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.api import Api, assert_error
from tests.support.channels import subscribe, unique_name


def test_bot_storage_round_trip_and_errors(make_user: Callable[..., Api]) -> None:
    bot, other = make_user(full_name="Storage User"), make_user(full_name="Other")
    assert bot.ok("GET", "/bot_storage")["storage"] == {}
    body = bot.ok("PUT", "/bot_storage", storage={"a": "1", "b": "two"}, bogus=1)
    assert body["ignored_parameters_unsupported"] == ["bogus"]
    bot.ok("PUT", "/bot_storage", storage={"a": "one"})
    assert bot.ok("GET", "/bot_storage")["storage"] == {"a": "one", "b": "two"}
    assert bot.ok("GET", "/bot_storage", keys=["b"])["storage"] == {"b": "two"}
    # Storage belongs to its user.
    assert other.ok("GET", "/bot_storage")["storage"] == {}
    assert_error(bot.get("/bot_storage", keys=["a", "nope"]), "Key does not exist.")
    assert_error(
        bot.request("PUT", "/bot_storage", storage={"a": 1}), 'storage["a"] is not a string'
    )
    assert_error(bot.request("PUT", "/bot_storage", storage=["a"]), "storage is not a dict")
    assert_error(
        bot.request("PUT", "/bot_storage"), "Missing 'storage' argument", "REQUEST_VARIABLE_MISSING"
    )
    # A failed removal removes nothing.
    assert_error(bot.delete("/bot_storage", keys=["a", "nope"]), "Key does not exist.")
    assert bot.ok("GET", "/bot_storage")["storage"] == {"a": "one", "b": "two"}
    bot.ok("DELETE", "/bot_storage", keys=["a"])
    assert bot.ok("GET", "/bot_storage")["storage"] == {"b": "two"}
    bot.ok("DELETE", "/bot_storage")
    assert bot.ok("GET", "/bot_storage")["storage"] == {}


def test_bot_storage_size_limit(make_user: Callable[..., Api]) -> None:
    bot = make_user(full_name="Big Storage")
    bot.ok("PUT", "/bot_storage", storage={"k": "x" * 9_999_000})
    assert_error(
        bot.request("PUT", "/bot_storage", storage={"k2": "y" * 2000}),
        "Request exceeds storage limit by 1003 characters. The limit is 10000000 characters.",
    )
    # Replacing an entry counts only the difference.
    bot.ok("PUT", "/bot_storage", storage={"k": "x" * 9_999_999})
    assert list(bot.ok("GET", "/bot_storage")["storage"]) == ["k"]


def test_matches_narrow(make_user: Callable[..., Api]) -> None:
    alice, bob = make_user(full_name="Match Alice"), make_user(full_name="Match Bob")
    channel = unique_name()
    subscribe(alice, channel, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    in_topic = alice.ok(
        "POST", "/messages", type="stream", to=channel, topic="a<b", content="**x**"
    )
    other = alice.ok("POST", "/messages", type="stream", to=channel, topic="other", content="y")
    dm = alice.ok("POST", "/messages", type="private", to=[bob.user_id], content="z")  # type: ignore[attr-defined]
    ids = [in_topic["id"], other["id"], dm["id"]]
    narrow = [{"operator": "channel", "operand": channel}, {"operator": "topic", "operand": "a<b"}]
    body = bob.ok("GET", "/messages/matches_narrow", msg_ids=ids, narrow=narrow)
    assert body["messages"] == {
        str(in_topic["id"]): {
            "match_content": "<p><strong>x</strong></p>",
            "match_subject": "a&lt;b",
        }
    }
    legacy = bob.ok("GET", "/messages/matches_narrow", msg_ids=ids, narrow=[["is", "private"]])
    assert list(legacy["messages"]) == [str(dm["id"])]
    assert bob.ok("GET", "/messages/matches_narrow", msg_ids=[], narrow=[])["messages"] == {}
    assert_error(
        bob.get("/messages/matches_narrow", narrow=[]),
        "Missing 'msg_ids' argument",
        "REQUEST_VARIABLE_MISSING",
    )
    assert_error(
        bob.get("/messages/matches_narrow", msg_ids=ids),
        "Missing 'narrow' argument",
        "REQUEST_VARIABLE_MISSING",
    )
    assert_error(
        bob.get("/messages/matches_narrow", msg_ids=["x"], narrow=[]),
        "msg_ids[0] is not an integer",
    )

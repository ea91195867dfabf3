"""The official `zulip` Python client drives channels and messages end to end."""

from __future__ import annotations

from collections.abc import Callable

import zulip

from tests.support.api import Api
from tests.support.channels import unique_name
from tests.support.server import ServerProcess

MakeUser = Callable[..., Api]


def client_for(server: ServerProcess, api: Api) -> zulip.Client:
    return zulip.Client(email=api.email, api_key=api.api_key, site=server.url)


def ok(result: dict) -> dict:  # type: ignore[type-arg]
    assert result["result"] == "success", result
    return result


def test_python_client_round_trip(server: ServerProcess, make_user: MakeUser) -> None:
    alice_api, bob_api = make_user("Alice Client"), make_user("Bob Client")
    alice, bob = client_for(server, alice_api), client_for(server, bob_api)
    name = unique_name("PyClient")
    ok(alice.add_subscriptions([{"name": name}], principals=[alice_api.email, bob_api.email]))
    stream_id = ok(alice.get_stream_id(name))["stream_id"]
    queue = ok(bob.register(event_types=["message", "reaction", "update_message"]))
    sent = ok(
        alice.send_message(
            {"type": "stream", "to": name, "subject": "hello", "content": "hi **bob**"}
        )
    )
    ok(bob.send_message({"type": "private", "to": [alice_api.email], "content": "dm back"}))
    events = ok(bob.get_events(queue_id=queue["queue_id"], last_event_id=-1))["events"]
    assert [e["message"]["content"] for e in events] == ["hi **bob**", "dm back"]
    # zulip-compat: API clients' own messages stay unread (Zulip's read_by_sender heuristic).
    assert events[1]["flags"] == [] and events[1]["message"]["client"] == "ZulipPython"
    messages = ok(
        bob.get_messages(
            {
                "anchor": "newest",
                "num_before": 5,
                "num_after": 0,
                "narrow": [
                    {"operator": "stream", "operand": name},
                    {"operator": "topic", "operand": "hello"},
                ],
            }
        )
    )
    assert [m["id"] for m in messages["messages"]] == [sent["id"]]
    ok(bob.add_reaction({"message_id": sent["id"], "emoji_name": "octopus"}))
    ok(alice.update_message({"message_id": sent["id"], "content": "hi **Bob**"}))
    ok(alice.move_topic(name, name, "hello", "greetings", propagate_mode="change_all"))
    history = ok(bob.get_message_history(sent["id"]))["message_history"]
    assert [h["topic"] for h in history] == ["hello", "hello", "greetings"]
    assert ok(bob.get_raw_message(sent["id"]))["raw_content"] == "hi **Bob**"
    topics = ok(bob.get_stream_topics(stream_id))["topics"]
    # move_topic asks for breadcrumbs in both topics (Notification Bot messages); the
    # channel's first notice is in "channel events".
    assert [t["name"] for t in topics] == ["hello", "greetings", "channel events"]
    assert topics[1]["max_id"] > sent["id"]
    ok(bob.update_message_flags({"messages": [sent["id"]], "op": "add", "flag": "read"}))
    ok(bob.mark_all_as_read())
    ok(bob.set_typing_status({"op": "start", "to": [alice_api.user_id]}))  # type: ignore[attr-defined]
    ok(bob.mute_topic({"op": "add", "stream": name, "topic": "greetings"}))
    ok(bob.remove_reaction({"message_id": sent["id"], "emoji_name": "octopus"}))
    subs = ok(bob.get_subscriptions())["subscriptions"]
    assert name in [s["name"] for s in subs]
    ok(bob.remove_subscriptions([name]))
    ok(alice.delete_message(sent["id"]))
    assert ok(alice.get_streams())["streams"]

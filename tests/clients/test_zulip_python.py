"""The official `zulip` Python client: every wrapped call its bots and CLIs use (CLIENTS.md
1.1), made through the client itself; each answer is a success that matches Zulip's OpenAPI
description of that endpoint."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import pytest
import zulip

from tests.conftest import TEST_PASSWORD, unique_email
from tests.support import openapi
from tests.support.api import Api
from tests.support.channels import unique_name
from tests.support.realm_emoji import PNG
from tests.support.server import ServerProcess


def client_for(server: ServerProcess, api: Api, **kwargs: Any) -> zulip.Client:
    return zulip.Client(email=api.email, api_key=api.api_key, site=server.url, **kwargs)


def ok(result: dict[str, Any], method: str | None = None, path: str | None = None) -> Any:
    """A success; with method and path, also checked against Zulip's OpenAPI (when the
    operation is documented there: some, like PATCH /realm/profile_fields/{id}, are not)."""
    assert result["result"] == "success" and result["msg"] == "", result
    if method and path and openapi.available():
        template = openapi.match_path(path, method)
        if template is not None:
            openapi.check_response(template, method, result)
    return result


def named_file(name: str) -> io.BytesIO:
    """A PNG like an open file: the client names the form field after `file.name`."""
    data = io.BytesIO(PNG)
    data.name = name
    return data


@dataclass
class People:
    admin: zulip.Client
    alice: zulip.Client
    bob: zulip.Client
    alice_api: Api
    bob_api: Api
    channel: str
    channel_id: int


@pytest.fixture(scope="module")
def people(server: ServerProcess, owner: Api, make_user: Any) -> People:
    alice_api, bob_api = make_user(full_name="Py Alice"), make_user(full_name="Py Bob")
    admin = client_for(server, owner)
    alice, bob = client_for(server, alice_api), client_for(server, bob_api)
    channel = unique_name("py")
    ok(alice.add_subscriptions([{"name": channel}], principals=[alice_api.email, bob_api.email]))
    channel_id = ok(alice.get_stream_id(channel))["stream_id"]
    ok(bob.mark_stream_as_read(channel_id))  # the channel's first notice, as if seen
    return People(admin, alice, bob, alice_api, bob_api, channel, channel_id)


def test_message_calls(people: People) -> None:
    p = people
    alice, bob, channel = p.alice, p.bob, p.channel
    first = ok(
        alice.send_message({"type": "stream", "to": channel, "subject": "py", "content": "*a*"})
    )
    second = ok(
        alice.send_message({"type": "stream", "to": channel, "topic": "py", "content": "b"})
    )
    dm = ok(alice.send_message({"type": "private", "to": [p.bob_api.email], "content": "c"}))
    ok(alice.send_message({"type": "private", "to": [p.bob_api.user_id], "content": "d"}))  # type: ignore[attr-defined]
    fetched = ok(bob.get_messages({
        "anchor": "newest", "num_before": 10, "num_after": 0, "apply_markdown": False,
        "client_gravatar": True, "narrow": [{"operator": "stream", "operand": channel},
                                             {"operator": "topic", "operand": "py"}],
    }), "GET", "/messages")  # fmt: skip
    assert [m["content"] for m in fetched["messages"]] == ["*a*", "b"]
    unread = ok(bob.get_messages({"anchor": 0, "num_before": 0, "num_after": 5,
                                  "use_first_unread_anchor": True, "narrow": []}))  # fmt: skip
    assert unread["anchor"] == first["id"]
    matches = ok(bob.check_messages_match_narrow(
        msg_ids=[first["id"], dm["id"]], narrow=[{"operator": "is", "operand": "dm"}]
    ), "GET", "/messages/matches_narrow")  # fmt: skip
    assert list(matches["messages"]) == [str(dm["id"])]
    raw = ok(bob.get_raw_message(first["id"]), "GET", f"/messages/{first['id']}")
    assert raw["raw_content"] == "*a*" and raw["message"]["content"] == "<p><em>a</em></p>"
    rendered = ok(alice.render_message({"content": "**x**"}), "POST", "/messages/render")
    assert rendered["rendered"] == "<p><strong>x</strong></p>"
    ok(alice.update_message({"message_id": first["id"], "content": "*A*"}), "PATCH", "/messages/1")
    ok(alice.move_topic(channel, channel, "py", "moved", propagate_mode="change_all"))
    history = ok(bob.get_message_history(first["id"]), "GET", "/messages/1/history")
    assert [h["topic"] for h in history["message_history"]][-1] == "moved"
    flag = {"messages": [first["id"]], "op": "add", "flag": "starred"}
    ok(bob.update_message_flags(flag), "POST", "/messages/flags")
    ok(bob.mark_topic_as_read(p.channel_id, "moved"), "POST", "/mark_topic_as_read")
    ok(bob.mark_stream_as_read(p.channel_id), "POST", "/mark_stream_as_read")
    ok(bob.mark_all_as_read(), "POST", "/mark_all_as_read")
    reaction = {"message_id": first["id"], "emoji_name": "octopus"}
    ok(bob.add_reaction(reaction), "POST", "/messages/1/reactions")
    ok(bob.remove_reaction(reaction), "DELETE", "/messages/1/reactions")
    ok(alice.set_typing_status({"op": "start", "to": [p.bob_api.user_id]}), "POST", "/typing")  # type: ignore[attr-defined]
    ok(alice.set_typing_status({"op": "stop", "type": "stream", "stream_id": p.channel_id,
                                "topic": "moved"}))  # fmt: skip
    upload = ok(alice.upload_file(named_file("/tmp/some dir/pic.png")), "POST", "/user_uploads")
    assert upload["uri"].startswith("/user_uploads/")
    attachments = ok(alice.get_attachments(), "GET", "/attachments")
    assert attachments["attachments"]
    ok(p.admin.delete_message(second["id"]), "DELETE", "/messages/1")


def test_stream_calls(people: People) -> None:
    p = people
    admin, alice, bob = p.admin, p.alice, p.bob
    assert p.channel in {s["name"] for s in ok(bob.get_streams(), "GET", "/streams")["streams"]}
    subs = ok(bob.get_subscriptions(), "GET", "/users/me/subscriptions")["subscriptions"]
    assert p.channel_id in {s["stream_id"] for s in subs}
    status = ok(admin.get_subscription_status(p.bob_api.user_id, p.channel_id))  # type: ignore[attr-defined]
    assert status["is_subscribed"] is True
    members = ok(alice.get_subscribers(stream=p.channel), "GET", "/streams/1/members")
    assert p.bob_api.user_id in members["subscribers"]  # type: ignore[attr-defined]
    ok(alice.send_message({"type": "stream", "to": p.channel, "topic": "noise", "content": "x"}))
    ok(bob.mute_topic({"op": "add", "stream": p.channel, "topic": "noise"}),
       "PATCH", "/users/me/subscriptions/muted_topics")  # fmt: skip
    ok(bob.update_subscription_settings(
        [{"stream_id": p.channel_id, "property": "pin_to_top", "value": True}]
    ), "POST", "/users/me/subscriptions/properties")  # fmt: skip
    ok(bob.update_notification_settings({"enable_sounds": False}))
    topics = ok(bob.get_stream_topics(p.channel_id), "GET", "/users/me/1/topics")["topics"]
    assert "noise" in {t["name"] for t in topics}
    other = unique_name("py-other")
    ok(admin.add_subscriptions([{"name": other, "description": "d"}]), "POST",
       "/users/me/subscriptions")  # fmt: skip
    other_id = ok(admin.get_stream_id(other), "GET", "/get_stream_id")["stream_id"]
    ok(admin.update_stream({"stream_id": other_id, "description": "new"}), "PATCH", "/streams/1")
    ok(admin.add_default_stream(other_id), "POST", "/default_streams")
    ok(admin.add_subscriptions([{"name": other}], principals=[p.bob_api.email]))
    ok(admin.remove_subscriptions([other], principals=[p.bob_api.email]), "DELETE",
       "/users/me/subscriptions")  # fmt: skip
    ok(admin.delete_stream(other_id), "DELETE", "/streams/1")


def test_user_calls(server: ServerProcess, people: People) -> None:
    p = people
    admin, alice = p.admin, p.alice
    me = ok(alice.get_profile(), "GET", "/users/me")
    assert (me["user_id"], me["email"]) == (p.alice_api.user_id, p.alice_api.email)  # type: ignore[attr-defined]
    assert p.bob_api.email in {
        u["email"] for u in ok(alice.get_users(), "GET", "/users")["members"]
    }
    assert ok(alice.get_user_by_id(p.bob_api.user_id), "GET", "/users/1")["user"]["full_name"]  # type: ignore[attr-defined]
    email = unique_email("pynew")
    created = ok(admin.create_user({"email": email, "password": TEST_PASSWORD,
                                    "full_name": "Py New"}), "POST", "/users")  # fmt: skip
    ok(admin.update_user_by_id(created["user_id"], full_name="Py Renamed"), "PATCH", "/users/1")
    ok(admin.deactivate_user_by_id(created["user_id"]), "DELETE", "/users/1")
    ok(admin.reactivate_user_by_id(created["user_id"]), "POST", "/users/1/reactivate")
    ok(alice.update_presence({"status": "active", "ping_only": False, "new_user_input": True}))
    presence = ok(p.bob.get_user_presence(p.alice_api.email))["presence"]
    assert presence["aggregated"]["status"] == "active"
    assert (
        p.alice_api.email in ok(p.bob.get_realm_presence(), "GET", "/realm/presence")["presences"]
    )
    ok(alice.add_alert_words(["py-alert"]), "POST", "/users/me/alert_words")
    assert ok(alice.get_alert_words(), "GET", "/users/me/alert_words")["alert_words"] == [
        "py-alert"
    ]
    ok(alice.remove_alert_words(["py-alert"]), "DELETE", "/users/me/alert_words")
    ok(alice.update_storage({"storage": {"mood": "good"}}))
    assert ok(alice.get_storage({"keys": ["mood"]}))["storage"] == {"mood": "good"}
    settings = ok(alice.get_server_settings(), "GET", "/server_settings")
    assert settings["zulip_version"] == alice.zulip_version and settings["realm_uri"] == server.url


def test_realm_calls(people: People) -> None:
    admin = people.admin
    emoji = unique_name("pyemoji")
    ok(admin.upload_custom_emoji(emoji, named_file("emoji.png")), "POST", "/realm/emoji/x")
    listed = ok(admin.get_realm_emoji(), "GET", "/realm/emoji")["emoji"]
    assert emoji in {e["name"] for e in listed.values()}
    ok(admin.delete_custom_emoji(emoji), "DELETE", "/realm/emoji/x")
    added = ok(admin.add_realm_filter("#(?P<id>[0-9]+)", "https://example.com/{id}"),
               "POST", "/realm/filters")  # fmt: skip
    linkifiers = ok(admin.get_realm_linkifiers(), "GET", "/realm/linkifiers")["linkifiers"]
    assert added["id"] in {item["id"] for item in linkifiers}
    ok(admin.remove_realm_filter(added["id"]), "DELETE", "/realm/filters/1")
    field = ok(admin.create_realm_profile_field(name=unique_name("Py field"), field_type=1),
               "POST", "/realm/profile_fields")  # fmt: skip
    fields = ok(admin.get_realm_profile_fields(), "GET", "/realm/profile_fields")["custom_fields"]
    ok(
        admin.update_realm_profile_field(field["id"], hint="hint"),
        "PATCH",
        "/realm/profile_fields/1",
    )
    ok(admin.reorder_realm_profile_fields(order=[f["id"] for f in reversed(fields)]),
       "PATCH", "/realm/profile_fields")  # fmt: skip
    ok(admin.remove_realm_profile_field(field["id"]), "DELETE", "/realm/profile_fields/1")
    members = [people.alice_api.user_id]  # type: ignore[attr-defined]
    new_group = {"name": unique_name("pygroup"), "description": "g", "members": members}
    group = ok(admin.create_user_group(new_group), "POST", "/user_groups/create")
    ok(admin.update_user_group({"group_id": group["group_id"], "description": "new"}),
       "PATCH", "/user_groups/1")  # fmt: skip
    ok(admin.update_user_group_members(group["group_id"], {"add": [people.bob_api.user_id]}),  # type: ignore[attr-defined]
       "POST", "/user_groups/1/members")  # fmt: skip
    groups = ok(admin.get_user_groups(), "GET", "/user_groups")["user_groups"]
    mine = next(g for g in groups if g["id"] == group["group_id"])
    assert sorted(mine["members"]) == sorted([*members, people.bob_api.user_id])  # type: ignore[attr-defined]


def test_register_events_and_deregister(people: People) -> None:
    p = people
    queue = ok(p.bob.register(event_types=["message"], narrow=[["stream", p.channel]]),
               "POST", "/register")  # fmt: skip
    ok(p.alice.send_message({"type": "private", "to": [p.bob_api.email], "content": "hidden"}))
    sent = ok(p.alice.send_message({"type": "stream", "to": p.channel, "topic": "q",
                                    "content": "@**Py Bob**"}))  # fmt: skip
    events = ok(p.bob.get_events(queue_id=queue["queue_id"], last_event_id=-1, dont_block=True),
                "GET", "/events")["events"]  # fmt: skip
    # The narrow keeps the DM out; bots read event-level flags and raw content.
    assert [(e["message"]["id"], e["flags"]) for e in events] == [(sent["id"], ["mentioned"])]
    assert events[0]["message"]["content"] == "@**Py Bob**"
    ok(p.bob.deregister(queue["queue_id"]), "DELETE", "/events")
    gone = p.bob.get_events(queue_id=queue["queue_id"], last_event_id=-1)
    assert gone["result"] == "error" and gone["code"] == "BAD_EVENT_QUEUE_ID"

"""The mobile app's contract: what zulip-flutter sends, decoded with its own required fields.

The app cannot run here, so its JSON decoders are mirrored as strict msgspec Structs
(tests/support/flutter_types.py, flutter_events.py): a key it requires that is missing, null
or of the wrong type fails these tests as it would make the app reload forever. The values
checked come from real data (tests/support/mobile.py builds it through the API).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urljoin

import httpx

from tests.conftest import TEST_PASSWORD
from tests.support import flutter_routes as routes
from tests.support import flutter_types as fl
from tests.support.api import Api, assert_success
from tests.support.mobile import REGISTER, World, call, events
from tests.support.server import ServerProcess

# "Needed in practice": nullable in the app's types, but it misbehaves without them.
PRACTICAL_KEYS = [
    "queue_id",
    "realm_message_content_edit_limit_seconds",
    "realm_message_content_delete_limit_seconds",
    "realm_empty_topic_display_name",
    "realm_can_delete_any_message_group",
    "realm_can_delete_own_message_group",
    "realm_topics_policy",
    "realm_mandatory_topics",
    "realm_moderation_request_channel_id",
    "server_typing_started_expiry_period_milliseconds",
    "server_typing_stopped_wait_period_milliseconds",
    "server_typing_started_wait_period_milliseconds",
    "server_thumbnail_formats",
    "channel_folders",
    "server_report_message_types",
]


def test_login_server_settings_and_api_key(server: ServerProcess, mobile_world: World) -> None:
    anonymous = Api(server.url)
    settings = call(anonymous, "GET", "/server_settings", routes.ServerSettings)
    assert settings.zulip_feature_level >= fl.MIN_ALLOWED_FEATURE_LEVEL
    # The app refuses a realm URL whose origin differs from the one it connected to.
    assert settings.realm_uri.rstrip("/") == server.url
    assert settings.email_auth_enabled or settings.authentication_methods.ldap
    # A wrong Authorization header is ignored.
    wrong = Api(server.url, "nobody@example.com", "x" * 32)
    assert call(wrong, "GET", "/server_settings", routes.ServerSettings) == settings
    alice = mobile_world.alice
    key = call(
        anonymous,
        "POST",
        "/fetch_api_key",
        routes.FetchApiKeyResult,
        username=alice.email,
        password=TEST_PASSWORD,
    )
    assert (key.api_key, key.email, key.user_id) == (alice.api_key, alice.email, alice.user_id)  # type: ignore[attr-defined]
    anonymous.close()
    wrong.close()


def _register(w: World) -> tuple[dict[str, Any], fl.InitialSnapshot]:
    response = w.alice.request("POST", "/register", **REGISTER)
    raw = assert_success(response, "POST", "/register")
    return raw, fl.decode(response.content, fl.InitialSnapshot)


def test_initial_snapshot_decodes(server: ServerProcess, mobile_world: World) -> None:
    w = mobile_world
    raw, snapshot = _register(w)
    assert snapshot.zulip_feature_level >= fl.MIN_ALLOWED_FEATURE_LEVEL
    assert [key for key in PRACTICAL_KEYS if key not in raw] == []
    assert raw["realm_url"] == raw["realm_uri"] == server.url
    assert snapshot.queue_id and events(w.alice, snapshot.queue_id) == []
    users = {user.user_id: user for user in snapshot.realm_users}
    assert w.alice.user_id in users and users[w.bob.user_id].full_name == "Mobile Bob"  # type: ignore[attr-defined]
    # client_gravatar=false: every user gets an avatar URL; the app resolves it against the
    # realm URL (uploaded avatars are served by us, relative like Zulip's local uploads).
    for user in users.values():
        assert user.avatar_url, user
        url = urljoin(server.url + "/", user.avatar_url)
        if url.startswith(server.url):
            assert httpx.get(url, auth=(w.alice.email or "", w.alice.api_key or "")).is_success
        else:
            assert url.startswith("https://secure.gravatar.com/avatar/"), url
    assert snapshot.realm_name and snapshot.realm_icon_url.startswith("http")
    # The emoji data is fetched without credentials from an absolute URL.
    assert snapshot.server_emoji_data_url.startswith(server.url)
    emoji = fl.decode(httpx.get(snapshot.server_emoji_data_url).content, routes.ServerEmojiData)
    assert "smile" in emoji.code_to_names["1f604"]  # Zulip renamed 🙂 slight_smile (2024)


def test_initial_snapshot_carries_real_data(mobile_world: World) -> None:
    w = mobile_world
    _, snapshot = _register(w)
    me, bob, carol = w.alice.user_id, w.bob.user_id, w.carol.user_id  # type: ignore[attr-defined]
    subscription = next(s for s in snapshot.subscriptions if s.stream_id == w.channel_id)
    assert subscription.name == w.channel
    # notification_settings_null: unset notification settings are null, not false.
    assert subscription.desktop_notifications is None
    assert any(s.stream_id == w.channel_id for s in snapshot.streams)
    unread = snapshot.unread_msgs
    assert {(d.other_user_id, tuple(d.unread_message_ids)) for d in unread.pms} >= {
        (bob, (w.dm_message,))
    }
    assert w.topic_message in unread.mentions
    assert [(c.stream_id, c.topic) for c in unread.streams] == [(w.channel_id, "lunch")]
    assert [h.unread_message_ids for h in unread.huddles] == [[w.group_dm_message]]
    assert unread.count == 3
    assert snapshot.starred_messages == [w.topic_message]
    assert snapshot.alert_words == ["deploy"]
    assert [(s.title, s.content) for s in snapshot.saved_snippets or []] == [
        ("Thanks", "Thank you!")
    ]
    assert [m.id for m in snapshot.muted_users] == [carol]
    assert (w.channel_id, "lunch", 3) in {
        (t.stream_id, t.topic_name, t.visibility_policy) for t in snapshot.user_topics
    }
    assert snapshot.user_status[bob].status_text == "on a train"
    assert bob in snapshot.presences  # slim_presence: keyed by user id
    assert {sorted(c.user_ids)[0] for c in snapshot.recent_private_conversations} >= {bob}
    assert snapshot.custom_profile_fields and snapshot.realm_emoji and snapshot.channel_folders
    groups = {g.name: g for g in snapshot.realm_user_groups}
    assert groups["role:members"].is_system_group and me in groups["role:members"].members


def _app_narrows(w: World) -> list[list[dict[str, Any]]]:
    """Narrows the app sends (resolveApiNarrowForServer at our feature level)."""
    channel = {"operator": "channel", "operand": w.channel_id}
    not_dm = {"operator": "is", "operand": "dm", "negated": True}
    return [
        [],
        [channel, {"operator": "topic", "operand": "lunch"}],
        [{"operator": "channel", "operand": w.channel_id}],
        [{"operator": "dm", "operand": [w.bob.user_id]}],  # type: ignore[attr-defined]
        [{"operator": "is", "operand": "dm"}],
        [{"operator": "is", "operand": "mentioned"}],
        [{"operator": "is", "operand": "starred"}],
        [{"operator": "search", "operand": "hi"}],
        [{"operator": "with", "operand": w.topic_message}],
        [{"operator": "id", "operand": str(w.dm_message)}],
        [{"operator": "is", "operand": "unread"}, not_dm],
    ]  # fmt: skip


def _fetch(api: Api, narrow: Any, anchor: str, before: int, after: int, **extra: Any) -> Any:
    return call(
        api, "GET", "/messages", routes.GetMessagesResult, narrow=narrow, anchor=anchor,
        num_before=before, num_after=after, allow_empty_topic_name=True, **extra,
    )  # fmt: skip


def test_message_fetches_the_app_makes(mobile_world: World) -> None:
    w = mobile_world
    me, bob = w.alice.user_id, w.bob.user_id  # type: ignore[attr-defined]
    windows = [("newest", 100, 0), ("oldest", 0, 100), ("first_unread", 100, 100)]
    for narrow in _app_narrows(w):
        for anchor, before, after in windows:
            result = _fetch(w.alice, narrow, anchor, before, after)
            assert result.found_newest or anchor == "oldest", (narrow, anchor)
    topic_narrow = _app_narrows(w)[1]
    page = _fetch(w.alice, topic_narrow, str(w.topic_message), 100, 0, include_anchor=False)
    assert page.messages == [] and page.found_oldest
    by_id = {m.id: m for m in _fetch(w.alice, [], "newest", 100, 0).messages}
    stream = by_id[w.topic_message]
    assert isinstance(stream, fl.StreamMessage) and stream.display_recipient == w.channel
    assert {(r.reaction_type, r.emoji_name) for r in stream.reactions} == {
        ("zulip_extra_emoji", "zulip"),
        ("unicode_emoji", "smile"),
    }
    assert {"starred", "mentioned"} <= set(stream.flags)
    dm = by_id[w.dm_message]
    assert isinstance(dm, fl.DmMessage) and {r.id for r in dm.display_recipient} == {me, bob}
    single = call(
        w.alice,
        "GET",
        f"/messages/{w.topic_message}",
        routes.GetMessageResult,
        allow_empty_topic_name=True,
        apply_markdown=False,
    )
    assert single.message.content.startswith("@**Mobile Alice")


def test_presence_loop(mobile_world: World) -> None:
    w = mobile_world
    body = w.alice.request(
        "POST",
        "/users/me/presence",
        status="active",
        new_user_input=True,
        ping_only=False,
        slim_presence=True,
    )
    assert_success(body, "POST", "/users/me/presence")
    presences = fl.decode(json.dumps(body.json()["presences"]), dict[int, fl.PerUserPresence])
    assert w.bob.user_id in presences and w.alice.user_id in presences  # type: ignore[attr-defined]
    ping = w.alice.ok(
        "POST",
        "/users/me/presence",
        status="idle",
        new_user_input=False,
        ping_only=True,
        slim_presence=True,
    )
    assert "presences" not in ping


def test_polls_read_as_the_app_reads_them(mobile_world: World) -> None:
    """A poll, votes and a new option: the app's history decoder and its live-event path
    agree with each other and with what was done."""
    from tests.support import flutter_polls as polls
    from tests.support.flutter_events import SubmessageEvent, parse_event

    w = mobile_world
    bob_id = w.bob.user_id  # type: ignore[attr-defined]
    _, snapshot = _register(w)
    poll_id = w.bob.ok(
        "POST", "/messages", type="stream", to=w.channel, topic="polls",
        content="/poll Best day?\nMonday\nFriday",
    )["id"]  # fmt: skip

    def send(user: Api, data: dict[str, Any]) -> None:
        user.ok("POST", "/submessage", message_id=poll_id, msg_type="widget",
                content=json.dumps(data))  # fmt: skip

    send(w.alice, {"type": "vote", "key": "canned,1", "vote": 1})
    send(w.alice, {"type": "new_option", "idx": 0, "option": "Sunday"})
    send(w.bob, {"type": "vote", "key": f"{w.alice.user_id},0", "vote": 1})  # type: ignore[attr-defined]
    send(w.bob, {"type": "question", "question": "Best weekday?"})
    live = [
        e
        for e in events(w.alice, snapshot.queue_id or "")
        if e["type"] in ("message", "submessage")
    ]
    [created] = [e for e in live if e["type"] == "message"]
    poll = polls.parse_poll(created["message"]["submessages"], bob_id)
    assert poll is not None and poll.question == "Best day?"
    for event in live:
        if event["type"] == "submessage":
            decoded = parse_event(event)
            assert isinstance(decoded, SubmessageEvent)
            polls.apply_event(poll, decoded.sender_id, json.loads(decoded.content), bob_id)
    page = _fetch(w.alice, [], str(poll_id), 0, 0)
    [message] = page.messages
    fetched = polls.parse_poll(message.submessages or [], bob_id)
    assert fetched == poll
    assert fetched.question == "Best weekday?"
    assert {text: voters for text, voters in fetched.options.values()} == {
        "Monday": set(),
        "Friday": {w.alice.user_id},  # type: ignore[attr-defined]
        "Sunday": {bob_id},
    }


def test_scheduled_message_events_do_not_break_the_app(mobile_world: World) -> None:
    """The app does not show scheduled messages yet: their events must reach it as types it
    ignores, and the message sent at the time as an ordinary message it decodes."""
    import time

    from tests.support.flutter_events import MessageEvent, parse_event

    w = mobile_world
    _, snapshot = _register(w)
    scheduled = w.alice.ok(
        "POST", "/scheduled_messages", type="stream", to=w.channel_id, topic="later",
        content="from the past", scheduled_delivery_timestamp=int(time.time()) + 2,
    )["scheduled_message_id"]  # fmt: skip
    deadline, seen = time.monotonic() + 10, []
    while not any(e["type"] == "message" for e in seen):
        assert time.monotonic() < deadline, seen
        seen += events(w.alice, snapshot.queue_id or "", seen[-1]["id"] if seen else -1)
        time.sleep(0.1)
    kinds = [(e["type"], e.get("op")) for e in seen]
    assert ("scheduled_messages", "add") in kinds and ("scheduled_messages", "remove") in kinds
    for event in seen:
        decoded = parse_event(event)
        if event["type"] == "message":
            assert isinstance(decoded, MessageEvent)
            assert decoded.message["content"].endswith("from the past</p>")
    assert w.alice.ok("GET", "/scheduled_messages")["scheduled_messages"] == []
    assert scheduled

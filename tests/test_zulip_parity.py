"""Differences from a real Zulip server, measured side by side, each pinned by a test.

Every case here answered differently from Zulip's server (12.0-dev) before; the expected
answer is Zulip's. Deliberate differences are listed in docs/api.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from tests.support.api import Api, assert_error
from tests.support.channels import Queue, stream_id, subscribe, unique_name

MakeUser = Callable[..., Api]
FETCH = {"anchor": "newest", "num_before": 1, "num_after": 0}


def test_parameters_that_are_not_json_say_so(owner: Api) -> None:
    assert_error(owner.get("/messages", **{**FETCH, "num_before": "many"}),
                 "num_before is not valid JSON")  # fmt: skip
    # Digits other than ASCII are no integer either (JSON has none).
    assert_error(owner.get("/messages", **{**FETCH, "num_before": "\u0665"}),
                 "num_before is not valid JSON")  # fmt: skip
    assert_error(owner.get("/messages", **{**FETCH, "num_before": "1.5"}),
                 "num_before is not an integer")  # fmt: skip
    assert_error(owner.get("/messages", **{**FETCH, "narrow": "[{"}), "narrow is not valid JSON")
    assert_error(owner.post("/users/me/subscriptions", subscriptions="Denmark"),
                 "subscriptions is not valid JSON")  # fmt: skip
    assert_error(owner.patch("/realm", send_welcome_emails="maybe"),
                 "send_welcome_emails is not valid JSON")  # fmt: skip
    assert_error(owner.post("/register", event_types="message"), "event_types is not valid JSON")
    assert_error(owner.patch("/settings", enter_sends="sometimes"),
                 "enter_sends is not valid JSON")  # fmt: skip
    assert_error(owner.post("/users/me/alert_words", alert_words="word"),
                 "alert_words is not valid JSON")  # fmt: skip


def test_narrow_errors_use_zulips_words(owner: Api) -> None:
    assert_error(owner.get("/messages", **FETCH, narrow="[42]"),
                 "Invalid narrow[0]: Value error, dict or list required")  # fmt: skip
    assert_error(owner.get("/messages", **FETCH, narrow='[["topic", 5]]'),
                 "Invalid narrow[0]: Value error, element is not a string pair")  # fmt: skip
    assert_error(owner.get("/messages", **FETCH, narrow=[{"operator": "near", "operand": 7}]),
                 "operand is not a string")  # fmt: skip
    assert_error(owner.get("/messages", **FETCH, narrow=[{"operator": "search", "operand": " "}]),
                 "operand cannot be blank")  # fmt: skip
    # Operators that name one object take an id; dm takes a list of ids.
    owner.ok("GET", "/messages", **FETCH, narrow=[{"operator": "sender", "operand": 1}])
    owner.ok("GET", "/messages", **FETCH, narrow=[{"operator": "dm", "operand": [1]}])
    body = assert_error(
        owner.get("/messages", **FETCH, narrow=[{"operator": "channel", "operand": "nosuch9"}]),
        "Invalid narrow operator: unknown channel nosuch9",
        "BAD_NARROW",
    )
    assert body["desc"] == "unknown channel nosuch9"


def test_events_without_a_queue_is_an_error_unless_it_registers(owner: Api) -> None:
    assert_error(owner.get("/events", last_event_id=-1), "Missing 'queue_id' argument")
    body = owner.ok("GET", "/events", dont_block=True)
    assert body["queue_id"]


def test_405_names_the_allowed_methods_without_a_code(owner: Api) -> None:
    for path, allowed in (
        ("/users/me/subscriptions/properties", ["POST"]),
        ("/realm/playgrounds", ["POST"]),
        ("/default_streams", ["POST", "DELETE"]),
    ):
        response = owner.get(path)
        assert response.status_code == 405, response.text
        body = response.json()
        assert body == {
            "result": "error",
            "msg": "Method Not Allowed",
            "allowed_methods": allowed,
        }, body
        assert response.headers["allow"] == ", ".join(allowed)


def test_register_sends_zulips_keys_and_defaults(owner: Api) -> None:
    state = owner.ok("POST", "/register", client_capabilities={"user_settings_object": True})
    assert state["onboarding_steps"] == [] and state["navigation_tour_video_url"] is None
    assert state["realm_default_stream_groups"] == []
    assert state["has_zoom_token"] is False and state["giphy_api_key"] == ""
    assert state["stop_words"] == []
    assert state["realm_billing"] == {"has_pending_sponsorship_request": False}
    assert state["upgrade_text_for_wide_organization_logo"] == ""
    assert state["server_presence_offline_threshold_seconds"] == 200
    assert state["server_typing_started_expiry_period_milliseconds"] == 45000
    assert state["server_typing_stopped_wait_period_milliseconds"] == 12000
    assert state["server_typing_started_wait_period_milliseconds"] == 30000
    assert state["server_min_deactivated_realm_deletion_days"] == 14
    assert state["user_settings"]["user_list_style"] == 3
    assert state["realm_user_settings_defaults"]["user_list_style"] == 3
    members = state["realm_can_set_topics_policy_group"]
    groups = {g["id"]: g["name"] for g in state["realm_user_groups"]}
    assert groups[members] == "role:members"
    # Keys Zulip does not send at all.
    for key in ("role", "timezone", "realm_can_change_user_emails"):
        assert key not in state, key
    assert all("is_active" not in u for u in state["realm_users"])
    assert all("is_active" not in u for u in state["realm_non_active_users"])
    humans = [u for u in state["realm_users"] if not u["is_bot"]]
    assert humans and all("bot_type" not in u for u in humans)


def test_legacy_muted_topics_only_when_user_topic_is_not_named(owner: Api) -> None:
    both = owner.ok("POST", "/register", fetch_event_types=["muted_topics", "user_topic"])
    assert "muted_topics" not in both and "user_topics" in both
    alone = owner.ok("POST", "/register", fetch_event_types=["muted_topics"])
    assert alone["muted_topics"] == []
    everything = owner.ok("POST", "/register")
    assert "muted_topics" in everything


def test_own_user_has_max_message_id_and_profile_data(make_user: MakeUser) -> None:
    user = make_user("Max Id")
    me = user.ok("GET", "/users/me")
    assert me["profile_data"] == {} and "bot_type" not in me
    sent = user.ok("POST", "/messages", type="private", to=[user.user_id], content="hi")  # type: ignore[attr-defined]
    assert user.ok("GET", "/users/me")["max_message_id"] == sent["id"]


def test_simplified_presence_events_use_the_modern_format(make_user: MakeUser) -> None:
    watcher, pinger = make_user("Presence Watcher"), make_user("Presence Pinger")
    caps = {"simplified_presence_events": True}
    modern = Queue(watcher, event_types=["presence"], client_capabilities=caps)
    legacy = Queue(watcher, event_types=["presence"])
    assert all(set(p) == {"active_timestamp", "idle_timestamp"}
               for p in modern.state["presences"].values())  # fmt: skip
    pinger.ok("POST", "/users/me/presence", status="active", new_user_input=True)
    [event] = modern.events(check=False)
    assert set(event) == {"id", "type", "presences"}
    info = event["presences"][str(pinger.user_id)]  # type: ignore[attr-defined]
    assert set(info) == {"active_timestamp", "idle_timestamp"}
    [old] = legacy.events()
    assert old["user_id"] == pinger.user_id and "presences" not in old  # type: ignore[attr-defined]
    assert old["presence"]["website"]["status"] == "active"


def test_channel_administration_refusal_in_zulips_words(owner: Api, make_user: MakeUser) -> None:
    member = make_user("Not An Admin")
    name = unique_name("Administered")
    subscribe(owner, name)
    sid = stream_id(owner, name)
    subscribe(member, name)
    denied = "You do not have permission to administer this channel."
    assert_error(member.patch(f"/streams/{sid}", description="x"), denied)
    assert_error(member.delete(f"/streams/{sid}"), denied)


def test_send_checks_and_messages(owner: Api) -> None:
    assert_error(owner.post("/messages", type="broadcast", to="general", content="x"),
                 "Invalid type")  # fmt: skip
    # The topic's characters are judged before the channel's existence.
    assert_error(
        owner.post("/messages", type="stream", to="nosuchchannel2", topic="a\u0007b", content="x"),
        "Invalid character in topic, at position 2!",
    )


def test_bad_values_name_the_variable(owner: Api) -> None:
    body = assert_error(
        owner.patch("/realm", message_content_edit_limit_seconds=-5),
        "Bad value for 'message_content_edit_limit_seconds': -5",
        "REQUEST_VARIABLE_INVALID",
    )
    assert body["var_name"] == "message_content_edit_limit_seconds" and body["bad_value"] == -5
    body = assert_error(owner.post("/typing", op="start", type="stream", topic="x"),
                        "Missing 'stream_id' argument")  # fmt: skip
    assert "var_name" not in body


def test_settings_and_drafts_errors(make_user: MakeUser, owner: Api) -> None:
    user = make_user("Settings Parity")
    assert_error(user.patch("/settings", emojiset="comic"),
                 "Invalid emojiset: Value error, Not in the list of possible values")  # fmt: skip
    assert_error(user.patch("/settings", full_name=""), "Name must not be empty!")
    assert_error(user.patch("/settings", timezone="Mars/Olympus"),
                 "Invalid timezone: Value error, Not a recognized time zone")  # fmt: skip
    drafts = [{"type": "carrier", "to": [], "topic": "", "content": "x"}]
    assert_error(user.post("/drafts", drafts=json.dumps(drafts)), 'Invalid drafts[0]["type"]')
    body = assert_error(
        owner.post("/realm/filters", pattern="#x(?P<id>[0-9+", url_template="https://e/{id}"),
        None,
    )
    assert list(body["errors"]) == ["__all__"] and body["msg"].startswith("Bad regular")


def test_realm_domains_and_onboarding_steps(owner: Api) -> None:
    assert owner.ok("GET", "/realm/domains")["domains"] == []
    owner.ok("POST", "/users/me/onboarding_steps", onboarding_step="intro_inbox_view_modal")
    assert_error(owner.post("/users/me/onboarding_steps", onboarding_step="nope"),
                 "Unknown onboarding_step: nope")  # fmt: skip
    response = owner.get("/users/me/onboarding_steps")
    assert response.status_code == 405 and response.json()["allowed_methods"] == ["POST"]


def test_subscription_wildcard_setting_stays_null_for_legacy_clients(owner: Api) -> None:
    name = unique_name("Wildcard")
    subscribe(owner, name)
    state = owner.ok("POST", "/register", fetch_event_types=["subscription"])
    sub = next(s for s in state["subscriptions"] if s["name"] == name)
    assert sub["wildcard_mentions_notify"] is None and sub["desktop_notifications"] is False


def test_bot_routes_as_zulips_clients_use_them(make_user: MakeUser) -> None:
    owner_of_bot = make_user("Bot Keeper")
    watcher = Queue(owner_of_bot, event_types=["realm_bot", "realm_user"])
    created = owner_of_bot.ok("POST", "/bots", full_name="Parity Bot", short_name="paritybot")
    assert created["user_id"] and created["api_key"]
    kinds = [(e["type"], e.get("op")) for e in watcher.events()]
    assert ("realm_user", "add") in kinds and ("realm_bot", "add") in kinds
    listed = owner_of_bot.ok("GET", "/bots")["bots"]
    assert [b["user_id"] for b in listed] == [created["user_id"]]
    assert owner_of_bot.ok("GET", "/users/me/bots")["bots"] == listed

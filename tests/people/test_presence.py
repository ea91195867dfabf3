"""Presence: POST /users/me/presence (legacy and modern formats), GET /realm/presence,
GET /users/{user_id_or_email}/presence, presence events and register state."""

from __future__ import annotations

import json

from tests.support import rawdb
from tests.support.api import Api, assert_error, assert_success
from tests.support.people import events, register, verify
from tests.support.server import ServerProcess


def slim_presence(api: Api, user_id: int) -> dict:  # type: ignore[type-arg]
    """The modern one-user format, which our copy of Zulip's OpenAPI does not describe yet."""
    return assert_success(api.get(f"/users/{user_id}/presence", slim_presence=True))["presence"]  # type: ignore[no-any-return]


def test_a_legacy_ping_returns_everyone_keyed_by_email(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Pinger")
    observer = make_user(full_name="Presence Watcher")
    queue = register(observer)
    body = user.ok("POST", "/users/me/presence", status="active", new_user_input=True)
    assert isinstance(body["server_timestamp"], float) and body["presence_last_update_id"] > 0
    mine = body["presences"][user.email]
    assert mine["website"]["client"] == "website" and mine["website"]["status"] == "active"
    assert mine["website"]["pushable"] is False
    assert mine["aggregated"] == {k: mine["website"][k] for k in ("client", "status", "timestamp")}
    [event] = events(observer, queue, type="presence")
    assert event["user_id"] == user.user_id and event["email"] == user.email
    assert event["presence"]["website"] == mine["website"]
    # A second ping at once changes nothing and sends nothing.
    again = user.ok("POST", "/users/me/presence", status="active", last_update_id=-1)
    user.ok("POST", "/users/me/presence", status="active")
    assert len(events(observer, queue, type="presence")) == 1
    assert str(user.user_id) in again["presences"]


def test_the_modern_format_and_last_update_id(make_user) -> None:  # type: ignore[no-untyped-def]
    first = make_user(full_name="Early Bird")
    second = make_user(full_name="Late Riser")
    body = first.ok("POST", "/users/me/presence", status="idle", last_update_id=-1)
    newest = body["presence_last_update_id"]
    entry = body["presences"][str(first.user_id)]
    assert set(entry) == {"active_timestamp", "idle_timestamp"}
    assert entry["idle_timestamp"] >= entry["active_timestamp"]
    unchanged = first.ok("POST", "/users/me/presence", status="idle", last_update_id=newest)
    assert unchanged["presences"] == {} and unchanged["presence_last_update_id"] == newest
    second.ok("POST", "/users/me/presence", status="active", ping_only=True)
    changed = first.ok("POST", "/users/me/presence", status="idle", last_update_id=newest)
    assert list(changed["presences"]) == [str(second.user_id)]
    assert changed["presence_last_update_id"] > newest
    slim = first.ok("POST", "/users/me/presence", status="idle", slim_presence=True)
    assert str(second.user_id) in slim["presences"]
    none = first.ok("POST", "/users/me/presence", status="idle", history_limit_days=0)
    assert none["presences"] == {} and none["presence_last_update_id"] == -1


def test_ping_only_and_errors(make_user, server: ServerProcess) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Quick Pinger")
    body = user.ok("POST", "/users/me/presence", status="active", ping_only=True)
    assert set(body) == {"result", "msg"}
    assert_error(user.post("/users/me/presence", status="away"), "Invalid status: away")
    assert_error(
        user.post("/users/me/presence"), "Missing 'status' argument", "REQUEST_VARIABLE_MISSING"
    )
    assert_error(
        user.post("/users/me/presence", status="active", last_update_id="x"),
        "last_update_id is not valid JSON",
    )
    created = user.ok("POST", "/users/me/bots", full_name="Presence Bot", short_name="presencebot")
    host = user.ok("POST", "/register", fetch_event_types=["realm"])["realm_bot_domain"]
    with Api(server.url, f"presencebot-bot@{host}", created["api_key"]) as bot:
        assert_error(
            bot.post("/users/me/presence", status="active"),
            "This endpoint does not accept bot requests.",
        )
    assert_error(
        user.get(f"/users/{created['user_id']}/presence"),
        "Presence is not supported for bot users.",
    )


def test_one_users_presence_and_the_realms(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Present Person")
    viewer = make_user(full_name="Looker")
    assert_error(
        viewer.get(f"/users/{user.user_id}/presence"), f"No presence data for {user.user_id}"
    )
    user.ok("POST", "/users/me/presence", status="active")
    legacy = viewer.ok("GET", f"/users/{user.user_id}/presence")["presence"]
    assert legacy["aggregated"]["status"] == "active" and set(legacy["website"]) == {
        "status",
        "timestamp",
    }
    by_email = viewer.ok("GET", f"/users/{user.email}/presence")["presence"]
    assert by_email == legacy
    modern = slim_presence(viewer, user.user_id)
    assert set(modern) == {"active_timestamp", "idle_timestamp"}
    assert_error(viewer.get("/users/999999/presence"), "No such user")
    assert_error(viewer.get("/users/ghost@example.com/presence"), "No such user")
    realm = viewer.ok("GET", "/realm/presence")
    assert user.email in realm["presences"] and "presence_last_update_id" not in realm


def test_register_state_has_presence_in_the_requested_format(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Stateful Pinger")
    user.ok("POST", "/users/me/presence", status="active")
    legacy = user.ok("POST", "/register", fetch_event_types=["presence"])
    assert user.email in legacy["presences"] and legacy["presence_last_update_id"] > 0
    assert legacy["server_presence_ping_interval_seconds"] == 60
    assert legacy["server_presence_offline_threshold_seconds"] == 200
    slim = user.ok("POST", "/register", fetch_event_types=["presence"], slim_presence=True)
    assert set(slim["presences"][str(user.user_id)]) == {"active_timestamp", "idle_timestamp"}


def test_invisible_users_share_nothing(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Shy Person")
    observer = make_user(full_name="Nosy Person")
    user.ok("POST", "/users/me/presence", status="active")
    before = slim_presence(observer, user.user_id)
    sent = verify(observer, lambda: user.ok("PATCH", "/settings", presence_enabled=False))
    kinds = {e["type"] for e in sent}
    assert kinds == {"presence", "user_status"}
    [presence] = [e for e in sent if e["type"] == "presence"]
    assert presence["presence"]["website"]["status"] == "active"
    after = slim_presence(observer, user.user_id)
    assert after["idle_timestamp"] < before["idle_timestamp"] - 190
    assert (
        observer.ok("GET", f"/users/{user.user_id}/presence")["presence"]["aggregated"]["status"]
        == "offline"
    )
    # While invisible, pings record nothing.
    newest = user.ok("POST", "/users/me/presence", status="active", last_update_id=-1)[
        "presence_last_update_id"
    ]
    again = user.ok("POST", "/users/me/presence", status="active", last_update_id=newest)
    assert str(user.user_id) not in again["presences"]
    back = verify(observer, lambda: user.ok("PATCH", "/settings", presence_enabled=True))
    assert {e["type"] for e in back} == {"presence", "user_status"}
    now = observer.ok("GET", f"/users/{user.user_id}/presence")["presence"]
    assert now["aggregated"]["status"] == "active"


def test_a_realm_with_presence_disabled(start_server) -> None:  # type: ignore[no-untyped-def]
    proc = start_server()
    settings = json.dumps({"presence_disabled": True})
    rawdb.query(proc.db, "UPDATE realm SET settings_json = ?", (settings,))
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        queue = register(owner)
        body = owner.ok("POST", "/users/me/presence", status="active")
        assert body["presences"] == {} and body["presence_last_update_id"] == -1
        assert events(owner, queue, type="presence") == []


def test_register_presence_parameters(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Reconnecting Client")
    newest = user.ok("POST", "/users/me/presence", status="active", last_update_id=-1)[
        "presence_last_update_id"
    ]
    state = user.ok(
        "POST", "/register", fetch_event_types=["presence"], presence_last_update_id=newest
    )
    assert state["presences"] == {} and state["presence_last_update_id"] == newest
    other = make_user(full_name="Newcomer Pinger")
    other.ok("POST", "/users/me/presence", status="idle")
    state = user.ok(
        "POST", "/register", fetch_event_types=["presence"], presence_last_update_id=newest
    )
    assert list(state["presences"]) == [str(other.user_id)]
    none = user.ok(
        "POST", "/register", fetch_event_types=["presence"], presence_history_limit_days=0
    )
    assert none["presences"] == {} and none["presence_last_update_id"] == -1

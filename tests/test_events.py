"""POST /register, GET /events (long-poll), DELETE /events, and the events actions send."""

from __future__ import annotations

import threading
import time

import msgspec
import zulip

from teamchat.events.types import EVENT_TYPES
from tests.conftest import unique_email
from tests.support.api import Api, assert_error, assert_success
from tests.support.server import ServerProcess


def check_event_schema(event: dict) -> None:  # type: ignore[type-arg]
    """Decode a delivered event into our own Struct for its type and op."""
    by_op = EVENT_TYPES[event["type"]]
    struct = by_op.get(event.get("op")) or by_op[None]
    msgspec.convert(
        {k: v for k, v in event.items() if k not in ("id", "type")}, struct, strict=True
    )


def test_register_returns_queue_and_core_state(owner: Api) -> None:
    state = owner.ok("POST", "/register")
    assert state["last_event_id"] == -1 and isinstance(state["queue_id"], str)
    for key, expected in {
        "max_message_length": 10000,
        "max_topic_length": 60,
        "realm_empty_topic_display_name": "general chat",
    }.items():
        assert state[key] == expected
    for key in (
        "zulip_version",
        "zulip_feature_level",
        "zulip_merge_base",
        "service_version",
        "service_feature_level",
        "service_merge_base",
        "max_channel_folder_name_length",
        "max_channel_folder_description_length",
        "event_queue_longpoll_timeout_seconds",
        "realm_name",
        "realm_url",
        "user_id",
        "email",
        "full_name",
        "realm_users",
    ):
        assert key in state, key
    assert state["event_queue_longpoll_timeout_seconds"] > 50  # beyond the heartbeat
    me = [u for u in state["realm_users"] if u["user_id"] == state["user_id"]]
    assert me and me[0]["email"] == owner.email


def test_fetch_event_types_limits_the_state(owner: Api) -> None:
    state = owner.ok("POST", "/register", fetch_event_types=["realm"])
    assert "realm_name" in state and "realm_users" not in state
    assert "zulip_version" in state  # always present: every client needs it
    state = owner.ok("POST", "/register", event_types=["realm_user"])
    assert "realm_users" in state and "realm_name" not in state  # defaults to event_types


def test_dont_block_returns_at_once_and_events_arrive(owner: Api, server: ServerProcess) -> None:
    queue = owner.ok("POST", "/register", event_types=["realm_user"])
    body = owner.ok("GET", "/events", queue_id=queue["queue_id"], last_event_id=-1, dont_block=True)
    assert body["events"] == [] and body["queue_id"] == queue["queue_id"]
    email = unique_email()
    assert_success(owner.post("/users", email=email, password="pw-123456", full_name="New Person"))
    events = owner.ok("GET", "/events", queue_id=queue["queue_id"], last_event_id=-1)["events"]
    assert [(e["type"], e["op"]) for e in events] == [("realm_user", "add")]
    assert events[0]["person"]["email"] == email and events[0]["id"] == 0
    check_event_schema(events[0])
    # Acknowledging prunes: nothing newer than id 0 is left.
    again = owner.ok("GET", "/events", queue_id=queue["queue_id"], last_event_id=0, dont_block=True)
    assert again["events"] == []


def test_long_poll_waits_for_an_event(owner: Api, server: ServerProcess) -> None:
    queue = owner.ok("POST", "/register", event_types=["realm_user"])
    result: dict = {}  # type: ignore[type-arg]

    def poll() -> None:
        started = time.monotonic()
        with Api(server.url, owner.email, owner.api_key) as api:
            result["body"] = api.ok("GET", "/events", queue_id=queue["queue_id"], last_event_id=-1)
        result["secs"] = time.monotonic() - started

    thread = threading.Thread(target=poll)
    thread.start()
    time.sleep(0.3)
    assert thread.is_alive()
    assert_success(
        owner.post("/users", email=unique_email(), password="pw-123456", full_name="Waker")
    )
    thread.join(10)
    assert result["body"]["events"][0]["type"] == "realm_user"
    assert result["secs"] < 2


def test_idle_long_poll_gets_a_heartbeat(owner: Api) -> None:
    queue = owner.ok("POST", "/register", event_types=["message"])
    started = time.monotonic()
    events = owner.ok("GET", "/events", queue_id=queue["queue_id"], last_event_id=-1)["events"]
    assert [e["type"] for e in events] == ["heartbeat"]
    assert 1.5 < time.monotonic() - started < 10  # the test server beats every 2 s
    check_event_schema(events[0])


def test_event_types_filter_what_a_queue_receives(owner: Api) -> None:
    queue = owner.ok("POST", "/register", event_types=["message"])
    assert_success(
        owner.post("/users", email=unique_email(), password="pw-123456", full_name="Quiet")
    )
    body = owner.ok("GET", "/events", queue_id=queue["queue_id"], last_event_id=-1, dont_block=True)
    assert body["events"] == []


def test_unknown_queue_is_bad_event_queue_id(owner: Api) -> None:
    body = assert_error(
        owner.get("/events", queue_id="nope", last_event_id=-1),
        "Bad event queue ID: nope",
        "BAD_EVENT_QUEUE_ID",
    )
    assert body["queue_id"] == "nope"


def test_a_queue_belongs_to_its_user(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    queue = owner.ok("POST", "/register")
    other = make_user()
    assert_error(other.get("/events", queue_id=queue["queue_id"]), None, "BAD_EVENT_QUEUE_ID")
    assert_error(other.delete("/events", queue_id=queue["queue_id"]), None, "BAD_EVENT_QUEUE_ID")


def test_delete_events_removes_the_queue(owner: Api) -> None:
    queue = owner.ok("POST", "/register")
    owner.ok("DELETE", "/events", queue_id=queue["queue_id"])
    assert_error(owner.get("/events", queue_id=queue["queue_id"]), None, "BAD_EVENT_QUEUE_ID")
    # zulip-js sends DELETE parameters in the query string.
    queue = owner.ok("POST", "/register")
    response = owner.http.delete("/events", params={"queue_id": queue["queue_id"]})
    assert_success(response)


def test_get_events_with_register_parameters_registers_a_queue(owner: Api) -> None:
    body = owner.ok("GET", "/events", event_types=["realm_user"], dont_block=True)
    assert body["events"] == [] and body["queue_id"]
    assert_success(owner.get("/events", queue_id=body["queue_id"], dont_block=True))


def test_bad_register_parameters(owner: Api) -> None:
    assert_error(
        owner.post("/register", event_types="[not json"),
        "event_types is not valid JSON",
    )
    assert_error(owner.post("/register", event_types='"message"'), "event_types is not a list")
    assert_error(
        owner.post("/register", apply_markdown="maybe"), "apply_markdown is not valid JSON"
    )
    assert_error(owner.post("/register", apply_markdown="3"), "apply_markdown is not a boolean")
    assert_error(
        owner.post("/register", client_capabilities="[]"), "client_capabilities is not a dict"
    )
    assert_error(owner.post("/register", narrow='[["stream"]]'), None)
    assert_error(
        owner.get("/events", queue_id="x", last_event_id="one"), "last_event_id is not valid JSON"
    )


def test_unknown_parameters_are_listed_as_ignored(owner: Api) -> None:
    body = owner.ok("POST", "/register", fetch_event_types=["realm"], bogus=1, another="x")
    assert body["ignored_parameters_unsupported"] == ["another", "bogus"]
    # zulip-js 2.0.9 sends eventTypes=null: a queue for every event type.
    body = owner.ok("POST", "/register", eventTypes="null", fetch_event_types=[])
    assert "ignored_parameters_unsupported" not in body


def test_official_client_registers_polls_and_fetches_itself(server: ServerProcess) -> None:
    client = zulip.Client(email=server.owner_email, api_key=server.owner_key, site=server.url)
    me = client.get_profile()
    assert me["result"] == "success" and me["email"] == server.owner_email
    queue = client.register(event_types=["realm_user"])
    assert queue["result"] == "success"
    client.call_endpoint(
        "users",
        method="POST",
        request={
            "email": unique_email(),
            "password": "pw-123456",
            "full_name": "Via Client",
        },
    )
    events = client.get_events(queue_id=queue["queue_id"], last_event_id=-1)
    assert events["result"] == "success"
    assert events["events"][0]["person"]["full_name"] == "Via Client"
    assert client.deregister(queue["queue_id"])["result"] == "success"

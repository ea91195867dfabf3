"""Helpers for channel and message tests: unique names, subscribing, reading event queues."""

from __future__ import annotations

import itertools
from typing import Any

import msgspec

from teamchat.events.types import EVENT_TYPES
from tests.support.api import Api, JsonDict, assert_success
from tests.support.server import ServerProcess, cli

_names = itertools.count(1)


def unique_name(prefix: str = "channel") -> str:
    return f"{prefix}-{next(_names)}"


def subscribe(api: Api, *names: str, **params: Any) -> JsonDict:
    """Subscribe `api`'s user (or `principals`) to channels, creating missing ones."""
    return api.ok(
        "POST", "/users/me/subscriptions", subscriptions=[{"name": n} for n in names], **params
    )


def stream_id(api: Api, name: str) -> int:
    return int(api.ok("GET", "/get_stream_id", stream=name)["stream_id"])


def check_event_schema(event: JsonDict) -> None:
    """Decode a delivered event into our own Struct for its type and op (strict)."""
    by_op = EVENT_TYPES[event["type"]]
    struct = by_op.get(event.get("op")) or by_op[None]
    assert not [k for k in event if k.startswith("_")], event
    msgspec.convert(
        {k: v for k, v in event.items() if k not in ("id", "type")}, struct, strict=True
    )


class Queue:
    """A registered event queue; `events()` returns (and acknowledges) what arrived."""

    def __init__(self, api: Api, **register: Any) -> None:
        self.api = api
        self.state = api.ok("POST", "/register", **register)
        self.queue_id = self.state["queue_id"]
        self.last_event_id = -1

    def events(self, check: bool = True) -> list[JsonDict]:
        body = self.api.ok(
            "GET",
            "/events",
            queue_id=self.queue_id,
            last_event_id=self.last_event_id,
            dont_block=True,
        )
        events: list[JsonDict] = body["events"]
        if events:
            self.last_event_id = events[-1]["id"]
        if check:
            for event in events:
                check_event_schema(event)
        return events

    def of_type(self, event_type: str, op: str | None = None) -> list[JsonDict]:
        return [
            e
            for e in self.events()
            if e["type"] == event_type and (op is None or e.get("op") == op)
        ]


def make_role_user(server: ServerProcess, email: str, full_name: str, role: str) -> Api:
    """Create a user with `role` through the CLI and log in as them."""
    cli(
        server.db,
        "admin",
        "create-user",
        "--email",
        email,
        "--full-name",
        full_name,
        "--password",
        "pw-123456",
        "--role",
        role,
    )
    anonymous = Api(server.url)
    body = assert_success(anonymous.post("/fetch_api_key", username=email, password="pw-123456"))
    anonymous.close()
    api = Api(server.url, email, body["api_key"])
    api.user_id = body["user_id"]  # type: ignore[attr-defined]
    return api


def drop_channel_notice(owner: Api, name: str) -> None:
    """Delete the Notification Bot's first message in a new channel (topic "channel
    events"), for tests that count a channel's messages from zero."""
    found = owner.ok(
        "GET",
        "/messages",
        anchor="oldest",
        num_before=0,
        num_after=5,
        narrow=[
            {"operator": "channel", "operand": name},
            {"operator": "topic", "operand": "channel events"},
        ],
    )["messages"]
    for message in found:
        owner.ok("DELETE", f"/messages/{message['id']}")


def default_stream_ids(api):  # type: ignore[no-untyped-def]
    """The default channels as a client reads them (Zulip has no GET /default_streams)."""
    return api.ok("POST", "/register", fetch_event_types=["default_streams"])[
        "realm_default_streams"
    ]

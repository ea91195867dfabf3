"""State versus events for channels: applying a queue's events to the register state it
started from gives the same state as a fresh register."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.support.api import Api
from tests.support.channels import Queue, stream_id, subscribe, unique_name
from tests.support.messaging_state import apply_events, assert_same

MakeUser = Callable[..., Api]
CHANNEL_KEYS = ("subscriptions", "unsubscribed", "never_subscribed", "streams")
MODERN = {"notification_settings_null": True, "archived_channels": True}


def run_channel_story(owner: Api, alice: Api, bob: Api) -> None:
    a, b, c, d = (unique_name(p) for p in ("StoryA", "StoryB", "StoryC", "StoryD"))
    subscribe(alice, a)
    subscribe(bob, b)
    subscribe(owner, c, invite_only=True)
    subscribe(owner, c, principals=[alice.user_id])  # type: ignore[attr-defined]
    sid_a, sid_b, sid_c = stream_id(alice, a), stream_id(bob, b), stream_id(alice, c)
    alice.ok(
        "POST",
        "/users/me/subscriptions/properties",
        subscription_data=[
            {"stream_id": sid_a, "property": "color", "value": "#123456"},
            {"stream_id": sid_a, "property": "is_muted", "value": True},
        ],
    )
    alice.ok("DELETE", "/users/me/subscriptions", subscriptions=[c])
    subscribe(bob, b, principals=[alice.user_id])  # type: ignore[attr-defined]
    alice.ok("DELETE", "/users/me/subscriptions", subscriptions=[b])
    alice.ok("PATCH", f"/streams/{sid_a}", new_name=unique_name("StoryA2"), description="x")
    bob.ok("PATCH", f"/streams/{sid_b}", is_private=True)
    owner.ok("PATCH", f"/streams/{sid_c}", is_private=False)
    subscribe(bob, d)
    owner.ok("DELETE", f"/streams/{stream_id(bob, d)}")
    subscribe(owner, unique_name("StoryE"), principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("include_subscribers", "capabilities"),
    [(True, MODERN), (False, {})],
    ids=["modern", "legacy"],
)
def test_channel_events_match_fresh_state(
    owner: Api,
    make_user: MakeUser,
    include_subscribers: bool,
    capabilities: dict[str, Any],
) -> None:
    alice, bob = make_user("Alice Story"), make_user("Bob Story")
    params = {
        "fetch_event_types": ["subscription", "stream"],
        "include_subscribers": include_subscribers,
        "client_capabilities": capabilities,
    }
    watchers = {
        "alice": (alice, Queue(alice, **params)),
        "bob": (bob, Queue(bob, **params)),
        "owner": (owner, Queue(owner, **params)),
    }
    run_channel_story(owner, alice, bob)
    for who, (api, queue) in watchers.items():
        user_id = api.ok("GET", "/users/me")["user_id"]
        hybrid = apply_events(
            queue.state, queue.events(), user_id, include_subscribers=include_subscribers
        )
        fresh = api.ok("POST", "/register", **params)
        try:
            assert_same(hybrid, fresh, CHANNEL_KEYS)
        except AssertionError as exc:
            raise AssertionError(f"state of {who} differs: {exc}") from None

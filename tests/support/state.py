"""Register-state helpers for state-versus-events tests through HTTP."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.support.api import Api
from tests.support.apply_events import apply_events, assert_state_matches

JsonDict = dict[str, Any]


def verify_action(
    api: Api, action: Callable[[], object], *, num_events: int | None = None, **register_params: Any
) -> list[JsonDict]:
    """Register, run `action`, and check that applying the events it sent to the old state
    gives a fresh register state. Returns the events."""
    params = {
        "client_capabilities": {
            "user_settings_object": True,
            "empty_topic_name": True,
            "bulk_message_deletion": True,
            "notification_settings_null": True,
            "include_deactivated_groups": True,
        },
        "apply_markdown": True,
        "client_gravatar": False,
        **register_params,
    }
    before = api.ok("POST", "/register", **params)
    action()
    events = api.ok(
        "GET", "/events", queue_id=before["queue_id"], last_event_id=-1, dont_block=True
    )["events"]
    if num_events is not None:
        assert len(events) == num_events, events
    fresh = api.ok("POST", "/register", **params)
    incomplete = bool(params["client_capabilities"].get("user_list_incomplete"))
    assert_state_matches(
        apply_events(before, events, user_list_incomplete=incomplete), fresh, events
    )
    return events

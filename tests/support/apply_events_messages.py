"""Appliers for channel and message events in the shared oracle (tests.support.apply_events).

They run this area's MessageOracle on the state in place, so verify_action tests of any
area also follow stream, subscription, message, flag and topic-policy events.
"""

from __future__ import annotations

from typing import Any

from tests.support.apply_events import applier
from tests.support.message_oracle import MessageOracle

JsonDict = dict[str, Any]


def _apply(state: JsonDict, event: JsonDict) -> None:
    channels = [*state.get("subscriptions", []), *state.get("never_subscribed", [])]
    include_subscribers = any("subscribers" in c for c in channels)
    oracle = MessageOracle(
        state, int(state.get("user_id", 0)), include_subscribers=include_subscribers
    )
    result = oracle.apply([event])
    state.clear()
    state.update(result)


for _event_type in (
    "stream",
    "subscription",
    "message",
    "update_message",
    "delete_message",
    "update_message_flags",
    "user_topic",
    "muted_topics",
):
    applier(_event_type)(_apply)


@applier("reaction")
def _reaction(state: JsonDict, event: JsonDict) -> None:
    """Reactions live on messages, which are not part of the register state."""


@applier("typing")
def _typing(state: JsonDict, event: JsonDict) -> None:
    """Typing notifications are not part of the register state."""


@applier("typing_edit_message")
def _typing_edit(state: JsonDict, event: JsonDict) -> None:
    """Typing while editing is not part of the register state either."""


@applier("submessage")
def _submessage(state: JsonDict, event: JsonDict) -> None:
    """Submessages (poll votes, tasks) live on messages, outside the register state."""

"""The client-side oracle for channel and message events: apply events to a register state.

A test registers a queue, performs actions, applies the queue's events to the initial state
with `apply_events`, and compares the result with a fresh POST /register (`assert_same`).
Modelled on Zulip's `zerver/lib/events.py` apply_event, for the keys this area owns.
"""

from __future__ import annotations

import copy
from typing import Any

JsonDict = dict[str, Any]
CHANNEL_LISTS = ("subscriptions", "unsubscribed", "never_subscribed")


class Oracle:
    def __init__(self, state: JsonDict, user_id: int, *, include_subscribers: bool) -> None:
        self.state = copy.deepcopy(state)
        self.user_id = user_id
        self.include_subscribers = include_subscribers

    def apply(self, events: list[JsonDict]) -> JsonDict:
        for event in events:
            handler = getattr(self, f"on_{event['type']}", None)
            if handler is not None:
                handler(event)
        return self.state

    # -- channels -----------------------------------------------------------------------
    def _all_channel_dicts(self) -> list[JsonDict]:
        return [c for key in (*CHANNEL_LISTS, "streams") for c in self.state.get(key, [])]

    def on_stream(self, event: JsonDict) -> None:
        getattr(self, f"_stream_{event['op']}")(event)

    def _stream_create(self, event: JsonDict) -> None:
        known = {c["stream_id"] for key in CHANNEL_LISTS for c in self.state.get(key, [])}
        for stream in event["streams"]:
            if "streams" in self.state:
                self.state["streams"].append(copy.deepcopy(stream))
            if "never_subscribed" in self.state and stream["stream_id"] not in known:
                item = copy.deepcopy(stream)
                if self.include_subscribers:
                    item["subscribers"] = []
                self.state["never_subscribed"].append(item)
        # Keep the orders of a fresh state: `streams` by id, `never_subscribed` by name.
        if "streams" in self.state:
            self.state["streams"].sort(key=lambda c: c["stream_id"])
        if "never_subscribed" in self.state:
            self.state["never_subscribed"].sort(key=lambda c: c["name"].lower())

    def _stream_delete(self, event: JsonDict) -> None:
        gone = set(event["stream_ids"])
        for key in (*CHANNEL_LISTS, "streams"):
            if key in self.state:
                self.state[key] = [c for c in self.state[key] if c["stream_id"] not in gone]

    def _stream_update(self, event: JsonDict) -> None:
        extras = ("rendered_description", "history_public_to_subscribers", "is_web_public")
        for channel in self._all_channel_dicts():
            if channel["stream_id"] == event["stream_id"]:
                channel[event["property"]] = event["value"]
                channel.update({k: event[k] for k in extras if k in event})

    def on_subscription(self, event: JsonDict) -> None:
        getattr(self, f"_subscription_{event['op']}")(event)

    def _subscription_add(self, event: JsonDict) -> None:
        for sub in event["subscriptions"]:
            sub = copy.deepcopy(sub)
            if not self.include_subscribers:
                sub.pop("subscribers", None)
            for key in ("unsubscribed", "never_subscribed"):
                if key in self.state:
                    self.state[key] = [
                        c for c in self.state[key] if c["stream_id"] != sub["stream_id"]
                    ]
            self.state.setdefault("subscriptions", []).append(sub)
            for channel in self.state.get("streams", []):
                if channel["stream_id"] == sub["stream_id"]:
                    channel["subscriber_count"] = sub["subscriber_count"]
        # The server lists channels by name, case-insensitively.
        self.state["subscriptions"].sort(key=lambda c: c["name"].lower())

    def _subscription_remove(self, event: JsonDict) -> None:
        removed = {s["stream_id"] for s in event["subscriptions"]}
        moved = [s for s in self.state.get("subscriptions", []) if s["stream_id"] in removed]
        self.state["subscriptions"] = [
            s for s in self.state.get("subscriptions", []) if s["stream_id"] not in removed
        ]
        for sub in moved:
            sub["subscriber_count"] -= 1
            if "subscribers" in sub:
                sub["subscribers"] = [u for u in sub["subscribers"] if u != self.user_id]
            self.state.setdefault("unsubscribed", []).append(sub)
        if "unsubscribed" in self.state:
            self.state["unsubscribed"].sort(key=lambda c: c["name"].lower())
        for channel in self.state.get("streams", []):
            if channel["stream_id"] in removed:
                channel["subscriber_count"] -= 1

    def _subscription_update(self, event: JsonDict) -> None:
        for sub in self.state.get("subscriptions", []):
            if sub["stream_id"] == event["stream_id"]:
                sub[event["property"]] = event["value"]
                if event["property"] == "is_muted":
                    sub["in_home_view"] = not event["value"]
                if event["property"] == "in_home_view":
                    sub["is_muted"] = not event["value"]

    def _subscription_peer_add(self, event: JsonDict) -> None:
        self._peers(event, add=True)

    def _subscription_peer_remove(self, event: JsonDict) -> None:
        self._peers(event, add=False)

    def _peers(self, event: JsonDict, *, add: bool) -> None:
        # A client that knows a channel's subscribers counts them (a role change sends
        # stream/create, then the subscribers as peer_add, for subscribers already counted).
        stream_ids, user_ids = set(event["stream_ids"]), set(event["user_ids"])
        counts: dict[int, int] = {}
        for channel in self._all_channel_dicts():
            if channel["stream_id"] in stream_ids and "subscribers" in channel:
                before = set(channel["subscribers"])
                after = before | user_ids if add else before - user_ids
                channel["subscribers"] = sorted(after)
                counts[channel["stream_id"]] = len(after)
        for channel in self._all_channel_dicts():
            if channel["stream_id"] in counts:
                channel["subscriber_count"] = counts[channel["stream_id"]]
            elif channel["stream_id"] in stream_ids:
                channel["subscriber_count"] += len(user_ids) if add else -len(user_ids)


def apply_events(
    state: JsonDict, events: list[JsonDict], user_id: int, *, include_subscribers: bool = False
) -> JsonDict:
    return Oracle(state, user_id, include_subscribers=include_subscribers).apply(events)


def _normalized(value: Any) -> Any:
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        key = next((k for k in ("stream_id", "id", "message_id") if k in value[0]), None)
        if key is not None:
            return sorted((_normalized(v) for v in value), key=lambda v: v[key])
    if isinstance(value, dict):
        return {k: _normalized(v) for k, v in value.items()}
    return value


def assert_same(hybrid: JsonDict, fresh: JsonDict, keys: tuple[str, ...]) -> None:
    """The keys of the event-updated state equal those of a fresh register state."""
    problems = []
    for key in keys:
        left, right = _normalized(hybrid.get(key)), _normalized(fresh.get(key))
        if left != right:
            problems.append(f"{key}:\n  from events: {left}\n  fresh:       {right}")
    assert not problems, "\n".join(problems)

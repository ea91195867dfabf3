"""EventQueue: one client's queue of events, with its filters, shaping and long-poll waiter.

Owns what a client asked for at registration (ClientCapabilities) and applies it to every
event on the way in (`accepts`, `encode`). Must not touch SQLite or await in `push`.

A queue holds its events as JSON ready for the wire, each `(id, body)` with the body encoded
once per distinct copy (the broker shares one body among every queue whose copy is the same)
and the id spliced in when a poll takes it: a poll costs a join, not an encode.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Protocol

import msgspec

from teamchat.lib.api_types import JsonDict

# Events for legacy clients only (Zulip hides them from `user_settings_object` clients).
LEGACY_SETTINGS_EVENTS = frozenset({"update_display_settings", "update_global_notifications"})


class ClientCapabilities(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a client declared at POST /register that changes what it receives."""

    event_types: frozenset[str] | None = None
    narrow: tuple[tuple[str, object, bool], ...] = ()
    all_public_streams: bool = False
    apply_markdown: bool = False
    client_gravatar: bool = False
    slim_presence: bool = False
    include_subscribers: bool = False
    notification_settings_null: bool = False
    bulk_message_deletion: bool = False
    user_avatar_url_field_optional: bool = False
    stream_typing_notifications: bool = False
    user_settings_object: bool = False
    include_deactivated_groups: bool = False
    empty_topic_name: bool = False
    individual_emoji_changes: bool = False
    archived_channels: bool = False
    user_list_incomplete: bool = False
    linkifier_url_template: bool = False
    simplified_presence_events: bool = False
    client_name: str = ""
    # The initial `presences`: only changes after this id, and at most this many days old.
    presence_last_update_id: int | None = None
    presence_history_limit_days: int | None = None

    @classmethod
    def everything(cls) -> ClientCapabilities:
        """A modern client that wants every event (tests, the mobile app)."""
        return cls(
            apply_markdown=True,
            notification_settings_null=True,
            bulk_message_deletion=True,
            user_avatar_url_field_optional=True,
            stream_typing_notifications=True,
            user_settings_object=True,
            include_deactivated_groups=True,
            empty_topic_name=True,
            individual_emoji_changes=True,
            linkifier_url_template=True,
        )


# Per event type, an optional rule deciding whether a queue takes the event and a function
# producing this queue's copy of it. Feature modules register theirs in events/shapers.py.
Accepts = Callable[["EventQueue", JsonDict], bool]
Shaper = Callable[["EventQueue", JsonDict], JsonDict]
ACCEPT_RULES: dict[str, Accepts] = {}
SHAPERS: dict[str, Shaper] = {}


_encode = msgspec.json.Encoder().encode


class Waiter(Protocol):
    """What waits for a queue's next event: an asyncio future, or a poll answered on its
    connection directly (http/poll_lane.py)."""

    def done(self) -> bool: ...

    def set_result(self, result: None, /) -> None: ...


# What an idle queue holds until its first event: one deque (about 600 bytes) per queue
# with events, not per queue (servers keep thousands of idle ones).
_NO_EVENTS: deque[tuple[int, bytes]] = deque(maxlen=0)


class EventQueue:
    """A client's queue: ids count from 0, `last_event_id` acknowledges and prunes."""

    __slots__ = (
        "caps",
        "events",
        "heartbeat_at",
        "idle_timeout_secs",
        "last_contact",
        "next_event_id",
        "queue_id",
        "user_id",
        "waiter",
    )

    def __init__(
        self,
        queue_id: str,
        user_id: int,
        caps: ClientCapabilities,
        *,
        idle_timeout_secs: float,
        now: float,
    ) -> None:
        self.queue_id = queue_id
        self.user_id = user_id
        self.caps = caps
        self.idle_timeout_secs = idle_timeout_secs
        self.last_contact = now
        self.next_event_id = 0
        self.events: deque[tuple[int, bytes]] = _NO_EVENTS
        self.waiter: Waiter | None = None
        self.heartbeat_at = 0.0  # loop time when a waiting poll gets its heartbeat

    def accepts(self, event: JsonDict) -> bool:
        event_type = event["type"]
        assert isinstance(event_type, str)
        if self.caps.event_types is not None and event_type not in self.caps.event_types:
            return False
        if event_type in LEGACY_SETTINGS_EVENTS and self.caps.user_settings_object:
            return False
        rule = ACCEPT_RULES.get(event_type)
        return rule is None or rule(self, event)

    def encode(self, event: JsonDict) -> bytes:
        """This queue's copy of an accepted `event`, as JSON without its id."""
        shaper = SHAPERS.get(str(event["type"]))
        return _encode(shaper(self, event) if shaper else event)

    def push(self, event: JsonDict) -> None:
        """Append this queue's copy of `event` with the next id, and wake the waiter."""
        self.push_encoded(self.encode(event))

    def push_encoded(self, body: bytes) -> None:
        """Append an encoded copy (from `encode`, possibly another queue's equal one)."""
        if self.events is _NO_EVENTS:
            self.events = deque()
        self.events.append((self.next_event_id, body))
        self.next_event_id += 1
        self.wake()

    def prune(self, last_event_id: int) -> None:
        while self.events and self.events[0][0] <= last_event_id:
            self.events.popleft()

    def wire_events(self) -> list[bytes]:
        """The pending events as JSON objects, ids included (`{"id":N,` + the body)."""
        return [b'{"id":%d,%s' % (event_id, body[1:]) for event_id, body in self.events]

    def contents(self) -> list[JsonDict]:
        """The pending events as dicts (for tests and debugging)."""
        return [msgspec.json.decode(event) for event in self.wire_events()]

    def wake(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def is_idle(self, now: float) -> bool:
        return self.waiter is None and now - self.last_contact > self.idle_timeout_secs

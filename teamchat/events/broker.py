"""EventBroker: the in-memory registry of event queues and the one place events are delivered.

Actions publish after COMMIT (under the writer lock); the broker never awaits in `publish`.
Long-polls wait here; a GC task drops queues nobody polled for their idle timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable, Iterable, Mapping

import msgspec

from teamchat.errors import BadEventQueueIdError
from teamchat.events.internal import FOR_QUEUE, IF_CAPS
from teamchat.events.queue import ClientCapabilities, EventQueue, Waiter
from teamchat.events.types import Event, JsonDict
from teamchat.lib.queue_ids import new_queue_id

log = logging.getLogger(__name__)
_encode = msgspec.json.Encoder().encode
_UNDECIDED = object()

# Per-user extra fields merged into one recipient's copy (e.g. a message's flags).
Audience = Iterable[int] | Mapping[int, JsonDict]
# Clients mostly declare the same capabilities, so queues share one copy of each (a few
# hundred bytes a queue otherwise); bounded, so ever new narrows cannot grow it without end.
MAX_SHARED_CAPABILITIES = 1024


class EventBroker:
    def __init__(
        self,
        clock: Callable[[], float],
        *,
        heartbeat_secs: float = 45.0,
        heartbeat_jitter_secs: float = 10.0,
        idle_timeout_secs: float = 600.0,
        max_idle_timeout_secs: float = 7 * 24 * 3600.0,
        process: int | None = None,
    ) -> None:
        self.clock = clock
        # The number this process's queue ids carry when several processes serve together.
        self.process = process
        self.heartbeat_secs = heartbeat_secs
        self.heartbeat_jitter_secs = heartbeat_jitter_secs
        self.idle_timeout_secs = idle_timeout_secs
        self.max_idle_timeout_secs = max_idle_timeout_secs
        self.queues: dict[str, EventQueue] = {}
        self.queues_by_user: dict[int, list[EventQueue]] = {}
        # user id -> how many of their queues were registered with all_public_streams.
        self._public_watchers: dict[int, int] = {}
        self._shared_caps: dict[ClientCapabilities, ClientCapabilities] = {}
        self._closing = False
        # Queues with a waiting poll; one sweep timer gives those past their time a heartbeat
        # (at most `_sweep_secs` late).
        self._waiting: set[EventQueue] = set()
        self._sweeper: asyncio.TimerHandle | None = None
        self._sweep_secs = min(1.0, heartbeat_secs / 4)

    # -- queues -----------------------------------------------------------------------
    def allocate(
        self, user_id: int, caps: ClientCapabilities, idle_timeout_secs: float | None = None
    ) -> EventQueue:
        """Create a queue for `user_id`; its idle timeout is capped at the server maximum."""
        timeout = min(idle_timeout_secs or self.idle_timeout_secs, self.max_idle_timeout_secs)
        queue_id = new_queue_id(self.clock(), self.process)
        caps = self._shared(caps)
        queue = EventQueue(queue_id, user_id, caps, idle_timeout_secs=timeout, now=self.clock())
        self.queues[queue_id] = queue
        self.queues_by_user.setdefault(user_id, []).append(queue)
        if caps.all_public_streams:
            self._public_watchers[user_id] = self._public_watchers.get(user_id, 0) + 1
        return queue

    def _shared(self, caps: ClientCapabilities) -> ClientCapabilities:
        """An equal ClientCapabilities already held by another queue, else `caps`."""
        try:
            shared = self._shared_caps.get(caps)
        except TypeError:  # a narrow with a list operand (`dm`) is not hashable
            return caps
        if shared is not None:
            return shared
        if len(self._shared_caps) < MAX_SHARED_CAPABILITIES:
            self._shared_caps[caps] = caps
        return caps

    def access(self, queue_id: str, user_id: int) -> EventQueue:
        """The queue `queue_id` if it exists and belongs to `user_id`."""
        queue = self.queues.get(queue_id)
        if queue is None or queue.user_id != user_id:
            raise BadEventQueueIdError(queue_id)
        return queue

    def public_stream_watchers(self) -> set[int]:
        """The users with a live queue registered with all_public_streams."""
        return set(self._public_watchers)

    def delete(self, queue: EventQueue) -> None:
        if self.queues.pop(queue.queue_id, None) is not None and queue.caps.all_public_streams:
            left = self._public_watchers.pop(queue.user_id, 0) - 1
            if left > 0:
                self._public_watchers[queue.user_id] = left
        user_queues = self.queues_by_user.get(queue.user_id, [])
        if queue in user_queues:
            user_queues.remove(queue)
        if not user_queues:
            self.queues_by_user.pop(queue.user_id, None)
        queue.wake()

    def drop_user_queues(self, user_id: int) -> None:
        """Forget every queue of a user (deactivation): their next poll gets BAD_EVENT_QUEUE_ID."""
        for queue in list(self.queues_by_user.get(user_id, ())):
            self.delete(queue)

    # -- delivery ---------------------------------------------------------------------
    def publish(self, event: Event | JsonDict, audience: Audience) -> None:
        """Append `event` to every live queue of the audience that accepts it. Never awaits.

        Whether a queue accepts an event, and its copy, depend only on the queue's declared
        capabilities, the recipient's extras and whether the event targets that queue: each
        distinct combination is decided and encoded once, and the bytes shared.
        """
        payload = event if isinstance(event, dict) else msgspec.to_builtins(event)
        extras = audience if isinstance(audience, Mapping) else None
        target = payload.get(FOR_QUEUE)
        target_id = target.get("queue_id") if isinstance(target, dict) else None
        copies: dict[tuple[int, bytes, bool], bytes | None] = {}
        merged: dict[bytes, JsonDict] = {}  # one merged payload per distinct extras
        extra_keys: dict[int, bytes] = {}  # id of an extras dict (alive meanwhile) -> JSON
        queues_by_user = self.queues_by_user
        for user_id in audience:
            queues = queues_by_user.get(user_id)
            if not queues:
                continue
            extra = extras[user_id] if extras is not None else None
            extra_key = b""
            if extra:
                # Audiences often share one extras dict among many users: encode it once.
                extra_key = extra_keys.get(id(extra), b"")
                if not extra_key:
                    extra_key = extra_keys[id(extra)] = _encode(extra)
            for queue in queues:
                # Equal capabilities are one shared object (see `_shared`), so its id names
                # them without hashing (a narrow with a list operand is not even hashable).
                key = (id(queue.caps), extra_key, queue.queue_id == target_id)
                body = copies.get(key, _UNDECIDED)
                if body is _UNDECIDED:
                    user_payload = payload
                    if extra:
                        user_payload = merged.get(extra_key) or merged.setdefault(
                            extra_key, {**payload, **extra}
                        )
                    body = queue.encode(user_payload) if queue.accepts(user_payload) else None
                    copies[key] = body
                if body is not None:
                    queue.push_encoded(body)  # type: ignore[arg-type]

    def publish_to_public_watchers(
        self, event: JsonDict, receivers: set[int], extra: JsonDict
    ) -> None:
        """`publish` `event`, with `extra` merged, to the queues registered with
        all_public_streams of the users not among `receivers` (this process's own)."""
        watchers = self._public_watchers.keys() - receivers
        if watchers:
            payload = {**event, IF_CAPS: {"all_public_streams": True}}
            self.publish(payload, dict.fromkeys(sorted(watchers), extra))

    async def get_events(
        self, queue: EventQueue, last_event_id: int | None, *, dont_block: bool
    ) -> list[bytes]:
        """Acknowledge up to `last_event_id`, then return the pending events (JSON, see
        EventQueue.wire_events) or long-poll for one."""
        events = self.begin_poll(queue, last_event_id, dont_block=dont_block)
        if events is not None:
            return events
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.attach(queue, waiter)
        try:
            await waiter
        finally:
            self.detach(queue, waiter)
        return queue.wire_events()

    def begin_poll(
        self, queue: EventQueue, last_event_id: int | None, *, dont_block: bool
    ) -> list[bytes] | None:
        """Acknowledge up to `last_event_id`; the events to answer with now, or None when the
        poll must wait (then `attach` a waiter, and `detach` it once woken)."""
        if last_event_id is not None:
            queue.prune(last_event_id)
        queue.last_contact = self.clock()
        if queue.events or dont_block or self._closing:
            return queue.wire_events()
        return None

    def attach(self, queue: EventQueue, waiter: Waiter) -> None:
        """Make `waiter` the queue's one waiter (a new poll finishes the old one); it gets a
        heartbeat if nothing else wakes it within its time."""
        if queue.waiter is not None:
            queue.wake()
        queue.waiter = waiter
        loop = asyncio.get_running_loop()
        jitter = random.uniform(0, self.heartbeat_jitter_secs)
        queue.heartbeat_at = loop.time() + self.heartbeat_secs + jitter
        self._waiting.add(queue)
        if self._sweeper is None:
            self._sweeper = loop.call_later(self._sweep_secs, self._sweep)

    def detach(self, queue: EventQueue, waiter: Waiter) -> None:
        """The poll of `waiter` is over (woken, or its client gone)."""
        if queue.waiter is waiter:
            queue.waiter = None
            self._waiting.discard(queue)
        queue.last_contact = self.clock()

    def _sweep(self) -> None:
        """Heartbeats for the polls that waited their time: one timer for every waiting poll,
        instead of a loop timer created and cancelled per poll."""
        self._sweeper = None
        loop = asyncio.get_running_loop()
        now = loop.time()
        for queue in [q for q in self._waiting if q.heartbeat_at <= now]:
            self._waiting.discard(queue)
            if queue.waiter is not None and not queue.waiter.done():
                queue.push({"type": "heartbeat"})  # wakes the waiter
        if self._waiting:
            self._sweeper = loop.call_later(self._sweep_secs, self._sweep)

    # -- lifecycle --------------------------------------------------------------------
    def collect_garbage(self) -> int:
        """Drop queues idle past their timeout; return how many were dropped."""
        now = self.clock()
        idle = [queue for queue in self.queues.values() if queue.is_idle(now)]
        for queue in idle:
            self.delete(queue)
        return len(idle)

    async def run_gc(self, interval_secs: float) -> None:
        while True:
            await asyncio.sleep(interval_secs)
            dropped = self.collect_garbage()
            if dropped:
                log.info("dropped %d idle event queues", dropped)

    def shutdown(self) -> None:
        """Finish every waiting long-poll at once (server shutdown)."""
        self._closing = True
        for queue in self.queues.values():
            queue.wake()


class NullBroker(EventBroker):
    """A broker with no queues, for CLI processes: their events reach no live client."""

    def __init__(self) -> None:
        super().__init__(clock=lambda: 0.0)

    def publish(self, event: Event | JsonDict, audience: Audience) -> None:
        return None


class RecordingBroker(NullBroker):
    """A broker for CLI processes: it keeps what it would deliver, for the change log.

    `records` holds ("publish", payload, audience) and ("drop_queues", {"user_id": id}, {})
    entries in publish order; audiences are {"users": [...]}, {"extras": {id: {...}}} or
    {"public_receivers": [...], "extra": {...}} (see `publish_to_public_watchers`).
    """

    def __init__(self) -> None:
        super().__init__()
        self.records: list[tuple[str, JsonDict, JsonDict]] = []

    def publish(self, event: Event | JsonDict, audience: Audience) -> None:
        payload = event if isinstance(event, dict) else msgspec.to_builtins(event)
        if isinstance(audience, Mapping):
            shape: JsonDict = {"extras": {str(uid): extra for uid, extra in audience.items()}}
        else:
            shape = {"users": list(audience)}
        self.records.append(("publish", msgspec.to_builtins(payload), shape))

    def drop_user_queues(self, user_id: int) -> None:
        self.records.append(("drop_queues", {"user_id": user_id}, {}))

    def publish_to_public_watchers(
        self, event: JsonDict, receivers: set[int], extra: JsonDict
    ) -> None:
        shape: JsonDict = {
            "public_receivers": sorted(receivers),
            "extra": msgspec.to_builtins(extra),
        }
        self.records.append(("publish", msgspec.to_builtins(event), shape))

    def take(self) -> list[tuple[str, JsonDict, JsonDict]]:
        """Return the records so far and forget them."""
        records, self.records = self.records, []
        return records


def replay(broker: EventBroker, kind: str, payload: JsonDict, audience: JsonDict) -> None:
    """Deliver one RecordingBroker record through `broker` (the server's)."""
    if kind == "drop_queues":
        broker.drop_user_queues(int(payload["user_id"]))  # type: ignore[call-overload]
        return
    if "public_receivers" in audience:
        receivers = {int(uid) for uid in audience["public_receivers"]}  # type: ignore[attr-defined]
        extra = audience.get("extra")
        broker.publish_to_public_watchers(
            payload, receivers, extra if isinstance(extra, dict) else {}
        )
        return
    extras = audience.get("extras")
    if isinstance(extras, dict):
        broker.publish(payload, {int(uid): extra for uid, extra in extras.items()})
    else:
        users = audience.get("users")
        broker.publish(payload, [int(uid) for uid in users] if isinstance(users, list) else [])


async def cancel_task(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task

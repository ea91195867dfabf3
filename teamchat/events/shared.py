"""SharedBroker: the broker of one of several server processes on one database.

`publish` and `drop_user_queues` act on this process's queues as EventBroker's do, and also
keep a record of the call. The store's bus (`BaseDatabase.bus()`; on PostgreSQL, `pg/bus.py`)
takes the records left by each commit's `after_commit` hooks right after they ran, as one
text, and announces it to the other processes in commit order; records left outside any
commit (typing notifications) are announced on their own. Each process replays what the
others announce into its own queues, in the order it arrives.

When announcements may have been lost (the connection that hears them dropped), every local
queue is dropped: their clients get BAD_EVENT_QUEUE_ID at their next poll and register again
(what every Zulip client does after a server restart), rather than silently missing events.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import msgspec

from teamchat.events.broker import Audience, EventBroker, replay
from teamchat.events.types import Event, JsonDict

log = logging.getLogger(__name__)

# A record: ["publish", payload, {"users": [ids]}] or ["publish", payload, {"groups":
# [[extra, [ids]], ...]}] (recipients sharing one extras dict share one entry), or
# ["drop_queues", {"user_id": id}, {}], or ["public", payload, {"receivers": [ids], "extra":
# {...}}] (each process's own all_public_streams watchers not among the receivers).
Record = tuple[str, Any, JsonDict]
_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(list[tuple[str, Any, dict[str, Any]]]).decode


class Bus(Protocol):
    """What SharedBroker needs of the store's bus (`store/conn.ProcessBus`)."""

    def attach(
        self,
        collect: Callable[[], str | None],
        receive: Callable[[str], None],
        lost: Callable[[], None],
    ) -> None: ...
    def send_soon(self) -> None: ...


class SharedBroker(EventBroker):
    def __init__(self, clock: Callable[[], float], bus: Bus, **options: Any) -> None:
        super().__init__(clock, **options)
        self._bus = bus
        self._records: list[Record] = []
        self._check_pending = False
        self.quiet = False  # while True, calls act on this process's queues only
        bus.attach(self.collect, self.receive, self.lost)

    # -- sending ----------------------------------------------------------------------
    def publish(self, event: Event | JsonDict, audience: Audience) -> None:
        if self.quiet:
            super().publish(event, audience)
            return
        if isinstance(audience, Mapping):
            groups: dict[int, tuple[Any, list[int]]] = {}
            for user_id, extra in audience.items():
                groups.setdefault(id(extra), (extra, []))[1].append(user_id)
            shape: JsonDict = {"groups": [[extra, ids] for extra, ids in groups.values()]}
        else:
            audience = list(audience)  # an iterator could be read only once
            shape = {"users": audience}
        super().publish(event, audience)
        self._records.append(("publish", event, shape))
        self._pending()

    def drop_user_queues(self, user_id: int) -> None:
        super().drop_user_queues(user_id)
        if not self.quiet:
            self._records.append(("drop_queues", {"user_id": user_id}, {}))
            self._pending()

    def publish_to_public_watchers(
        self, event: JsonDict, receivers: set[int], extra: JsonDict
    ) -> None:
        """Each process delivers to its own all_public_streams watchers."""
        quiet, self.quiet = self.quiet, True
        try:
            super().publish_to_public_watchers(event, receivers, extra)
        finally:
            self.quiet = quiet
        if not quiet:
            shape: JsonDict = {"receivers": sorted(receivers), "extra": extra}
            self._records.append(("public", event, shape))
            self._pending()

    def _pending(self) -> None:
        """Records left by a commit's hooks are collected by the store right after the
        hooks; what is still here on the loop's next turn was left outside a commit."""
        if not self._check_pending:
            self._check_pending = True
            asyncio.get_running_loop().call_soon(self._send_loose)

    def _send_loose(self) -> None:
        self._check_pending = False
        if self._records:
            self._bus.send_soon()

    def collect(self) -> str | None:
        """The records so far as one text (then forgotten), or None."""
        if not self._records:
            return None
        records, self._records = self._records, []
        return _encode(records).decode()

    # -- receiving --------------------------------------------------------------------
    def receive(self, text: str) -> None:
        """Replay another process's records into this process's queues, in order."""
        self.quiet = True  # not to be passed on again
        try:
            for kind, payload, shape in _decode(text):
                if kind == "drop_queues":
                    super().drop_user_queues(int(payload["user_id"]))
                elif kind == "public":
                    receivers = set(shape["receivers"])
                    super().publish_to_public_watchers(payload, receivers, shape["extra"])
                elif "groups" in shape:
                    audience: dict[int, JsonDict] = {}
                    for extra, ids in shape["groups"]:
                        audience.update(dict.fromkeys(ids, extra))
                    super().publish(payload, audience)
                else:
                    super().publish(payload, shape["users"])
        finally:
            self.quiet = False

    def lost(self) -> None:
        """Other processes' events may have been missed: drop every local queue, so that
        their clients register again and start from a fresh state."""
        queues = list(self.queues.values())
        for queue in queues:
            self.delete(queue)
        if queues:
            log.warning("dropped %d event queues: their clients will register again", len(queues))


def replay_here(broker: EventBroker, kind: str, payload: JsonDict, audience: JsonDict) -> None:
    """`replay` one RecordingBroker record into this process's queues only (every process
    reads the change log itself, so a shared broker must not pass it on)."""
    if not isinstance(broker, SharedBroker):
        replay(broker, kind, payload, audience)
        return
    broker.quiet = True
    try:
        replay(broker, kind, payload, audience)
    finally:
        broker.quiet = False

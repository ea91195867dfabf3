"""Plain long-polls answered on their connection, with no ASGI request at all.

A message to a channel of a thousand people wakes a thousand waiting polls, and each then
polls again. Through ASGI every one of those costs a task, a scope, the middlewares, a
future and two `send` calls. The HTTP protocol (cli/connection_guard.py) hands the polls
that http/event_polls.py would answer on its lean path anyway (same checks, same bytes) to
this lane instead: the answer is written to the connection straight from the queue's ready
JSON, and a poll that must wait is the queue's waiter itself (a `DirectPoll`), so waking it
is a list append. The woken polls are answered in one pass, a batch at a time (the
sender's acknowledgement is not held behind a thousand writes). Anything else goes to the
ASGI app as before.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Protocol

import msgspec

from teamchat.events.queue import EventQueue
from teamchat.http.event_polls import plain_poll
from teamchat.lib.logsafe import escape_controls
from teamchat.records import UserRow
from teamchat.runtime import Runtime

access_log = logging.getLogger("teamchat.access")
_encode = msgspec.json.Encoder().encode
# Polls answered per loop iteration: other callbacks (the send's acknowledgement) run between.
BATCH = 64

Prepared = tuple[Runtime, UserRow, EventQueue, int | None, bool]


class Connection(Protocol):
    """The HTTP connection a direct poll answers on."""

    def respond_json(self, body: bytes) -> None:
        """Write a 200 response with this JSON body; the connection then takes its next request."""


class PollLane:
    """One per server: prepares, holds and answers the direct polls of every connection."""

    def __init__(self, app_state: Any) -> None:
        self.app_state = app_state  # the app's state: its `rt` exists once the app started
        self.rt: Runtime | None = None
        self.ready: list[DirectPoll] = []
        self.scheduled = False

    def prepare(self, headers: list[tuple[bytes, bytes]], query_string: bytes) -> Prepared | None:
        """What a plain poll needs (it is one), else None: the ASGI app answers it."""
        rt = self.rt
        if rt is None:
            rt = self.rt = getattr(self.app_state, "rt", None)
            if rt is None:
                return None  # not started yet
        found = plain_poll(rt, headers, query_string)
        return None if found is None else (rt, *found)

    def start(self, conn: Connection, prepared: Prepared) -> DirectPoll | None:
        """Answer the poll now, or return the DirectPoll that will answer it."""
        rt, user, queue, last_event_id, dont_block = prepared
        started = time.perf_counter()
        events = rt.broker.begin_poll(queue, last_event_id, dont_block=dont_block)
        if events is not None:
            conn.respond_json(_body(queue, events))
            _log(started, user, longpoll=not dont_block)
            return None
        return DirectPoll(self, rt, user, queue, conn, started)

    def wake(self, poll: DirectPoll) -> None:
        self.ready.append(poll)
        if not self.scheduled:
            self.scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Answer the woken polls, a batch now and the rest on later loop iterations."""
        batch, self.ready = self.ready[:BATCH], self.ready[BATCH:]
        for poll in batch:
            poll.answer()
        if self.ready:
            asyncio.get_running_loop().call_soon(self.flush)
        else:
            self.scheduled = False


class DirectPoll:
    """A waiting poll; the queue's waiter (see events.queue.Waiter)."""

    __slots__ = ("conn", "fired", "lane", "queue", "rt", "started", "user")

    def __init__(
        self,
        lane: PollLane,
        rt: Runtime,
        user: UserRow,
        queue: EventQueue,
        conn: Connection,
        started: float,
    ) -> None:
        self.lane, self.rt, self.user, self.queue = lane, rt, user, queue
        self.conn: Connection | None = conn
        self.started = started
        self.fired = False
        rt.broker.attach(queue, self)

    def done(self) -> bool:
        return self.fired

    def set_result(self, result: None, /) -> None:
        """Woken (an event, a heartbeat, a newer poll of the queue, shutdown)."""
        if not self.fired:
            self.fired = True
            self.lane.wake(self)

    def answer(self) -> None:
        """Write the answer, unless the connection went away meanwhile."""
        conn, self.conn = self.conn, None
        if conn is None:
            return
        self.fired = True
        self.rt.broker.detach(self.queue, self)
        conn.respond_json(_body(self.queue, self.queue.wire_events()))
        _log(self.started, self.user, longpoll=True)

    def cancel(self) -> None:
        """The connection closed: the poll ends without an answer."""
        if self.conn is not None:
            self.conn = None
            self.fired = True
            self.rt.broker.detach(self.queue, self)


def _body(queue: EventQueue, events: list[bytes]) -> bytes:
    return b'{"result":"success","msg":"","events":[%s],"queue_id":%s}' % (
        b",".join(events),
        _encode(queue.queue_id),
    )


def _log(started: float, user: UserRow, *, longpoll: bool) -> None:
    """The access line the ASGI path would write (app.with_access_log)."""
    if access_log.isEnabledFor(logging.INFO):
        access_log.info(
            "%s %s %s %.1fms user=%s%s",
            "GET",
            "/api/v1/events",
            200,
            (time.perf_counter() - started) * 1000,
            escape_controls(user.delivery_email),
            " long-poll" if longpoll else "",
        )

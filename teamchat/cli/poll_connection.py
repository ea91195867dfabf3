"""The HTTP protocol's side of direct polls (http/poll_lane.py): a plain long-poll is read,
handed to the lane and answered on this connection, with no ASGI task, scope or middleware.

Only a request the ASGI path would answer the same way is taken: GET of the events path,
HTTP/1.1 keep-alive, no body, no upgrade, nothing in flight before it on the connection, and
what the lane accepts (cached credentials, a plain query: see http/event_polls.py). Everything
else is uvicorn's as before. While a direct poll waits, a stand-in `cycle` marks the
connection busy, so uvicorn queues a pipelined request behind it and a shutdown closes the
connection once the poll is answered.
"""

from __future__ import annotations

from typing import Any, ClassVar

import httptools

from teamchat.cli.connection_guard import GuardedHttpProtocol

EVENTS_PATH = b"/api/v1/events"
# The status line and headers every answer starts with, for one list of uvicorn's default
# headers (the date, once a second): [that list, the bytes].
_head: list[Any] = [None, b""]


def _status_and_headers(defaults: list[tuple[bytes, bytes]]) -> bytes:
    lines = [b"HTTP/1.1 200 OK\r\n"]
    lines.extend(b"%s: %s\r\n" % (name, value) for name, value in defaults)
    lines.append(b"content-type: application/json\r\n")
    return b"".join(lines)


class _Busy:
    """Stands in for uvicorn's RequestResponseCycle while a direct poll waits."""

    __slots__ = ("keep_alive", "response_complete")

    def __init__(self) -> None:
        self.response_complete = False
        self.keep_alive = True


class PollingHttpProtocol(GuardedHttpProtocol):
    """GuardedHttpProtocol that answers plain long-polls through `poll_lane`."""

    poll_lane: ClassVar[Any] = None
    _prepared: Any = None  # a plain poll whose headers were read
    _poll: Any = None  # the direct poll waiting on this connection
    _busy: _Busy | None = None

    def on_message_begin(self) -> None:
        # A poll answered at once armed the keep-alive timer; a pipelined request follows.
        self._unset_keepalive_if_required()
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        prepared = self._plain_poll()
        if prepared is None:
            super().on_headers_complete()
            return
        self._in_headers = False
        self._header_bytes = 0
        self._prepared = prepared
        self._busy = _Busy()
        self.cycle = self._busy  # type: ignore[assignment]

    def on_message_complete(self) -> None:
        if self._prepared is None:
            super().on_message_complete()
            return
        self._cancel()
        prepared, self._prepared = self._prepared, None
        self._poll = self.poll_lane.start(self, prepared)

    def respond_json(self, body: bytes) -> None:
        """Write the poll's answer as uvicorn would, then take the next request."""
        self._poll = None
        busy = self._busy
        if busy is None or busy.response_complete:
            return
        busy.response_complete = True
        if self.transport.is_closing():
            return
        defaults = self.server_state.default_headers
        if defaults is not _head[0]:  # uvicorn sets a new list when the date changes
            _head[:] = [defaults, _status_and_headers(defaults)]
        close = b"" if busy.keep_alive else b"connection: close\r\n"
        length = b"content-length: %d\r\n%s\r\n" % (len(body), close)
        self.transport.write(b"".join((_head[1], length, body)))
        if not busy.keep_alive:
            self.transport.close()
            return
        self.on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._poll is not None:
            self._poll.cancel()
            self._poll = None
        if self.cycle is self._busy:  # type: ignore[comparison-overlap]
            self.cycle = None  # type: ignore[assignment]
        super().connection_lost(exc)

    def shutdown(self) -> None:
        super().shutdown()  # a waiting poll's connection closes once it is answered
        if self._poll is not None:
            self._poll.answer()

    def _plain_poll(self) -> Any:
        """The lane's preparation of this request if it is a plain poll, else None."""
        if (
            self.poll_lane is None
            or not self.url.startswith(EVENTS_PATH)
            or self._poll is not None
            or (self.cycle is not None and not self.cycle.response_complete)
            or self.pipeline
            or self.expect_100_continue
            or self.root_path
            or self.limit_concurrency is not None
            or self.parser.get_method() != b"GET"
            or self.parser.get_http_version() != "1.1"
            or not self.parser.should_keep_alive()
            or self.parser.should_upgrade()
        ):
            return None
        url = httptools.parse_url(self.url)
        if url.path != EVENTS_PATH:
            return None
        return self.poll_lane.prepare(self.headers, url.query or b"")

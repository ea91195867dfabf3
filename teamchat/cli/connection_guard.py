"""uvicorn's HTTP protocol with deadlines and caps for clients that are slow on purpose.

uvicorn closes idle keep-alive connections, but a client that sends one header line every
few seconds, or starts a body and stops, holds its connection (and a file descriptor) for as
long as it likes. This protocol adds, per connection:

- a deadline for the request line and all headers (`header_timeout_secs`, counted from the
  first byte of the request, or from the connection for the first request): 408 and close;
- an idle limit while the body arrives (`body_timeout_secs` without a byte): close, and the
  request being read ends as a client disconnect;
- at most `max_header_bytes` of request line and headers: 431 and close;
and, for the process, at most `max_connections` open connections and `max_connections_per_ip`
from one address (the trusted proxies in FORWARDED_ALLOW_IPS are exempt: behind a proxy,
every client arrives from it). A connection over a cap is answered 503 and closed at once.
Each kind of refusal is logged at most once a minute, with a count.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import resource
from collections import Counter
from typing import Any, ClassVar

import msgspec
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from teamchat.lib.log_throttle import ThrottledLog

log = logging.getLogger("teamchat.connections")

# Descriptors kept free for the database, its WAL, uploads, backups and the listening socket.
RESERVED_FDS = 128


class Limits(msgspec.Struct, frozen=True, kw_only=True):
    header_timeout_secs: float
    body_timeout_secs: float
    max_connections: int
    max_connections_per_ip: int
    max_header_bytes: int = 64 * 1024


class _Trusted:
    """The addresses in uvicorn's FORWARDED_ALLOW_IPS ("*", addresses, networks)."""

    def __init__(self, spec: str | list[str]) -> None:
        items = spec.split(",") if isinstance(spec, str) else spec
        names = [item.strip() for item in items if item.strip()]
        self.everyone = "*" in names
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        self.literals: set[str] = set()
        for name in names:
            try:
                self.networks.append(ipaddress.ip_network(name, strict=False))
            except ValueError:
                self.literals.add(name)

    def __contains__(self, host: str) -> bool:
        if self.everyone or host in self.literals:
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.networks)


def _raw_response(status: str, body: bytes = b"", extra: str = "") -> bytes:
    head = (
        f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n{extra}\r\n"
    )
    return head.encode("ascii") + body


_TOO_MANY = _raw_response(
    "503 Service Unavailable",
    msgspec.json.encode(
        {
            "result": "error",
            "msg": "Too many connections",
            "code": "RATE_LIMIT_HIT",
            "retry-after": 5,
        }
    ),
    "retry-after: 5\r\n",
)
_HEADER_TIMEOUT = _raw_response("408 Request Timeout")
_HEADERS_TOO_LARGE = _raw_response("431 Request Header Fields Too Large")


def usable_connection_cap(wanted: int) -> int:
    """`wanted`, lowered to what the descriptor limit allows (raising the soft limit first)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = wanted + RESERVED_FDS if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, target), hard))
            soft = max(soft, target)
        except (ValueError, OSError):
            pass
    cap = min(wanted, max(soft - RESERVED_FDS, 16))
    if cap < wanted:
        log.warning(
            "at most %d connections: the open-file limit is %d (raise it with ulimit -n)",
            cap,
            soft,
        )
    return cap


class GuardedHttpProtocol(HttpToolsProtocol):
    """Configured by `guarded_protocol`; one instance per connection."""

    limits: ClassVar[Limits]
    trusted: ClassVar[_Trusted]
    per_ip: ClassVar[Counter[str]]
    refusals: ClassVar[dict[str, ThrottledLog]]

    _timer: asyncio.TimerHandle | None = None
    _timer_at = 0.0
    _due: float | None = None
    _on_due: Any = None
    _ip = ""
    _counted = False
    _header_bytes = 0
    _tail = b""
    _in_headers = False

    # -- connection -----------------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._ip = self.client[0] if self.client else ""
        self.per_ip[self._ip] += 1
        self._counted = True
        if len(self.connections) > self.limits.max_connections:
            self._refuse("connections", "refused connections: %d open, the cap is %d",
                         len(self.connections), self.limits.max_connections)  # fmt: skip
            return
        if (
            self.per_ip[self._ip] > self.limits.max_connections_per_ip > 0
            and self._ip not in self.trusted
        ):
            self._refuse("per_ip", "refused connections from %s: %d open, %d allowed per address",
                         self._ip, self.per_ip[self._ip],
                         self.limits.max_connections_per_ip)  # fmt: skip
            return
        self._start_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._counted:
            self._counted = False
            self.per_ip[self._ip] -= 1
            if self.per_ip[self._ip] <= 0:
                del self.per_ip[self._ip]
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        idle = self.cycle is None or self.cycle.response_complete
        if idle and self._due is None and not self._in_headers:
            # Bytes between requests (even blank lines, which start no message): the next
            # request's deadline runs from here.
            self._start_headers()
        if self._in_headers:
            # Only the bytes up to the blank line that ends the headers count: a client may
            # send its headers and the start of a large body in one packet.
            seen = self._tail + data
            end = seen.find(b"\r\n\r\n")
            self._header_bytes += len(data) if end < 0 else max(0, end + 4 - len(self._tail))
            self._tail = seen[-3:]
            if self._header_bytes > self.limits.max_header_bytes:
                self._close_with("headers_too_large", _HEADERS_TOO_LARGE,
                                 "closed connections whose headers passed %d bytes",
                                 self.limits.max_header_bytes)  # fmt: skip
                return
        super().data_received(data)

    # -- parser callbacks -----------------------------------------------------------------
    def on_message_begin(self) -> None:
        super().on_message_begin()
        if not self._in_headers:
            self._start_headers()

    def on_headers_complete(self) -> None:
        self._in_headers = False
        self._header_bytes = 0
        self._arm(self.limits.body_timeout_secs, self._body_timed_out)
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        self._arm(self.limits.body_timeout_secs, self._body_timed_out)
        super().on_body(body)

    def on_message_complete(self) -> None:
        self._cancel()
        super().on_message_complete()

    # -- deadlines ------------------------------------------------------------------------
    def _start_headers(self) -> None:
        self._in_headers = True
        self._header_bytes = 0
        self._tail = b""
        self._arm(self.limits.header_timeout_secs, self._headers_timed_out)

    # One deadline at a time (`_due`, loop time). Requests arm and clear deadlines many times
    # a second on a busy connection; a loop timer is created only when none is pending early
    # enough, and one that fires before the deadline (it moved) re-arms itself for it.
    def _arm(self, delay: float, callback: Any) -> None:
        due = self.loop.time() + delay
        self._due, self._on_due = due, callback
        if self._timer is None or self._timer_at > due:
            if self._timer is not None:
                self._timer.cancel()
            self._timer_at = due
            self._timer = self.loop.call_at(due, self._tick)

    def _cancel(self) -> None:
        self._due = None  # a pending timer finds nothing due and stops

    def _tick(self) -> None:
        self._timer = None
        due = self._due
        if due is None:
            return
        if self.loop.time() < due:
            self._timer_at = due
            self._timer = self.loop.call_at(due, self._tick)
            return
        callback, self._due = self._on_due, None
        callback()

    def _headers_timed_out(self) -> None:
        if self._in_headers and not self.transport.is_closing():
            self._close_with("header_timeout", _HEADER_TIMEOUT,
                             "closed connections that did not send their headers within %g s",
                             self.limits.header_timeout_secs)  # fmt: skip

    def _body_timed_out(self) -> None:
        if self.transport.is_closing():
            return
        if self.flow.read_paused:  # we stopped reading (the app is behind), not the client
            self._arm(self.limits.body_timeout_secs, self._body_timed_out)
            return
        self._note("body_timeout", "closed connections that sent no body bytes for %g s",
                   self.limits.body_timeout_secs)  # fmt: skip
        self.transport.close()  # the request reading the body sees a client disconnect

    def _refuse(self, kind: str, message: str, *args: object) -> None:
        self._note(kind, message, *args)
        self.transport.write(_TOO_MANY)
        self.transport.close()

    def _close_with(self, kind: str, response: bytes, message: str, *args: object) -> None:
        self._cancel()
        self._in_headers = False
        self._note(kind, message, *args)
        self.transport.write(response)
        self.transport.close()

    def _note(self, kind: str, message: str, *args: object) -> None:
        throttled = self.refusals.get(kind)
        if throttled is None:
            throttled = self.refusals[kind] = ThrottledLog(log)
        throttled.warning(message, *args)


def guarded_protocol(
    limits: Limits,
    forwarded_allow_ips: str | list[str],
    base: type[GuardedHttpProtocol] = GuardedHttpProtocol,
    **attributes: Any,
) -> type[Any]:
    """A protocol class for uvicorn.Config(http=...) enforcing `limits` (one per server):
    `base` (or a subclass of it) with these class attributes."""
    return type(
        "TeamchatHttpProtocol",
        (base,),
        {
            "limits": limits,
            "trusted": _Trusted(forwarded_allow_ips),
            "per_ip": Counter(),
            "refusals": {},
            **attributes,
        },
    )

"""`OutboundClient`: HTTP/1.1 requests to other hosts, on the event loop (asyncio streams and
h11), with the address guard on every hop, one deadline per request, a size bound on answers,
and caps on requests in flight (in all, and per sender). See the package docstring.
"""

from __future__ import annotations

import asyncio
import functools
import socket
import ssl
import urllib.parse
from collections.abc import AsyncIterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import msgspec

from teamchat.lib.lazy import lazy_module
from teamchat.lib.outbound.guard import OutboundPolicy, parse_ip

if TYPE_CHECKING:
    import h11
else:  # the HTTP/1.1 parser: imported by the first outbound request (lib/lazy.py)
    h11 = lazy_module("h11")

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
READ_CHUNK_BYTES = 64 * 1024
DNS_THREADS = 4
USER_AGENT = "teamchat"


class OutboundError(Exception):
    """A request that did not get an answer; `str(error)` is short and safe to show a person
    (it never names the address a host resolved to)."""


class TargetNotAllowedError(OutboundError):
    """The URL, or a redirect, leads to an address the policy refuses (or is not http(s))."""


class OutboundTimeoutError(OutboundError):
    """The request did not finish within its deadline."""


class OutboundConnectError(OutboundError):
    """The host could not be resolved or connected to."""


class OutboundProtocolError(OutboundError):
    """The answer was not valid HTTP/1.x, or redirected too often."""


class OutboundBusyError(OutboundError):
    """The sender already has too many requests in flight or waiting."""


class OutboundResponse(msgspec.Struct, frozen=True, kw_only=True):
    """An answer: `headers` have lower-case names; `body` is cut at the request's max_bytes
    (`truncated` then says so); `url` is the last hop's URL."""

    status: int
    headers: dict[str, str]
    body: bytes
    url: str
    truncated: bool


class _Target(msgspec.Struct, frozen=True, kw_only=True):
    host: str
    port: int
    https: bool
    path: str  # path and query, as sent on the request line
    host_header: str


def _target(url: str) -> _Target:
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:
        raise TargetNotAllowedError("the URL is not valid") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TargetNotAllowedError("only http and https URLs can be requested")
    https = parts.scheme == "https"
    port = port or (443 if https else 80)
    try:  # international names travel as their ASCII (IDNA) form
        host = parts.hostname if ":" in parts.hostname else parts.hostname.encode("idna").decode()
    except UnicodeError:
        raise TargetNotAllowedError("the URL's host name is not valid") from None
    shown = f"[{host}]" if ":" in host else host
    default = port == (443 if https else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    # Spaces, control characters and non-ASCII are escaped (no header can be injected).
    path = urllib.parse.quote(path, safe="/?&=%:@!$'()*+,;~#[]")
    return _Target(
        host=host, port=port, https=https, path=path,
        host_header=shown if default else f"{shown}:{port}",
    )  # fmt: skip


class _Slots:
    """Per-sender caps: at most `cap` requests in flight per key, `max_waiting` queued."""

    def __init__(self, cap: int, max_waiting: int) -> None:
        self.cap, self.max_waiting = cap, max_waiting
        self._semaphores: dict[str, asyncio.Semaphore] = {}
        self._users: dict[str, int] = {}

    @asynccontextmanager
    async def hold(self, keys: Sequence[str]) -> AsyncIterator[None]:
        keys = sorted(set(keys))  # one order everywhere: no deadlock between two keys
        if any(self._users.get(k, 0) >= self.cap + self.max_waiting for k in keys):
            raise OutboundBusyError("too many requests of this sender are in flight")
        for key in keys:
            self._users[key] = self._users.get(key, 0) + 1
            self._semaphores.setdefault(key, asyncio.Semaphore(self.cap))
        held: list[asyncio.Semaphore] = []
        try:
            for key in keys:
                await self._semaphores[key].acquire()
                held.append(self._semaphores[key])
            yield
        finally:
            for semaphore in held:
                semaphore.release()
            for key in keys:
                self._users[key] -= 1
                if not self._users[key]:
                    del self._users[key], self._semaphores[key]


class OutboundClient:
    """The server's one HTTP client. Create one per process (the Runtime does); `close` it."""

    def __init__(
        self, policy: OutboundPolicy, *, max_connections: int = 32, max_per_sender: int = 2,
        max_waiting_per_sender: int = 50,
    ) -> None:  # fmt: skip
        self.policy = policy
        self._connections = asyncio.Semaphore(max_connections)
        self._slots = _Slots(max_per_sender, max_waiting_per_sender)
        # Name resolution blocks; it gets threads of its own, never the default executor's.
        self._dns = ThreadPoolExecutor(DNS_THREADS, thread_name_prefix="outbound-dns")

    @functools.cached_property
    def _tls(self) -> ssl.SSLContext:
        # Made by the first https request: loading the system's CA certificates costs tens
        # of milliseconds and a few MiB, which a server that never calls out need not pay.
        return ssl.create_default_context()

    def close(self) -> None:
        self._dns.shutdown(wait=False, cancel_futures=True)

    async def fetch(
        self, url: str, *, method: str = "GET", body: bytes | None = None,
        headers: Mapping[str, str] | None = None, max_bytes: int, deadline_secs: float,
        purpose: str, senders: Sequence[str] = (), max_redirects: int = 3,
        check_target: bool = True,
    ) -> OutboundResponse:  # fmt: skip
        """Request `url` and return the answer (any status), following up to `max_redirects`
        redirects (301/302/303 become a GET without a body, as browsers do).

        Args:
            max_bytes: read at most this much of the body (`truncated` says when cut).
            deadline_secs: the whole request, every hop included, ends by then.
            purpose: what the request is for, in the User-Agent ("teamchat-webhook").
            senders: keys such as "bot:12", "user:7": each has its cap on requests in flight.
            check_target: False only for a URL the operator configured (the push service):
                every other URL is checked against the policy, on every hop.
        Raises:
            OutboundError: one of its subclasses, with a message safe to show a person.
        """
        async with self._slots.hold(senders), self._connections:
            try:
                async with asyncio.timeout(deadline_secs):
                    return await self._follow(
                        url, method, body, dict(headers or {}), max_bytes, purpose,
                        max_redirects, check_target,
                    )  # fmt: skip
            except TimeoutError:
                raise OutboundTimeoutError(
                    f"no complete answer within {deadline_secs:g} seconds"
                ) from None

    async def _follow(
        self, url: str, method: str, body: bytes | None, headers: dict[str, str],
        max_bytes: int, purpose: str, max_redirects: int, check_target: bool,
    ) -> OutboundResponse:  # fmt: skip
        for _ in range(max_redirects + 1):
            target = _target(url)
            answer = await self._one(target, method, body, headers, max_bytes, purpose,
                                     check_target)  # fmt: skip
            location = answer.headers.get("location")
            if answer.status not in REDIRECT_STATUSES or location is None or not max_redirects:
                return OutboundResponse(
                    status=answer.status, headers=answer.headers, body=answer.body, url=url,
                    truncated=answer.truncated,
                )  # fmt: skip
            next_url = urllib.parse.urljoin(url, location)
            if _target(next_url).host != target.host:
                headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
            if answer.status in (301, 302, 303) and method != "HEAD":
                method, body = "GET", None
            url = next_url
        raise OutboundProtocolError("too many redirects")

    async def _addresses(self, target: _Target, check_target: bool) -> list[str]:
        """Every address of the host, each allowed by the policy (else refused)."""
        literal = parse_ip(target.host)
        if literal is not None:
            addresses = [str(literal)]
        else:
            loop = asyncio.get_running_loop()
            try:
                infos = await loop.run_in_executor(
                    self._dns, socket.getaddrinfo, target.host, target.port, 0,
                    socket.SOCK_STREAM,
                )  # fmt: skip
            except (OSError, UnicodeError):
                raise OutboundConnectError(f"cannot resolve {target.host}") from None
            addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        if not addresses:
            raise OutboundConnectError(f"cannot resolve {target.host}")
        if check_target and not all(map(self.policy.allows, addresses)):
            raise TargetNotAllowedError(
                f"{target.host} is not on the public internet; requests to it are not allowed"
            )
        return addresses

    async def _connect(
        self, target: _Target, addresses: list[str]
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        for address in addresses:
            try:
                # The checked address itself: the name is not looked up again.
                return await asyncio.open_connection(
                    address, target.port,
                    ssl=self._tls if target.https else None,
                    server_hostname=target.host if target.https else None,
                )  # fmt: skip
            except (OSError, ssl.SSLError):
                continue
        raise OutboundConnectError(f"cannot connect to {target.host}")

    async def _one(
        self, target: _Target, method: str, body: bytes | None, headers: dict[str, str],
        max_bytes: int, purpose: str, check_target: bool,
    ) -> OutboundResponse:  # fmt: skip
        addresses = await self._addresses(target, check_target)
        reader, writer = await self._connect(target, addresses)
        try:
            return await _exchange(reader, writer, target, method, body, headers, max_bytes,
                                   purpose)  # fmt: skip
        except (OSError, ssl.SSLError, h11.ProtocolError):
            raise OutboundProtocolError(f"{target.host} did not answer with HTTP") from None
        finally:
            writer.close()


def _request_headers(
    target: _Target, method: str, body: bytes | None, headers: dict[str, str], purpose: str
) -> list[tuple[str, str]]:
    fixed = {"host", "connection", "content-length", "transfer-encoding"}
    sent = [("Host", target.host_header), ("Connection", "close")]
    if "user-agent" not in {k.lower() for k in headers}:
        sent.append(("User-Agent", f"{USER_AGENT}-{purpose}"))
    if body is not None or method in ("POST", "PUT", "PATCH"):
        sent.append(("Content-Length", str(len(body or b""))))
    sent += [(k, v) for k, v in headers.items() if k.lower() not in fixed]
    return sent


async def _exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, target: _Target, method: str,
    body: bytes | None, headers: dict[str, str], max_bytes: int, purpose: str,
) -> OutboundResponse:  # fmt: skip
    """Send one request on a fresh connection and read its answer (up to `max_bytes`)."""
    conn = h11.Connection(our_role=h11.CLIENT)
    request = h11.Request(
        method=method, target=target.path,
        headers=_request_headers(target, method, body, headers, purpose),
    )  # fmt: skip
    data = conn.send(request) or b""
    if body:
        data += conn.send(h11.Data(data=body)) or b""
    data += conn.send(h11.EndOfMessage()) or b""
    writer.write(data)
    await writer.drain()
    status, answer_headers, chunks, size = 0, {}, [], 0
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            conn.receive_data(await reader.read(READ_CHUNK_BYTES))
        elif isinstance(event, h11.Response):
            status = event.status_code
            answer_headers = {k.decode().lower(): v.decode("latin-1") for k, v in event.headers}
        elif isinstance(event, h11.Data):
            chunks.append(bytes(event.data))
            size += len(event.data)
            if size > max_bytes:
                break
        elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
            break
    content = b"".join(chunks)
    return OutboundResponse(
        status=status, headers=answer_headers, body=content[:max_bytes], url="",
        truncated=size > max_bytes,
    )  # fmt: skip

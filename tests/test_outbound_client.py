"""The outbound client against local listeners: HTTP framing, redirects, size bound,
deadline and the per-sender queue bound."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from teamchat.lib.outbound import (
    OutboundBusyError,
    OutboundClient,
    OutboundPolicy,
    OutboundProtocolError,
    OutboundTimeoutError,
    TargetNotAllowedError,
)
from tests.support.listeners import Trickle


class _Site(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, bytes]] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                site.seen.append((self.command, self.path, body))
                if self.path.startswith("/status/"):
                    code = int(self.path.split("/")[2])
                    self.send_response(code)
                    self.send_header("Location", "/echo")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif self.path == "/loop":
                    self.send_response(302)
                    self.send_header("Location", "/loop")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif self.path == "/chunked":
                    self.send_response(200)
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for part in (b"hello ", b"chunked ", b"world"):
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                    self.wfile.write(b"0\r\n\r\n")
                else:
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body) + 5))
                    self.end_headers()
                    self.wfile.write(b"echo:" + body)

            do_GET = do_POST = _answer

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture
def site() -> Iterator[_Site]:
    running = _Site()
    threading.Thread(target=running.serve_forever, daemon=True).start()
    yield running
    running.shutdown()


def _client(**kwargs: int) -> OutboundClient:
    return OutboundClient(OutboundPolicy(allow_private=True), **kwargs)


async def test_bodies_chunked_or_not_and_the_size_bound(site: _Site) -> None:
    client = _client()
    answer = await client.fetch(
        f"{site.url}/chunked", max_bytes=100, deadline_secs=5, purpose="test"
    )
    assert (answer.status, answer.body, answer.truncated) == (200, b"hello chunked world", False)
    cut = await client.fetch(f"{site.url}/chunked", max_bytes=8, deadline_secs=5, purpose="test")
    assert (cut.body, cut.truncated) == (b"hello ch", True)
    sent = await client.fetch(
        f"{site.url}/echo", method="POST", body=b"payload", max_bytes=100, deadline_secs=5,
        purpose="test",
    )  # fmt: skip
    assert sent.body == b"echo:payload"
    client.close()


async def test_redirects(site: _Site) -> None:
    client = _client()
    kept = await client.fetch(
        f"{site.url}/status/307", method="POST", body=b"x", max_bytes=100, deadline_secs=5,
        purpose="test",
    )  # fmt: skip
    assert kept.url == f"{site.url}/echo" and site.seen[-1] == ("POST", "/echo", b"x")
    await client.fetch(
        f"{site.url}/status/303", method="POST", body=b"x", max_bytes=100, deadline_secs=5,
        purpose="test",
    )  # fmt: skip
    assert site.seen[-1] == ("GET", "/echo", b"")
    with pytest.raises(OutboundProtocolError):
        await client.fetch(f"{site.url}/loop", max_bytes=100, deadline_secs=5, purpose="test")
    unfollowed = await client.fetch(
        f"{site.url}/status/302", max_bytes=100, deadline_secs=5, purpose="test", max_redirects=0
    )
    assert unfollowed.status == 302
    client.close()


async def test_refusals_need_no_connection(site: _Site) -> None:
    guarded = OutboundClient(OutboundPolicy())
    for url in (f"{site.url}/echo", "ftp://example.com/", "http:///x", "http://[::1]:1/"):
        with pytest.raises(TargetNotAllowedError):
            await guarded.fetch(url, max_bytes=10, deadline_secs=5, purpose="test")
    assert site.seen == []
    guarded.close()


async def test_the_deadline_covers_the_whole_request() -> None:
    client = _client()
    with Trickle(interval_secs=0.2, total_secs=30) as trickle:
        started = time.monotonic()
        with pytest.raises(OutboundTimeoutError, match=r"within 1\.5 seconds"):
            await client.fetch(trickle.url, max_bytes=10**6, deadline_secs=1.5, purpose="test")
        assert time.monotonic() - started < 2.0
    client.close()


async def test_a_sender_with_too_many_requests_waiting_is_refused() -> None:
    client = _client(max_per_sender=1, max_waiting_per_sender=1)
    with Trickle(interval_secs=0.2, total_secs=30) as trickle:

        async def one() -> None:
            await client.fetch(
                trickle.url, max_bytes=10, deadline_secs=2, purpose="test", senders=["bot:1"]
            )

        first, second = asyncio.create_task(one()), asyncio.create_task(one())
        await asyncio.sleep(0.3)
        with pytest.raises(OutboundBusyError):
            await one()
        # Another sender is not affected.
        other = await client.fetch(
            trickle.url, max_bytes=1, deadline_secs=2, purpose="test", senders=["bot:2"]
        )
        assert other.truncated
        await asyncio.gather(first, second, return_exceptions=True)
        assert trickle.most_open <= 2
    client.close()

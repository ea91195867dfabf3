"""Slow and abandoned connections: deadlines for headers and bodies, caps on connections."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from tests.support.server import ServerProcess

LIMITS = {
    "TEAMCHAT_HEADER_TIMEOUT_SECS": "1.5",
    "TEAMCHAT_BODY_TIMEOUT_SECS": "1.5",
    "TEAMCHAT_MAX_CONNECTIONS_PER_IP": "40",
}
# Connections from another loopback address than the test's own requests (127.0.0.1, a
# trusted proxy address by default): the per-address cap applies to them.
SLOW_CLIENT = "127.0.0.2"


@pytest.fixture
def guarded(start_server: Callable[..., ServerProcess]) -> ServerProcess:
    return start_server(LIMITS)


def connect(server: ServerProcess, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(10)
    sock.connect(("127.0.0.1", server.port))
    return sock


def read_until_closed(sock: socket.socket, budget_secs: float) -> tuple[bytes, float]:
    """Everything the server sends until it closes, and how long that took."""
    started = time.monotonic()
    sock.settimeout(budget_secs)
    received = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        received += chunk
    return received, time.monotonic() - started


def trickle_headers(sock: socket.socket, seconds: float) -> bool:
    """Send a header line every 0.3 s for `seconds`; False once the server has closed."""
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
    deadline = time.monotonic() + seconds
    index = 0
    while time.monotonic() < deadline:
        try:
            sock.sendall(f"X-Slow-{index}: yes\r\n".encode())
        except (BrokenPipeError, ConnectionResetError):
            return False
        index += 1
        time.sleep(0.3)
    return True


def open_fds(server: ServerProcess) -> int:
    assert server.process is not None
    return len(os.listdir(f"/proc/{server.process.pid}/fd"))


@pytest.fixture
def sockets() -> Iterator[list[socket.socket]]:
    opened: list[socket.socket] = []
    yield opened
    for sock in opened:
        sock.close()


def test_headers_that_never_end_are_cut_off(guarded: ServerProcess) -> None:
    with connect(guarded) as sock:
        started = time.monotonic()
        assert trickle_headers(sock, 6.0) is False  # a header line every 0.3 s: closed anyway
        assert time.monotonic() - started < 4.0
    # The same without sending anything at all after connecting.
    with connect(guarded) as idle:
        received, waited = read_until_closed(idle, 10)
    assert received.startswith(b"HTTP/1.1 408 "), received
    assert 1.0 < waited < 5.0


def test_blank_lines_between_requests_do_not_keep_a_connection(guarded: ServerProcess) -> None:
    with connect(guarded) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        started = time.monotonic()
        closed = False
        while time.monotonic() - started < 6:
            try:
                sock.sendall(b"\r\n")  # no request starts; uvicorn's keep-alive timer stops
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            time.sleep(0.3)
    assert closed and time.monotonic() - started < 4.0


def test_a_body_that_stops_is_cut_off_with_one_log_line(guarded: ServerProcess) -> None:
    before = guarded.log()
    with connect(guarded) as sock:
        sock.sendall(
            b"POST /api/v1/fetch_api_key HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n"
            b"username=a"
        )
        received, waited = read_until_closed(sock, 10)
    assert received == b""
    assert 1.0 < waited < 5.0
    time.sleep(0.3)
    new = guarded.log()[len(before) :]
    assert "Traceback" not in new and "Internal server error" not in new, new
    lines = [line for line in new.splitlines() if "fetch_api_key" in line]
    assert len(lines) == 1 and " 499 " in lines[0], new


def test_an_abandoned_body_is_one_log_line_not_a_500(guarded: ServerProcess) -> None:
    before = guarded.log()
    for _ in range(5):
        with connect(guarded) as sock:
            sock.sendall(
                b"POST /api/v1/fetch_api_key HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 5000\r\n\r\n"
                b"username=a&password="
            )
            time.sleep(0.1)
    time.sleep(0.5)
    new = guarded.log()[len(before) :]
    assert "Traceback" not in new and " 500 " not in new, new
    # Only these requests' lines: one logged by an earlier test may land after `before`.
    lines = [line for line in new.splitlines() if "fetch_api_key" in line]
    assert len(lines) == 5 and all(" 499 " in line for line in lines), new


def test_many_slow_connections_do_not_stop_other_clients(
    guarded: ServerProcess, sockets: list[socket.socket]
) -> None:
    baseline = open_fds(guarded)
    refused = 0
    for _ in range(300):
        sock = connect(guarded, SLOW_CLIENT)
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        sockets.append(sock)
    time.sleep(0.3)
    # The per-address cap answered most of them at once and closed them.
    for sock in sockets:
        sock.settimeout(0.01)
        try:
            if sock.recv(100).startswith(b"HTTP/1.1 503"):
                refused += 1
        except OSError:
            pass
    assert refused >= 300 - 40
    assert open_fds(guarded) < baseline + 60
    answer = httpx.get(f"{guarded.url}/health", timeout=5)
    assert answer.status_code == 200
    assert "refused connections from 127.0.0.2" in guarded.log()
    assert guarded.log().count("refused connections from 127.0.0.2") == 1
    # After the header deadline, the ones that were let in are gone too.
    time.sleep(2.5)
    assert open_fds(guarded) <= baseline + 5


def test_headers_larger_than_the_cap_are_refused(guarded: ServerProcess) -> None:
    with connect(guarded) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        try:
            for _ in range(100):
                sock.sendall(b"X-Big: " + b"a" * 4000 + b"\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        received, _ = read_until_closed(sock, 5)
    assert received == b"" or received.startswith(b"HTTP/1.1 431 "), received[:200]

"""Plain long-polls answered on their connection (http/poll_lane.py): the same bytes as the
framework's paths, for queues that each see their own copy of an event, and the connection
keeps working (waits, pipelining, a newer poll, a client that leaves)."""

from __future__ import annotations

import base64
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.support.api import Api, JsonDict, assert_success
from tests.support.channels import subscribe, unique_name
from tests.support.server import ServerProcess

MakeUser = Callable[..., Api]


class Conn:
    """One keep-alive HTTP/1.1 connection, requests written by hand (byte-exact)."""

    def __init__(self, server: ServerProcess, api: Api) -> None:
        token = base64.b64encode(f"{api.email}:{api.api_key}".encode()).decode()
        self.auth = f"Authorization: Basic {token}\r\n"
        self.sock = socket.create_connection(("127.0.0.1", server.port), timeout=15)
        self.buffer = b""

    def close(self) -> None:
        self.sock.close()

    def send(self, target: str, extra: str = "", method: str = "GET") -> None:
        self.sock.sendall(self.raw(target, extra, method))

    def raw(self, target: str, extra: str = "", method: str = "GET") -> bytes:
        return f"{method} {target} HTTP/1.1\r\nHost: x\r\n{self.auth}{extra}\r\n".encode()

    def response(self) -> tuple[list[str], bytes]:
        """(head lines, body) of the next response."""
        while b"\r\n\r\n" not in self.buffer:
            self._read()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        length = next(
            int(v) for k, _, v in (h.partition(": ") for h in lines) if k == "content-length"
        )
        while len(self.buffer) < length:
            self._read()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return lines, body

    def request(self, target: str, extra: str = "") -> tuple[list[str], bytes]:
        self.send(target, extra)
        return self.response()

    def _read(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        self.buffer += chunk


@pytest.fixture
def conns(server: ServerProcess) -> Iterator[Callable[[Api], Conn]]:
    opened: list[Conn] = []

    def factory(api: Api) -> Conn:
        opened.append(Conn(server, api))
        return opened[-1]

    yield factory
    for conn in opened:
        conn.close()


def register(api: Api, **params: Any) -> str:
    return str(api.ok("POST", "/register", **params)["queue_id"])


def poll_target(queue_id: str, **extra: str) -> str:
    query = "&".join(f"{k}={v}" for k, v in {"queue_id": queue_id, **extra}.items())
    return f"/api/v1/events?{query}"


def three_ways(conn: Conn, queue_id: str) -> list[list[JsonDict]]:
    """The queue's pending events polled on this connection (the direct lane), on a connection
    closed after the answer (the ASGI lean path), and through the framework's route (a
    repeated parameter), without acknowledging any; the first two byte for byte equal."""
    target = poll_target(queue_id, dont_block="true")
    direct_head, direct = conn.request(target)
    lean_head, lean = closing_request(conn, target)
    route_head, route = closing_request(conn, target + f"&queue_id={queue_id}")
    assert direct == lean
    assert direct_head[0] == lean_head[0] == route_head[0] == "HTTP/1.1 200 OK"
    assert _kept(direct_head) == _kept(lean_head)
    answers = [json.loads(direct), json.loads(lean), json.loads(route)]
    assert [a["queue_id"] for a in answers] == [queue_id] * 3
    return [a["events"] for a in answers]


def closing_request(conn: Conn, target: str) -> tuple[list[str], bytes]:
    """`target` on a new connection of the same user that closes after the answer."""
    other = Conn.__new__(Conn)
    other.auth, other.buffer = conn.auth, b""
    other.sock = socket.create_connection(conn.sock.getpeername(), timeout=15)
    try:
        return other.request(target, "Connection: close\r\n")
    finally:
        other.close()


def next_message(conn: Conn, queue_id: str, target: str | None = None) -> JsonDict:
    """The first message event of the poll already sent on `conn` (`target`, re-sent after
    a heartbeat: a busy machine may take longer than the test server's 2 s heartbeat)."""
    while True:
        events = json.loads(conn.response()[1])["events"]
        messages = [e for e in events if e["type"] == "message"]
        if messages:
            return messages[0]
        last = max(e["id"] for e in events)
        conn.send(poll_target(queue_id, last_event_id=str(last)))


def _kept(head: list[str]) -> list[str]:
    """The headers that must match (date varies; the closing connection says so)."""
    return sorted(h for h in head[1:] if not h.startswith(("date:", "connection:")))


def test_every_copy_of_an_event_is_the_same_on_each_path(
    make_user: MakeUser, conns: Callable[[Api], Conn]
) -> None:
    alice, bob, watcher = make_user("Alice Lane"), make_user("Bob Lane"), make_user("Watcher")
    shared, other = unique_name("Lane"), unique_name("LaneOther")
    subscribe(alice, shared, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    subscribe(alice, other)
    caps = {"empty_topic_name": True, "user_avatar_url_field_optional": True}
    queues = {
        "rendered": register(bob, event_types=["message"], apply_markdown=True),
        "markdown": register(bob, event_types=["message"], client_gravatar=False),
        "capable": register(
            bob, event_types=["message"], apply_markdown=True, client_capabilities=caps
        ),
        "narrow": register(bob, event_types=["message"], narrow=[["is", "dm"]]),
        "public": register(
            watcher, event_types=["message"], all_public_streams=True, apply_markdown=True
        ),
        "sender": register(alice, event_types=["message"], apply_markdown=True),
    }
    alice.ok(
        "POST", "/messages", type="stream", to=shared, topic="lane", content="**bold** words",
        queue_id=queues["sender"], local_id="7.01",
    )  # fmt: skip
    alice.ok("POST", "/messages", type="stream", to=other, topic="", content="no topic")
    alice.ok("POST", "/messages", type="direct", to=[bob.user_id], content="just us")  # type: ignore[attr-defined]
    seen = {}
    for name, queue_id in queues.items():
        api = {"public": watcher, "sender": alice}.get(name, bob)
        direct, lean, route = three_ways(conns(api), queue_id)
        assert direct == lean == route
        seen[name] = direct
    contents = {n: [e["message"]["content"] for e in events] for n, events in seen.items()}
    assert contents["rendered"] == ["<p><strong>bold</strong> words</p>", "<p>just us</p>"]
    assert contents["markdown"] == ["**bold** words", "just us"]
    assert contents["narrow"] == ["just us"]
    # The watcher is in neither channel: both public messages, with no flags.
    assert contents["public"] == ["<p><strong>bold</strong> words</p>", "<p>no topic</p>"]
    assert [e["flags"] for e in seen["public"]] == [[], []]
    assert [e["message"]["subject"] for e in seen["public"]][1] != ""
    # Only the sending queue learns its local id.
    assert seen["sender"][0].get("local_message_id") == "7.01"
    assert all("local_message_id" not in e for n in seen if n != "sender" for e in seen[n])
    markdown = seen["markdown"][0]["message"]
    assert markdown["content_type"] == "text/x-markdown"
    assert seen["rendered"][0]["message"]["content_type"] == "text/html"


def test_a_waiting_poll_is_answered_and_its_connection_serves_on(
    make_user: MakeUser, conns: Callable[[Api], Conn]
) -> None:
    alice, bob = make_user("Alice Wait"), make_user("Bob Wait")
    queue_id = register(bob, event_types=["message"])
    conn = conns(bob)
    conn.send(poll_target(queue_id, last_event_id="-1"))
    time.sleep(0.3)
    alice.ok("POST", "/messages", type="direct", to=[bob.user_id], content="wake up")  # type: ignore[attr-defined]
    assert next_message(conn, queue_id)["message"]["content"] == "wake up"
    # The same connection then takes a framework request, and an acknowledging poll.
    head, me = conn.request("/api/v1/users/me")
    assert head[0] == "HTTP/1.1 200 OK" and json.loads(me)["user_id"] == bob.user_id  # type: ignore[attr-defined]
    _, empty = conn.request(poll_target(queue_id, last_event_id="100", dont_block="true"))
    assert json.loads(empty)["events"] == []


def test_a_request_pipelined_behind_a_waiting_poll_is_answered_after_it(
    make_user: MakeUser, conns: Callable[[Api], Conn]
) -> None:
    alice, bob = make_user("Alice Pipe"), make_user("Bob Pipe")
    queue_id = register(bob, event_types=["message"])
    conn = conns(bob)
    conn.sock.sendall(
        conn.raw(poll_target(queue_id, last_event_id="-1")) + conn.raw("/api/v1/users/me")
    )
    time.sleep(0.3)
    alice.ok("POST", "/messages", type="direct", to=[bob.user_id], content="first")  # type: ignore[attr-defined]
    _, first = conn.response()
    _, second = conn.response()
    assert "events" in json.loads(first)  # the message, or a heartbeat on a slow machine
    assert json.loads(second)["user_id"] == bob.user_id  # type: ignore[attr-defined]


def test_a_newer_poll_finishes_the_waiting_one(
    make_user: MakeUser, conns: Callable[[Api], Conn]
) -> None:
    alice, bob = make_user("Alice Newer"), make_user("Bob Newer")
    queue_id = register(bob, event_types=["message"])
    old, new = conns(bob), conns(bob)
    old.send(poll_target(queue_id, last_event_id="-1"))
    time.sleep(0.3)
    new.send(poll_target(queue_id, last_event_id="-1"))
    _, finished = old.response()
    assert json.loads(finished)["events"] == []
    alice.ok("POST", "/messages", type="direct", to=[bob.user_id], content="to the new one")  # type: ignore[attr-defined]
    assert next_message(new, queue_id)["message"]["content"] == "to the new one"


def test_a_poll_whose_client_left_keeps_its_queue(
    make_user: MakeUser, conns: Callable[[Api], Conn], server: ServerProcess
) -> None:
    alice, bob = make_user("Alice Left"), make_user("Bob Left")
    queue_id = register(bob, event_types=["message"])
    gone = conns(bob)
    gone.send(poll_target(queue_id, last_event_id="-1"))
    time.sleep(0.3)
    gone.close()
    time.sleep(0.3)
    alice.ok("POST", "/messages", type="direct", to=[bob.user_id], content="kept")  # type: ignore[attr-defined]
    events = bob.ok("GET", "/events", queue_id=queue_id, last_event_id=-1, dont_block=True)
    assert [e["message"]["content"] for e in events["events"]] == ["kept"]


def test_a_waiting_poll_gets_its_heartbeat_on_the_connection(
    make_user: MakeUser, conns: Callable[[Api], Conn]
) -> None:
    bob = make_user("Bob Beat")
    queue_id = register(bob, event_types=["message"])
    conn = conns(bob)
    started = time.monotonic()
    _, body = conn.request(poll_target(queue_id, last_event_id="-1"))
    assert [e["type"] for e in json.loads(body)["events"]] == ["heartbeat"]
    assert time.monotonic() - started < 10  # the test server's heartbeat is 2 s


def test_polls_on_many_connections_are_all_woken_by_one_message(
    make_user: MakeUser, conns: Callable[[Api], Conn]
) -> None:
    alice, bob = make_user("Alice Many"), make_user("Bob Many")
    queues = [register(bob, event_types=["message"]) for _ in range(150)]  # > one batch
    waiting = []
    for queue_id in queues:
        conn = conns(bob)
        conn.send(poll_target(queue_id, last_event_id="-1"))
        waiting.append(conn)
    time.sleep(0.5)
    done: list[str] = []

    def read(conn: Conn, queue_id: str) -> None:
        done.append(next_message(conn, queue_id)["message"]["content"])

    alice.ok("POST", "/messages", type="direct", to=[bob.user_id], content="all of you")  # type: ignore[attr-defined]
    readers = [
        threading.Thread(target=read, args=pair) for pair in zip(waiting, queues, strict=True)
    ]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(15)
    assert done == ["all of you"] * len(queues)
    assert_success(bob.get("/users/me"))


def test_shutdown_answers_a_waiting_poll_and_closes_its_connection(
    start_server: Callable[..., ServerProcess],
) -> None:
    proc = start_server({"TEAMCHAT_HEARTBEAT_SECS": "60"})
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        queue_id = register(owner, event_types=["message"])
        conn = Conn(proc, owner)
        try:
            conn.send(poll_target(queue_id, last_event_id="-1"))
            time.sleep(0.5)
            started = time.monotonic()
            assert proc.stop() == 0
            head, body = conn.response()
            assert head[0] == "HTTP/1.1 200 OK" and json.loads(body)["events"] == []
            assert conn.sock.recv(1) == b""  # then the connection is closed
            assert time.monotonic() - started < 10
        finally:
            conn.close()


def test_every_spelling_of_a_poll_query_gets_the_same_answer(
    make_user: MakeUser, conns: Callable[[Api], Conn]
) -> None:
    """The usual query (queue id, last event id, perhaps dont_block) is read in one match;
    its colon percent-encoded either way, another order, or a repeated parameter (the
    framework's route) answer the same."""
    alice, bob = make_user("Alice Query"), make_user("Bob Query")
    queue_id = register(bob, event_types=["message"])
    alice.ok("POST", "/messages", type="direct", to=[bob.user_id], content="spelled")  # type: ignore[attr-defined]
    conn = conns(bob)
    encoded = queue_id.replace(":", "%3A")
    targets = [
        poll_target(queue_id, last_event_id="-1", dont_block="true"),
        poll_target(encoded, last_event_id="-1", dont_block="true"),
        poll_target(queue_id.replace(":", "%3a"), last_event_id="-1", dont_block="true"),
        f"/api/v1/events?dont_block=true&last_event_id=-1&queue_id={encoded}",
        poll_target(queue_id, last_event_id="-1", dont_block="true") + f"&queue_id={queue_id}",
    ]
    answers = [json.loads(conn.request(target)[1]) for target in targets]
    assert [a["queue_id"] for a in answers] == [queue_id] * len(targets)
    assert all(a["events"] == answers[0]["events"] for a in answers)
    assert [e["message"]["content"] for e in answers[0]["events"]] == ["spelled"]
    # The last event's id acknowledges every event, in the encoded spelling too.
    last = answers[0]["events"][-1]["id"]
    _, empty = conn.request(poll_target(encoded, last_event_id=str(last), dont_block="true"))
    assert json.loads(empty)["events"] == []

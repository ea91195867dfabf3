"""Outgoing webhooks: the payload Zulip sends, replies posted as the bot, retries, and the
owner told about failures."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.support.api import Api
from tests.support.channels import stream_id, subscribe, unique_name

MakeUser = Callable[..., Api]


class Service:
    """A webhook service on localhost answering from a script of (status, body) replies."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: list[tuple[int, bytes]] = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                service.requests.append(json.loads(self.rfile.read(length)))
                status, body = service.replies.pop(0) if service.replies else (200, b"{}")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, count: int, timeout: float = 15) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while len(self.requests) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(self.requests) >= count, self.requests
        return self.requests


@pytest.fixture
def service() -> Iterator[Service]:
    running = Service()
    yield running
    running.server.shutdown()


def _newest(api: Api, narrow: list[dict[str, Any]], after: int, timeout: float = 15) -> Any:
    """Wait for a message in `narrow` newer than message `after`; return the newest."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = api.ok(
            "GET",
            "/messages",
            anchor="newest",
            num_before=1,
            num_after=0,
            narrow=json.dumps(narrow),
            apply_markdown="false",
        )["messages"]
        if found and found[-1]["id"] > after:
            return found[-1]
        time.sleep(0.1)
    raise AssertionError(f"nothing new in {narrow}")


def test_mention_and_direct_message(make_user: MakeUser, service: Service) -> None:
    owner = make_user("Hook Owner")
    bot = owner.ok(
        "POST",
        "/users/me/bots",
        full_name="Echo Hook",
        short_name=f"h{uuid.uuid4().hex[:6]}",
        bot_type=3,
        payload_url=json.dumps(service.url),
    )
    state = owner.ok("POST", "/register", fetch_event_types=json.dumps(["realm_bot"]))
    [mine] = [b for b in state["realm_bots"] if b["user_id"] == bot["user_id"]]
    token, email = mine["services"][0]["token"], mine["email"]
    name = unique_name("Hooks")
    subscribe(owner, name)
    sid = stream_id(owner, name)
    service.replies = [(200, json.dumps({"content": "pong **back**"}).encode())]
    sent = owner.ok(
        "POST", "/messages", type="stream", to=sid, topic="ping", content="@**Echo Hook** ping"
    )["id"]
    [request] = service.wait(1)
    assert (request["trigger"], request["token"], request["bot_email"]) == ("mention", token, email)
    assert request["bot_full_name"] == "Echo Hook" and request["data"] == "@**Echo Hook** ping"
    assert (
        request["message"]["id"] == sent and request["message"]["content"] == "@**Echo Hook** ping"
    )
    assert (
        request["message"]["display_recipient"] == name and request["message"]["subject"] == "ping"
    )
    topic_narrow = [
        {"operator": "channel", "operand": sid},
        {"operator": "topic", "operand": "ping"},
    ]
    reply = _newest(owner, topic_narrow, sent)
    assert reply["content"] == "pong **back**" and reply["sender_id"] == bot["user_id"]
    # A direct message triggers it too; the reply goes to the conversation.
    service.replies = [(200, json.dumps({"content": "hi there"}).encode())]
    hello = owner.ok(
        "POST", "/messages", type="direct", to=json.dumps([bot["user_id"]]), content="hello"
    )["id"]
    assert service.wait(2)[1]["trigger"] == "direct_message"
    dm = _newest(owner, [{"operator": "dm", "operand": [bot["user_id"]]}], hello)
    assert dm["content"] == "hi there" and dm["sender_id"] == bot["user_id"]
    # response_not_required: nothing is posted; a message without a mention sends nothing.
    service.replies = [(200, json.dumps({"response_not_required": True}).encode())]
    owner.ok("POST", "/messages", type="stream", to=sid, topic="ping", content="@**Echo Hook** x")
    service.wait(3)
    owner.ok("POST", "/messages", type="stream", to=sid, topic="ping", content="no mention")
    time.sleep(0.5)
    assert len(service.requests) == 3


def test_failures_are_retried_then_reported(make_user: MakeUser, service: Service) -> None:
    owner = make_user("Hook Owner Two")
    bot = owner.ok(
        "POST",
        "/users/me/bots",
        full_name="Flaky Hook",
        short_name=f"f{uuid.uuid4().hex[:6]}",
        bot_type=3,
        payload_url=json.dumps(service.url),
    )
    # Two 503s, then an answer: retried, then posted.
    service.replies = [(503, b"busy"), (503, b"busy"), (200, b'{"content": "third time"}')]
    tried = owner.ok(
        "POST", "/messages", type="direct", to=json.dumps([bot["user_id"]]), content="try"
    )["id"]
    service.wait(3)
    dm = _newest(owner, [{"operator": "dm", "operand": [bot["user_id"]]}], tried)
    assert dm["content"] == "third time"
    # A 4xx is reported at once to the owner by the Notification Bot.
    service.replies = [(400, b'{"error": "nope"}')]
    bad = owner.ok(
        "POST", "/messages", type="direct", to=json.dumps([bot["user_id"]]), content="bad"
    )["id"]
    service.wait(4)
    notices = [{"operator": "sender", "operand": "notification-bot@teamchat.local"}]
    notice = _newest(owner, notices, bad)
    assert "to your bot @_**Flaky Hook|" in notice["content"]
    assert "triggered an outgoing webhook." in notice["content"]
    assert "The webhook got a response with status code *400*." in notice["content"]
    assert "nope" in notice["content"]
    # An answer that is not JSON is reported too.
    service.replies = [(200, b"<html>")]
    html = owner.ok(
        "POST", "/messages", type="direct", to=json.dumps([bot["user_id"]]), content="html"
    )["id"]
    service.wait(5)
    notice = _newest(owner, notices, html)
    assert "The webhook response is not valid JSON." in notice["content"]

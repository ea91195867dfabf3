"""Outbound requests are bounded: one deadline per request however slowly the other end
trickles, log-ins and uploads unaffected while many deliveries hang, a cap on deliveries in
flight per bot and per owner, and only a short sanitized excerpt shown to a bot's owner."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.conftest import TEST_PASSWORD
from tests.support.api import Api
from tests.support.listeners import Trickle
from tests.support.people import create_member, login
from tests.support.server import ServerProcess

NOTIFICATION_BOT = "notification-bot@teamchat.local"


def _add_bot(member: Api, url: str) -> tuple[int, str]:
    created = member.ok(
        "POST", "/users/me/bots", full_name=f"Slow {uuid.uuid4().hex[:8]}",
        short_name=f"s{uuid.uuid4().hex[:8]}", bot_type=3, payload_url=json.dumps(url),
    )  # fmt: skip
    state = member.ok("POST", "/register", fetch_event_types=json.dumps(["realm_bot"]))
    [mine] = [b for b in state["realm_bots"] if b["user_id"] == created["user_id"]]
    return int(created["user_id"]), str(mine["email"])


def _dm(member: Api, bot_id: int, count: int = 1) -> None:
    for n in range(count):
        member.ok("POST", "/messages", type="direct", to=json.dumps([bot_id]), content=f"m{n}")


def _timed(call: Callable[[], object]) -> float:
    started = time.monotonic()
    call()
    return time.monotonic() - started


def _notices(member: Api) -> list[str]:
    found = member.ok(
        "GET", "/messages", anchor="newest", num_before=50, num_after=0,
        narrow=json.dumps([{"operator": "sender", "operand": NOTIFICATION_BOT}]),
        apply_markdown="false",
    )["messages"]  # fmt: skip
    return [str(m["content"]) for m in found]


def test_a_trickling_host_is_cut_at_the_deadline_and_starves_nothing(
    start_server: Callable[..., ServerProcess],
) -> None:
    deadline_secs = 3.0
    with Trickle(interval_secs=0.5, total_secs=60) as trickle:
        server = start_server(
            {
                "TEAMCHAT_OUTBOUND_DEADLINE_SECS": str(deadline_secs),
                "TEAMCHAT_OUTBOUND_MAX_PER_SENDER": "20",
            }
        )
        owner = Api(server.url, server.owner_email, server.owner_key)
        member = create_member(server.url, owner, "Patient Member")
        assert member.email is not None
        bot_id, _ = _add_bot(member, trickle.url)
        _dm(member, bot_id, 10)
        trickle.wait_open(8)
        # Eight or more deliveries hang right now: a log-in (argon2) and an upload still
        # answer at once (they waited 60 s for a free thread when deliveries used them).
        login_secs = _timed(lambda: login(server.url, member.email or "", TEST_PASSWORD))
        upload_secs = _timed(
            lambda: member.http.post(
                "/user_uploads", files={"file": ("a.txt", b"hello", "text/plain")}
            ).raise_for_status()
        )
        assert trickle.open_now >= 8
        assert login_secs < 2.5 and upload_secs < 2.5, (login_secs, upload_secs)
        # Each request ends at its deadline, though the host never stops sending.
        deadline = time.monotonic() + 4 * (deadline_secs + 3) + 10
        while time.monotonic() < deadline and not any(
            "within 3 seconds" in n for n in _notices(member)
        ):
            time.sleep(0.3)
        assert len(trickle.durations) >= 10
        assert max(trickle.durations) < deadline_secs + 1.5, trickle.durations
        [notice, *_] = [n for n in _notices(member) if "within 3 seconds" in n]
        assert "The webhook service could not be reached: no complete answer within 3 " in notice


def test_deliveries_in_flight_are_capped_per_bot_and_per_owner(
    start_server: Callable[..., ServerProcess],
) -> None:
    with Trickle(interval_secs=0.5, total_secs=60) as trickle:
        server = start_server(
            {"TEAMCHAT_OUTBOUND_DEADLINE_SECS": "6", "TEAMCHAT_OUTBOUND_MAX_PER_SENDER": "2"}
        )
        owner = Api(server.url, server.owner_email, server.owner_key)
        alice = create_member(server.url, owner, "Alice Hooks")
        bob = create_member(server.url, owner, "Bob Hooks")
        busy, busy_email = _add_bot(alice, trickle.url)
        second, second_email = _add_bot(alice, trickle.url)
        other, other_email = _add_bot(bob, trickle.url)
        _dm(alice, busy, 5)
        _dm(alice, second, 2)
        _dm(bob, other, 1)
        trickle.wait_open(3)
        time.sleep(2)
        # Alice's bots share her cap of 2; Bob's bot is not held up by hers.
        by_bot = dict(trickle.open_by_bot)
        assert by_bot.get(busy_email, 0) + by_bot.get(second_email, 0) == 2, by_bot
        assert by_bot.get(other_email) == 1, by_bot
        assert trickle.open_now == 3
        assert trickle.most_by_bot[busy_email] <= 2


class _Verbose(ThreadingHTTPServer):
    """Answers every request 400 with a long, hostile body."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = b"```\n@**all** \x1b[2J<script>x</script>\r\n" + b"S" * 50_000
                self.send_response(400)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}/hook"
        threading.Thread(target=self.serve_forever, daemon=True).start()


def test_the_owner_sees_a_status_and_a_short_sanitized_excerpt(
    make_user: Callable[..., Api],
) -> None:
    service = _Verbose()
    try:
        member = make_user("Excerpt Owner")
        bot_id, _ = _add_bot(member, service.url)
        _dm(member, bot_id)
        deadline, found = time.monotonic() + 15, []
        while not found and time.monotonic() < deadline:
            found = [n for n in _notices(member) if f"|{bot_id}**" in n]
            time.sleep(0.2)
        [notice] = found
    finally:
        service.shutdown()
    assert "The webhook got a response with status code *400*." in notice
    excerpt = notice.split("```text\n", 1)[1].rsplit("\n```", 1)[0]
    assert excerpt.startswith("@**all** [2J<script>x</script> SSS") and excerpt.endswith("…")
    assert len(excerpt) <= 201 and "\x1b" not in excerpt and "`" not in excerpt
    assert notice.count("```") == 2 and len(notice) < 600

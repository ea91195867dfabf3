"""One source of truth for our own URL: `serve` pins it at first start, and every link that
leaves a request's answer (emails, push payloads, Notification Bot messages, invitation
links) uses it; a request's Host / X-Forwarded-Proto never reaches another person."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

from tests.support.api import Api
from tests.support.people import create_member
from tests.support.push_service import Phone, PushServiceStub
from tests.support.server import ServerProcess, cli
from tests.support.smtp import SmtpRecorder

EVIL = {"Host": "evil.example", "X-Forwarded-Proto": "https"}


class _Refusing(ThreadingHTTPServer):
    """A webhook service that answers every request 400."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(400)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"no")

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}/hook"
        threading.Thread(target=self.serve_forever, daemon=True).start()


def _evil(person: Api) -> Api:
    """The same account, sending a forged Host and X-Forwarded-Proto with every request."""
    forged = Api(person.base_url, person.email, person.api_key)
    forged.http.headers.update(EVIL)
    return forged


def _notices(person: Api, about: str) -> list[str]:
    narrow = [{"operator": "sender", "operand": "notification-bot@teamchat.local"}]
    found = person.ok(
        "GET", "/messages", anchor="newest", num_before=5, num_after=0,
        narrow=json.dumps(narrow), apply_markdown="false",
    )["messages"]  # fmt: skip
    return [str(m["content"]) for m in found if about in str(m["content"])]


def _wait(found: Callable[[], list[str]], timeout: float = 15) -> list[str]:
    deadline = time.monotonic() + timeout
    while not (items := found()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return items


def test_links_to_other_people_use_the_pinned_url_not_the_senders_host(
    start_server: Callable[..., ServerProcess],
) -> None:
    with SmtpRecorder() as smtp, PushServiceStub() as stub:
        server = start_server(
            {
                "TEAMCHAT_SMTP_HOST": "127.0.0.1",
                "TEAMCHAT_SMTP_PORT": str(smtp.port),
                "TEAMCHAT_PUSH_SERVICE_URL": stub.url,
            }
        )
        owner = Api(server.url, server.owner_email, server.owner_key)
        alice = create_member(server.url, owner, "Alice", email="alice@example.com")
        bob = create_member(server.url, owner, "Bob", email="bob@example.com")
        bob.ok("PATCH", "/settings", email_notifications_batching_period_seconds=1)
        device_id = int(bob.ok("POST", "/register_client_device")["device_id"])
        bob.ok(
            "POST", "/mobile_push/register", device_id=device_id,
            **stub.registration(Phone("bob-token")),
        )  # fmt: skip
        bob_id = bob.user_id  # type: ignore[attr-defined]
        _evil(alice).ok("POST", "/messages", type="direct", to=json.dumps([bob_id]), content="hi")
        # The push payload Bob's phone decrypts.
        [(_, _, payload)] = stub.payloads(1)
        assert payload["realm_url"] == server.url
        assert "evil.example" not in json.dumps(payload)
        # The missed-message email Bob gets.
        mails = _wait(lambda: [m.get_payload(decode=True).decode() for m in smtp.messages])
        assert mails and f"{server.url}/#narrow/dm/" in mails[0]
        assert "evil.example" not in mails[0]
        # A Notification Bot message (a failed outgoing webhook, reported to its owner).
        service = _Refusing()
        try:
            bot = alice.ok(
                "POST", "/users/me/bots", full_name="Refused Hook", short_name="refusedhook",
                bot_type=3, payload_url=json.dumps(service.url),
            )  # fmt: skip
            _evil(alice).ok(
                "POST", "/messages", type="direct", to=json.dumps([bot["user_id"]]), content="x"
            )
            notices = _wait(lambda: _notices(alice, "Refused Hook"))
        finally:
            service.shutdown()
        assert notices and f"]({server.url}/#narrow/" in notices[0]
        assert "evil.example" not in notices[0]
        # Invitation links, and what the server says its URL is.
        link = _evil(owner).ok("POST", "/invites/multiuse", invite_as=400)["invite_link"]
        assert link.startswith(f"{server.url}/join/")
        settings = httpx.get(f"{server.url}/api/v1/server_settings", headers=EVIL).json()
        assert settings["realm_url"] == server.url


def test_serve_pins_the_url_and_a_given_one_stays_until_another_is_given(
    start_server: Callable[..., ServerProcess],
) -> None:
    server = start_server()
    first = server.url
    assert f"External URL: {first}" in server.first_output
    assert "--external-url" in server.first_output
    # Started again on another port without a given URL: the pin follows the port served
    # (never a port nobody serves), whatever Host a request names, and the change is said.
    server.stop()
    server.start()
    assert server.url != first
    assert f"External URL changed from {first} to {server.url}" in server.log()
    realm_url = httpx.get(
        f"{server.url}/api/v1/server_settings", headers={"Host": "evil.example"}
    ).json()["realm_url"]
    assert realm_url == server.url
    second = server.url
    # Told another URL: it is pinned instead, and the change is said.
    server.stop()
    server.env["TEAMCHAT_EXTERNAL_URL"] = "https://Chat.Example.com/"
    server.start(port=server.port)
    assert f"External URL changed from {second} to https://chat.example.com" in server.log()
    realm_url = httpx.get(f"{server.url}/api/v1/server_settings").json()["realm_url"]
    assert realm_url == "https://chat.example.com"
    # A given URL stays when later starts give none, on any port.
    server.stop()
    del server.env["TEAMCHAT_EXTERNAL_URL"]
    server.start()
    realm_url = httpx.get(f"{server.url}/api/v1/server_settings").json()["realm_url"]
    assert realm_url == "https://chat.example.com"
    # The admin CLI's links use it too.
    link = cli(server.db, "admin", "invite").stdout.strip()
    assert link.startswith("https://chat.example.com/join/"), link


def test_serve_refuses_an_external_url_that_is_not_one(tmp_path) -> None:  # type: ignore[no-untyped-def]
    for bad in ("ftp://chat.example.com", "chat.example.com", "https://chat.example.com/x?y"):
        result = cli(tmp_path / "t.db", "serve", "--external-url", bad, check=False)
        assert result.returncode == 1, result
        assert "--external-url" in result.stderr and "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_only_one_function_reads_the_requests_host_and_only_the_login_uses_it() -> None:
    package = Path(__file__).resolve().parents[1] / "teamchat"
    readers, users = [], []
    for path in sorted(package.rglob("*.py")):
        text = path.read_text().lower()
        name = str(path.relative_to(package))
        # Reads, not writes: the proxy configuration and a request passed on to another
        # process set X-Forwarded-Proto for the next hop.
        if re.search(r'headers(\.get\(|\[)"(host|x-forwarded-proto)"(\)|\](?!\s*=))', text):
            readers.append(name)
        if "request_origin(" in text:
            users.append(name)
    assert readers == ["http/urls.py"]
    assert users == ["http/urls.py", "http/web_login.py"]

"""Missed-message emails: unread direct messages, mentions and alert words reach people with
no client connected, after their batching period, once."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from email.message import Message

from tests.support.api import Api
from tests.support.channels import Queue, stream_id, subscribe
from tests.support.people import create_member
from tests.support.server import ServerProcess
from tests.support.smtp import SmtpRecorder


def _person(server: ServerProcess, owner: Api, name: str) -> Api:
    email = f"{name.lower()}@example.com"
    person = create_member(server.url, owner, name, email=email, password="pw-" + name * 3)
    person.ok("PATCH", "/settings", email_notifications_batching_period_seconds=1)
    return person


def _wait(smtp: SmtpRecorder, count: int, timeout: float = 15) -> list[Message]:
    deadline = time.monotonic() + timeout
    while len(smtp.messages) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    return list(smtp.messages)


def _text(mail: Message) -> str:
    return mail.get_payload(decode=True).decode()  # type: ignore[union-attr]


def test_missed_messages_are_emailed(start_server: Callable[..., ServerProcess]) -> None:
    with SmtpRecorder() as smtp:
        server = start_server(
            {"TEAMCHAT_SMTP_HOST": "127.0.0.1", "TEAMCHAT_SMTP_PORT": str(smtp.port)}
        )
        owner = Api(server.url, server.owner_email, server.owner_key)
        alice, bob, carol = (_person(server, owner, n) for n in ("Alice", "Bob", "Carol"))
        # Bob is offline: his direct message is emailed after his batching period.
        alice.ok(
            "POST",
            "/messages",
            type="direct",
            to=json.dumps([bob.user_id]),  # type: ignore[attr-defined]
            content="Lunch at *noon*?",
        )
        [mail] = _wait(smtp, 1)
        assert mail["To"] == "bob@example.com" and mail["Subject"] == "DMs with Alice"
        body = _text(mail)
        assert "Alice (" in body and "Lunch at *noon*?" in body and "/#narrow/dm/" in body
        # Carol has a client connected: nothing is emailed to her.
        watching = Queue(carol, event_types=["message"])
        alice.ok("POST", "/messages", type="direct", to=json.dumps([carol.user_id]), content="hi")  # type: ignore[attr-defined]
        # A mention in a channel, read before it is due: no email either.
        subscribe(owner, "mail-test", principals=json.dumps([alice.user_id, bob.user_id]))  # type: ignore[attr-defined]
        sid = stream_id(owner, "mail-test")
        bob.ok("PATCH", "/settings", email_notifications_batching_period_seconds=3)
        read = alice.ok(
            "POST",
            "/messages",
            type="stream",
            to=sid,
            topic="plans",
            content="@**Bob** are you in?",
        )["id"]
        bob.ok("POST", "/messages/flags", messages=json.dumps([read]), op="add", flag="read")
        time.sleep(4)
        assert len(smtp.messages) == 1
        # Unread, with message content turned off: the email says so instead.
        bob.ok(
            "PATCH",
            "/settings",
            email_notifications_batching_period_seconds=1,
            message_content_in_email_notifications="false",
        )
        alice.ok(
            "POST",
            "/messages",
            type="stream",
            to=sid,
            topic="plans",
            content="@**Bob** secret plan",
        )
        second = _wait(smtp, 2)[1]
        assert second["Subject"] == "#mail-test > plans"
        assert "secret plan" not in _text(second) and "disabled message content" in _text(second)
        assert watching.events()
        time.sleep(1.5)
        assert len(smtp.messages) == 2


def test_channel_and_followed_topic_messages_are_emailed_when_asked(
    start_server: Callable[..., ServerProcess],
) -> None:
    with SmtpRecorder() as smtp:
        server = start_server(
            {"TEAMCHAT_SMTP_HOST": "127.0.0.1", "TEAMCHAT_SMTP_PORT": str(smtp.port)}
        )
        owner = Api(server.url, server.owner_email, server.owner_key)
        alice, bob = (_person(server, owner, n) for n in ("Alice", "Bob"))
        subscribe(owner, "news", principals=json.dumps([alice.user_id, bob.user_id]))  # type: ignore[attr-defined]
        sid = stream_id(owner, "news")
        alice.ok("POST", "/messages", type="stream", to=sid, topic="t", content="not emailed")
        time.sleep(2.5)
        assert smtp.messages == []
        # Channel email notifications on: a plain channel message is emailed.
        bob.ok("PATCH", "/settings", enable_stream_email_notifications="true")
        alice.ok("POST", "/messages", type="stream", to=sid, topic="t", content="emailed")
        [mail] = _wait(smtp, 1)
        assert mail["Subject"] == "#news > t" and "emailed" in _text(mail)
        # Off again, but Bob follows a topic: its messages are emailed.
        bob.ok("PATCH", "/settings", enable_stream_email_notifications="false")
        bob.ok("POST", "/user_topics", stream_id=sid, topic="f", visibility_policy=3)
        alice.ok("POST", "/messages", type="stream", to=sid, topic="f", content="followed")
        second = _wait(smtp, 2)[1]
        assert second["Subject"] == "#news > f"
        # An edit that mentions Bob in a quiet topic is emailed like a new mention.
        plain = alice.ok("POST", "/messages", type="stream", to=sid, topic="q", content="plain")
        alice.ok("PATCH", f"/messages/{plain['id']}", content="@**Bob** look")
        third = _wait(smtp, 3)[2]
        assert third["Subject"] == "#news > q" and "look" in _text(third)


def test_a_limited_guest_is_emailed_an_unknown_sender(
    start_server: Callable[..., ServerProcess],
) -> None:
    """A guest who may not access a channel message's sender reads "Unknown user"."""
    with SmtpRecorder() as smtp:
        server = start_server(
            {"TEAMCHAT_SMTP_HOST": "127.0.0.1", "TEAMCHAT_SMTP_PORT": str(smtp.port)}
        )
        owner = Api(server.url, server.owner_email, server.owner_key)
        groups = owner.ok("GET", "/user_groups")["user_groups"]
        members = next(g["id"] for g in groups if g["name"] == "role:members")
        owner.ok("PATCH", "/realm", can_access_all_users_group=json.dumps({"new": members}))
        alice, bob = (_person(server, owner, n) for n in ("Alice", "Bob"))
        owner.ok("PATCH", f"/users/{bob.user_id}", role=600)  # type: ignore[attr-defined]
        names = [s["name"] for s in bob.ok("GET", "/users/me/subscriptions")["subscriptions"]]
        bob.ok("DELETE", "/users/me/subscriptions", subscriptions=json.dumps(names))
        subscribe(owner, "guest-mail", principals=json.dumps([bob.user_id]))  # type: ignore[attr-defined]
        sid = stream_id(owner, "guest-mail")
        alice.ok("POST", "/messages", type="stream", to=sid, topic="t", content="@**Bob** hi")
        [mail] = _wait(smtp, 1)
        assert mail["To"] == "bob@example.com"
        body = _text(mail)
        assert "Unknown user (" in body and "Alice" not in body

"""A user changing their own email: PATCH /settings email mails a link; opening it changes
the address, with the realm_user events."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx

from tests.support.api import Api, assert_error
from tests.support.channels import Queue
from tests.support.server import ServerProcess
from tests.support.smtp import SmtpRecorder


def test_change_own_email(
    start_server: Callable[..., ServerProcess], make_user: Callable[..., Api]
) -> None:
    assert_error(make_user("No Mail Here").patch("/settings", email="new@example.com"), None)
    with SmtpRecorder() as smtp:
        server = start_server(
            env={"TEAMCHAT_SMTP_HOST": "127.0.0.1", "TEAMCHAT_SMTP_PORT": str(smtp.port)}
        )
        owner = Api(server.url, server.owner_email, server.owner_key)
        me = owner.ok("GET", "/users/me")
        queue = Queue(owner, event_types=["realm_user"])
        answer = owner.ok("PATCH", "/settings", email="Boss@Example.com ")
        assert answer["account_email"] == "Check your email for a confirmation link. "
        [mail] = smtp.messages
        assert mail["To"] == "Boss@Example.com"
        text = mail.get_payload(decode=True).decode()  # type: ignore[union-attr]
        link = re.search(r"(http://\S+/accounts/confirm_new_email/\S+/)", text)
        assert link
        # Nothing changes before the link is opened.
        assert owner.ok("GET", "/users/me")["delivery_email"] == me["delivery_email"]
        page = httpx.get(link.group(1), timeout=30)
        assert page.status_code == 200 and "Boss@Example.com" in page.text
        updated = Api(server.url, "Boss@Example.com", server.owner_key)
        assert updated.ok("GET", "/users/me")["delivery_email"] == "Boss@Example.com"
        queue.api = updated
        events = queue.events()
        assert any(e["person"].get("delivery_email") == "Boss@Example.com" for e in events)
        # A used link is refused; so are bad or taken addresses.
        again = httpx.get(link.group(1), timeout=30)
        assert again.status_code == 404 and "expired or been used" in again.text
        assert_error(
            updated.patch("/settings", email="not-an-email"), "Invalid email 'not-an-email'"
        )
        assert_error(
            updated.patch("/settings", email="boss@example.com"),
            "New email is the same as your current email.",
        )
        assert len(smtp.messages) == 1

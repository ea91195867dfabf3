"""Lost passwords over HTTP, with a real SMTP server: the same answer for every address, a
single-use link that expires, the sign-up password rules, then log-in; and the emails a
server without SMTP writes to its email log (the sandbox's /emails/ page)."""

from __future__ import annotations

import hashlib
import re
import stat
import time
from collections.abc import Callable, Iterator
from email.message import Message
from pathlib import Path

import httpx
import pytest

from tests.conftest import TEST_PASSWORD, unique_email
from tests.support import rawdb
from tests.support.api import Api
from tests.support.server import ServerProcess, cli
from tests.support.smtp import SmtpRecorder
from tests.support.web import browser, log_in

RESET = "/accounts/password/reset/"
HTML_ACCEPT = {"Accept": "text/html"}


@pytest.fixture
def smtp() -> Iterator[SmtpRecorder]:
    with SmtpRecorder() as recorder:
        yield recorder


@pytest.fixture
def mailing(start_server: Callable[..., ServerProcess], smtp: SmtpRecorder) -> ServerProcess:
    return start_server(env={**smtp.env(), "TEAMCHAT_AUTH_RATE_LIMIT": "3/600"})


def make_member(proc: ServerProcess) -> str:
    email = unique_email("lost")
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        owner.ok("POST", "/users", email=email, password=TEST_PASSWORD, full_name="Lost One")
    return email


def body_of(message: Message) -> str:
    payload = message.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload.decode()


def reset_link(message: Message) -> str:
    found = re.search(r"(http://\S+/accounts/password/reset/[A-Za-z0-9_-]+/)", body_of(message))
    assert found, body_of(message)
    return found.group(1)


def ask(proc: ServerProcess, email: str) -> httpx.Response:
    response = httpx.post(f"{proc.url}{RESET}", data={"email": email}, timeout=30)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/accounts/password/reset/done/?email=")
    return httpx.get(f"{proc.url}{response.headers['location']}", timeout=30)


def test_reset_answers_alike_and_mails_a_single_use_link(
    mailing: ServerProcess, smtp: SmtpRecorder
) -> None:
    email = make_member(mailing)
    form = httpx.get(f"{mailing.url}{RESET}", timeout=30)
    assert form.status_code == 200 and 'name="email"' in form.text
    login = httpx.get(f"{mailing.url}/login/", timeout=30)
    assert f'href="{RESET}"' in login.text and "Forgot your password?" in login.text
    known = ask(mailing, email)
    [mail] = smtp.wait_for(1)
    unknown = ask(mailing, "nobody-here@example.com")
    # No enumeration: the page differs only by the address it repeats.
    assert known.status_code == unknown.status_code == 200
    assert known.text.replace(email, "X") == unknown.text.replace("nobody-here@example.com", "X")
    assert mail["To"] == email and "Reset your password" in str(mail["Subject"])
    assert "24 hours" in body_of(mail)
    [_, no_account] = smtp.wait_for(2)
    assert no_account["To"] == "nobody-here@example.com"
    assert "no account" in body_of(no_account) and "/accounts/password/reset/" not in body_of(
        no_account
    )
    link = reset_link(mail)
    page = httpx.get(link, timeout=30)
    assert page.status_code == 200 and 'name="new_password"' in page.text
    assert page.headers["referrer-policy"] == "no-referrer"
    assert "password_strength.js" in page.text
    mismatch = httpx.post(
        link, data={"new_password": "Quiet-harbor-77", "new_password_confirm": "other"}
    )
    assert mismatch.status_code == 400 and "do not match" in mismatch.text
    weak = httpx.post(link, data={"new_password": "password", "new_password_confirm": "password"})
    assert weak.status_code == 400 and "too weak" in weak.text
    with browser(mailing.url) as old_session:
        assert log_in(old_session, email, TEST_PASSWORD).status_code == 303
        done = httpx.post(
            link,
            data={"new_password": "Quiet-harbor-77", "new_password_confirm": "Quiet-harbor-77"},
        )
        assert done.status_code == 200 and "Your password has been changed" in done.text
        assert f'value="{email}"' in done.text and 'action="/login/"' in done.text
        # Every session of the account ended; the link is spent.
        assert old_session.get("/json/users/me").status_code == 401
    assert httpx.get(link, timeout=30).status_code == 404
    again = httpx.post(
        link, data={"new_password": "Other-pass-8812", "new_password_confirm": "Other-pass-8812"}
    )
    assert again.status_code == 404 and "expired or has already been used" in again.text
    with browser(mailing.url) as client:
        assert log_in(client, email, TEST_PASSWORD).status_code == 401
        assert log_in(client, email, "Quiet-harbor-77").status_code == 303


def test_reset_lifts_a_lockout_and_links_expire(mailing: ServerProcess, smtp: SmtpRecorder) -> None:
    email = make_member(mailing)
    with browser(mailing.url) as client:
        for _ in range(3):
            assert log_in(client, email, "wrong-guess").status_code == 401
        assert log_in(client, email, TEST_PASSWORD).status_code == 429
    ask(mailing, email)
    ask(mailing, email)
    first, second = (reset_link(m) for m in smtp.wait_for(2))
    token = first.rstrip("/").rsplit("/", 1)[1]  # the first link is a day old
    key_hash = hashlib.sha256(token.encode()).hexdigest()
    rawdb.query(
        mailing.db, "UPDATE password_reset SET expires_at = 1 WHERE key_hash = ?", (key_hash,)
    )
    assert httpx.get(first, timeout=30).status_code == 404
    new = {"new_password": "Amber-lantern-31", "new_password_confirm": "Amber-lantern-31"}
    assert httpx.post(second, data=new, timeout=30).status_code == 200
    with browser(mailing.url) as client:
        assert log_in(client, email, "Amber-lantern-31").status_code == 303


def test_reset_emails_per_address_are_limited(mailing: ServerProcess, smtp: SmtpRecorder) -> None:
    email = make_member(mailing)
    for _ in range(5):
        assert ask(mailing, email).status_code == 200
    smtp.wait_for(3)
    assert len(smtp.messages) == 3
    bad = httpx.post(f"{mailing.url}{RESET}", data={"email": "not an address"}, timeout=30)
    assert bad.status_code == 400 and "Enter the email address" in bad.text


def test_without_smtp_invitations_say_so_and_hand_over_the_links(
    server: ServerProcess, owner: Api
) -> None:
    address = unique_email("unmailed")
    body = owner.ok("POST", "/invites", invitee_emails=address, stream_ids=[])
    assert body["email_problem"].startswith("This server is not set up to send email")
    [entry] = body["invite_links"]
    assert entry["email"] == address and "/join/" in entry["link"]
    page = httpx.get(entry["link"], timeout=30)
    assert page.status_code == 200 and f'value="{address}" readonly' in page.text
    result = cli(server.db, "admin", "invite", "--email", "cli-unmailed@example.com")
    assert "not set up to send email" in result.stdout
    assert re.search(r"cli-unmailed@example.com: http://\S+/join/[a-z0-9]+/", result.stdout)
    assert "TEAMCHAT_SMTP_HOST" in result.stdout


def test_admin_invite_emails_through_smtp(mailing: ServerProcess, smtp: SmtpRecorder) -> None:
    result = cli(mailing.db, "admin", "invite", "--email", "cli-mailed@example.com", env=smtp.env())
    assert "Emailed an invitation to cli-mailed@example.com" in result.stdout
    [mail] = smtp.wait_for(1)
    assert mail["To"] == "cli-mailed@example.com" and "/join/" in body_of(mail)


def test_a_development_server_logs_every_email_and_shows_them(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    folder = tmp_path / "emails"
    proc = start_server(env={"TEAMCHAT_EMAIL_LOG_DIR": str(folder), "TEAMCHAT_DEV_AUTH": "1"})
    email = make_member(proc)
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        sent = owner.ok("POST", "/invites", invitee_emails="logged@example.com", stream_ids=[])
        assert "invite_links" not in sent  # the log counts as sent
    ask(proc, email)
    page = httpx.get(f"{proc.url}/emails/", timeout=30)
    for _ in range(100):
        if len(list(folder.glob("*.eml"))) == 2:
            break
        page = httpx.get(f"{proc.url}/emails/", timeout=30)
    files = sorted(folder.glob("*.eml"))
    assert len(files) == 2, files
    assert all(stat.S_IMODE(path.stat().st_mode) == 0o600 for path in files)
    page = httpx.get(f"{proc.url}/emails/", timeout=30)
    assert page.status_code == 200 and "Invitation to join" in page.text
    link = re.search(r'<a href="(http://[^"]+/accounts/password/reset/[^"]+)">', page.text)
    assert link and httpx.get(link.group(1), timeout=30).status_code == 200
    assert "email to logged@example.com" in proc.log() or "logged@example.com" in proc.log()


def test_the_email_log_page_exists_only_on_development_servers(server: ServerProcess) -> None:
    response = httpx.get(f"{server.url}/emails/", headers=HTML_ACCEPT, timeout=30)
    assert response.status_code == 404 and "Page not found" in response.text


def test_reset_requests_per_client_are_limited(mailing: ServerProcess, smtp: SmtpRecorder) -> None:
    def ask_from(ip: str, email: str) -> None:
        response = httpx.post(
            f"{mailing.url}{RESET}",
            data={"email": email},
            headers={"X-Forwarded-For": ip},
            timeout=30,
        )
        assert response.status_code == 303  # the same answer, limited or not

    for n in range(30):
        ask_from("10.7.7.7", f"stranger{n}@example.com")
    smtp.wait_for(30)
    ask_from("10.7.7.7", "one-too-many@example.com")
    ask_from("10.8.8.8", "from-elsewhere@example.com")
    mails = smtp.wait_for(31)
    time.sleep(0.5)
    assert [m["To"] for m in smtp.messages[30:]] == ["from-elsewhere@example.com"], mails[30:]

"""The forgot-password journey in Chromium: "Forgot your password?" on the log-in page, the
email read back from a real SMTP server, the link, the live strength meter, the new password,
log-in. Screenshots of every page outside the app, desktop and phone, light and dark."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import TEST_PASSWORD, unique_email
from tests.support.api import Api
from tests.support.browser import DESKTOP, PHONE
from tests.support.server import ServerProcess
from tests.support.smtp import SmtpRecorder

NEW_PASSWORD = "Cobalt-meadow-2718"


@pytest.fixture
def smtp() -> Iterator[SmtpRecorder]:
    with SmtpRecorder() as recorder:
        yield recorder


def shots(tmp_path: Path) -> Path:
    """Where screenshots go: TEAMCHAT_SCREENSHOT_DIR when set (to look at), else tmp."""
    folder = Path(os.environ.get("TEAMCHAT_SCREENSHOT_DIR", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def reset_link_of(smtp: SmtpRecorder, count: int) -> str:
    payload = smtp.wait_for(count)[-1].get_payload(decode=True)
    assert isinstance(payload, bytes)
    found = re.search(r"(http://\S+/accounts/password/reset/[A-Za-z0-9_-]+/)", payload.decode())
    assert found
    return found.group(1)


def test_forgotten_password_journey(
    start_server: Callable[..., ServerProcess],
    smtp: SmtpRecorder,
    open_page: Callable[..., Page],
    tmp_path: Path,
) -> None:
    proc = start_server(env={**smtp.env(), "TEAMCHAT_AUTH_RATE_LIMIT": "3/600"})
    email = unique_email("forgetful")
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        owner.ok("POST", "/users", email=email, password=TEST_PASSWORD, full_name="Forgetful")
    folder = shots(tmp_path)
    page = open_page()
    page.goto(f"{proc.url}/login/")
    # Locked out by wrong guesses; the message says how long in words.
    for _ in range(4):
        page.fill("#username", email)
        page.fill("#password", "wrong-guess")
        page.click("button[type=submit]")
    expect(page.locator(".problem")).to_contain_text("try again in 10 minutes")
    page.screenshot(path=str(folder / "login-locked-desktop.png"))
    page.click("#forgot-password")
    expect(page).to_have_url(f"{proc.url}/accounts/password/reset/")
    page.fill("#email", email)
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Check your email")
    page.screenshot(path=str(folder / "reset-requested-desktop.png"))
    page.goto(reset_link_of(smtp, 1))
    page.fill("#new_password", "password")
    expect(page.locator(".strength-verdict")).to_contain_text("too weak")
    expect(page.locator(".strength-advice li").first).to_be_visible()
    page.screenshot(path=str(folder / "set-password-weak-desktop.png"))
    page.fill("#new_password", NEW_PASSWORD)
    expect(page.locator(".strength-verdict")).to_contain_text("good enough")
    page.fill("#new_password_confirm", NEW_PASSWORD)
    page.screenshot(path=str(folder / "set-password-strong-desktop.png"))
    page.click("button[type=submit]")
    expect(page.locator(".notice")).to_contain_text("Your password has been changed")
    expect(page.locator("#username")).to_have_value(email)
    page.fill("#password", NEW_PASSWORD)
    page.click("button[type=submit]")
    expect(page.locator("#left .channels")).to_be_attached()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots_of_the_account_pages(
    server: ServerProcess,
    owner: Api,
    open_page: Callable[..., Page],
    tmp_path: Path,
    scheme: str,
) -> None:
    folder = shots(tmp_path)
    link = owner.ok("POST", "/invites/multiuse")["invite_link"]
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page = open_page(viewport=viewport, color_scheme=scheme)
        for name, url in (
            ("login", f"{server.url}/login/"),
            ("reset", f"{server.url}/accounts/password/reset/"),
            ("not-found", f"{server.url}/no/such/page"),
        ):
            page.goto(url)
            page.screenshot(path=str(folder / f"{name}-{size}-{scheme}.png"), full_page=True)
        page.goto(link)
        page.fill("#full_name", "Screen Shot")
        page.fill("#password", "kitten")
        expect(page.locator(".strength-verdict")).to_contain_text("too weak")
        page.screenshot(path=str(folder / f"signup-{size}-{scheme}.png"), full_page=True)
        page.fill("#email", unique_email("shot"))
        page.fill("#password", TEST_PASSWORD)
        expect(page.locator(".strength-verdict")).to_contain_text("good enough")
        page.click("button[type=submit]")
        expect(page.locator("#left .channels")).to_be_attached()
        page.goto(f"{server.url}/accounts/api_key/")
        page.screenshot(path=str(folder / f"api-key-ask-{size}-{scheme}.png"), full_page=True)
        page.fill("#password", TEST_PASSWORD)
        page.click("button[value=show]")
        expect(page.locator("#api_key")).to_be_visible()
        page.screenshot(path=str(folder / f"api-key-shown-{size}-{scheme}.png"), full_page=True)

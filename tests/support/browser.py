"""Debian's Chromium for the web client's browser tests, installed on first use, and the
steps those tests share (log in through the form, subscribe, find a message).

CI runs as root on Debian: `apt-get install -y chromium` is the only download allowed (no
Playwright browser download). Where it cannot be installed, the tests are skipped with why.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from tests.conftest import TEST_PASSWORD
from tests.support.api import Api
from tests.support.debian import apt_install

CHROMIUM = Path("/usr/bin/chromium")
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 780}


def chromium_executable() -> Path:
    """The path of Debian's chromium, installing the package when it is missing."""
    apt_install(["chromium"], CHROMIUM.exists, "the web client tests")
    return CHROMIUM


def log_in(page: Page, url: str, email: str, password: str = TEST_PASSWORD) -> None:
    page.goto(f"{url}/")
    expect(page).to_have_url(f"{url}/login/")
    page.fill("#username", email)
    page.fill("#password", password)
    page.click("button[type=submit]")
    expect(page.locator("#left .channels")).to_be_attached()


def subscribe(api: Api, name: str, *others: Api) -> int:
    """Subscribe `api`'s user and `others` to channel `name`; its id."""
    api.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": name}])
    if others:
        principals = [int(other.user_id) for other in others]  # type: ignore[attr-defined]
        api.ok(
            "POST", "/users/me/subscriptions", subscriptions=[{"name": name}], principals=principals
        )
    return int(api.ok("GET", "/get_stream_id", stream=name)["stream_id"])


def message_with(page: Page, text: str) -> Locator:
    return page.locator("#messages article.message", has_text=text)

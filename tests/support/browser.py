"""Debian's Chromium for the web client's browser tests, installed on first use, and the
steps those tests share (log in through the form, subscribe, find a message).

CI runs as root on Debian: `apt-get install -y chromium` is the only download allowed (no
Playwright browser download). Where it cannot be installed, the tests are skipped with why.
"""

from __future__ import annotations

import time
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


def box(locator: Locator, timeout: float = 5.0) -> dict[str, float]:
    """Where `locator` is drawn, once it is shown.

    The message list is drawn again on every change, so a live event (a reaction, the server's
    copy of a local echo) can replace the node between finding it and measuring it; Playwright
    then answers None. Measure again until a node stays put long enough to be measured.
    """
    deadline = time.monotonic() + timeout
    while True:
        expect(locator).to_be_visible()
        found = locator.bounding_box()
        if found is not None:
            return found
        assert time.monotonic() < deadline, f"{locator} was never measured: it kept being redrawn"
        time.sleep(0.05)

"""Fixtures of the web client's browser tests: one Chromium per session, pages in their own
contexts, and two people sharing a fresh channel."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.support.api import Api
from tests.support.browser import DESKTOP, chromium_executable, subscribe
from tests.support.server import ServerProcess


# Per module, not per session: Playwright's sync API runs an event loop while it is open, and
# a test worker that goes on to asyncio tests (pytest-xdist) must find none running.
@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = chromium_executable()
    with sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
        launched = playwright.chromium.launch(
            executable_path=str(executable), args=["--no-sandbox"]
        )
        yield launched
        launched.close()


@pytest.fixture
def open_page(browser: Browser) -> Iterator[Callable[..., Page]]:
    """New pages in their own contexts (cookie jars); errors in the page fail the test."""
    contexts = []
    errors: list[str] = []

    def factory(
        viewport: dict[str, int] = DESKTOP, color_scheme: str = "light", **options: Any
    ) -> Page:
        # Reduced motion: no sliding menu half-way through a screenshot. `options`: more of
        # Playwright's context options (has_touch, is_mobile for a phone).
        context = browser.new_context(
            viewport=viewport,  # type: ignore[arg-type]
            reduced_motion="reduce",
            color_scheme=color_scheme,  # type: ignore[arg-type]
            **options,
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15000)
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield factory
    for context in contexts:
        context.close()
    assert not errors, errors


@pytest.fixture
def pair(server: ServerProcess, make_user: Callable[..., Api]) -> tuple[Api, Api, str, int]:
    """Two people in a fresh channel: (the browser's person, the other one, channel, id)."""
    person = make_user("Ada Browser")
    person.user_id = person.ok("GET", "/users/me")["user_id"]  # type: ignore[attr-defined]
    # These tests send with Enter; enter_sends is off for a new account, as in Zulip.
    person.ok("PATCH", "/settings", enter_sends=True)
    other = make_user("Bob Api")
    other.user_id = other.ok("GET", "/users/me")["user_id"]  # type: ignore[attr-defined]
    name = f"web {time.time_ns()}"
    stream_id = subscribe(person, name, other)
    return person, other, name, stream_id

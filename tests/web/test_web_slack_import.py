"""A Slack workspace moved in shows in the web client: its channels, threads as topics,
people, mentions and reactions (the export of tests/fixtures/slack_export)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import PHONE, log_in, message_with
from tests.support.server import ServerProcess, cli

FIXTURE = Path(__file__).parent.parent / "fixtures" / "slack_export"
GRACE, PASSWORD = "grace@analytical.example", "Analytical-engine-1843"


@pytest.fixture(scope="module")
def slack_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("slack-web"))
    cli(proc.db, "import", str(FIXTURE))
    cli(proc.db, "admin", "set-password", GRACE, "--password", PASSWORD)
    proc.start()
    yield proc
    proc.stop()


def test_imported_channels_threads_and_reactions_show(
    slack_server: ServerProcess, open_page: Callable[..., Page], tmp_path: Path
) -> None:
    page = open_page()
    log_in(page, slack_server.url, GRACE, PASSWORD)
    left = page.locator("#left .channels")
    for name in ("general", "random", "engineering"):
        expect(left).to_contain_text(name)
    expect(left).not_to_contain_text("secret-plans")  # private, and Grace was not a member
    page.goto(f"{slack_server.url}/#narrow/channel/1-general")
    expect(page.locator("#narrow-title")).to_have_text("# general")
    expect(page.locator("#left .topics")).to_contain_text("imported from Slack")
    expect(page.locator("#left .topics")).to_contain_text("2024-01-15 Who is reviewing")
    welcome = message_with(page, "Welcome everyone!")
    expect(welcome.locator("strong")).to_have_text("the rules")
    expect(welcome.locator("button.reaction")).to_have_count(1)
    expect(welcome.locator("button.reaction")).to_contain_text("3")
    review = message_with(page, "Who is reviewing")
    expect(review.locator(".user-mention")).to_have_text("@Grace Hopper")
    headers = page.locator("#messages h2.recipient").filter(has_text="Who is reviewing")
    expect(headers.first).to_be_visible()  # the thread's topic heads its messages
    expect(message_with(page, "Deployed")).to_contain_text("Deploy Bot")
    page.screenshot(path=tmp_path / "slack-general.png")
    phone = open_page(viewport=PHONE, color_scheme="dark")
    log_in(phone, slack_server.url, GRACE, PASSWORD)
    phone.goto(f"{slack_server.url}/#narrow/channel/3-engineering")
    expect(message_with(phone, "standup in 5")).to_be_visible()
    expect(phone).to_have_url(re.compile(r"#narrow/channel/3-engineering"))
    phone.screenshot(path=tmp_path / "slack-engineering-phone.png")

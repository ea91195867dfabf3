"""The README's Quick start from the built wheel: the installed `teamchat serve` on a fresh
database, its printed owner logging in with Chromium, and the web client rendering messages
(not only its top bar: a wheel missing the client's modules showed an empty pane). The
README's two screenshots (docs/) are taken here, from this server, so they show the client
as it ships."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, Response, expect

from tests.support.api import Api
from tests.support.browser import DESKTOP, PHONE, log_in, message_with
from tests.support.quickstart import ROOT, QuickstartServer

SCREENSHOTS = ROOT / "docs"
# What the README tells a newcomer to run; the fixtures do the same steps (build the wheel
# `pip install .` builds, install it into a fresh virtualenv, run its `teamchat serve`).
QUICK_START = "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/teamchat serve"


def _record_failures(page: Page) -> list[str]:
    failures: list[str] = []

    def check(response: Response) -> None:
        if response.status >= 400:
            failures.append(f"{response.status} {response.url}")

    page.on("response", check)
    return failures


# Building the wheel and a virtualenv takes a while on a busy machine (once per session).
@pytest.mark.timeout(600)
def test_the_installed_wheel_serves_a_web_client_that_renders_messages(
    quickstart_server: QuickstartServer,
    open_page,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    assert QUICK_START in (ROOT / "README.md").read_text()
    server = quickstart_server
    output = server.first_output
    assert f"open {server.url}/ in a browser" in output, output
    assert server.zuliprc_path == server.directory / "zuliprc"
    assert server.zuliprc()["site"] == server.url
    page = open_page()
    failures = _record_failures(page)
    log_in(page, server.url, server.owner_email, server.owner_password)
    expect(page.locator("#me")).to_have_text("Owner")
    page.click("#left .channels a:has-text('general')")
    welcome = message_with(page, "This is #general, the channel for team-wide conversations")
    expect(welcome).to_be_visible()
    expect(welcome).to_contain_text("Welcome Bot")
    expect(page.locator("#messages h2.recipient").first).to_contain_text("welcome to your")
    page.screenshot(path=tmp_path / "quickstart-general.png")
    assert not failures, failures


# Building the wheel and a virtualenv takes a while on a busy machine (once per session).
@pytest.mark.timeout(600)
def test_readme_screenshots_from_the_installed_wheel(
    quickstart_server: QuickstartServer,
    open_page,  # type: ignore[no-untyped-def]
) -> None:
    """Regenerates docs/web-client-light.png and docs/web-client-phone-dark.png."""
    server = quickstart_server
    rc = server.zuliprc()
    password = "a-long-screenshot-password-7"
    people: dict[str, Api] = {}
    with Api(server.url, rc["email"], rc["key"]) as owner:
        for name in ("Ada Lovelace", "Bob Martin", "Carol Chen", "Dev Patel"):
            email = f"{name.split()[0].lower()}@example.com"
            owner.ok("POST", "/users", email=email, password=password, full_name=name)
            with Api(server.url) as anonymous:
                key = anonymous.ok("POST", "/fetch_api_key", username=email, password=password)
            people[name.split()[0]] = Api(server.url, email, key["api_key"])
    ada, bob, carol, dev = (people[n] for n in ("Ada", "Bob", "Carol", "Dev"))
    carol_id = carol.ok("GET", "/users/me")["user_id"]
    for channel in ("design", "engineering", "random"):
        subs = [{"name": channel}]
        for person in people.values():
            person.ok("POST", "/users/me/subscriptions", subscriptions=subs)

    def say(who: Api, topic: str, text: str) -> int:
        sent = who.ok("POST", "/messages", type="stream", to="design", topic=topic, content=text)
        return int(sent["id"])

    say(dev, "icons", "Should the icons follow the new logo's colours?")
    say(bob, "new logo", "I pushed three logo drafts to the shared folder. Thoughts?")
    second = say(carol, "new logo", "The second one reads best at small sizes.")
    say(carol, "new logo", "Maybe a little more space between the letters?")
    agreed = say(ada, "new logo", f"Agreed with @**Carol Chen|{carol_id}**. Can we try it dark?")
    code = say(
        bob, "new logo", "Sure, here is the colour I used:\n```css\n.logo { fill: #1d4ed8; }\n```"
    )
    for who in (ada, bob, dev):
        who.ok("POST", f"/messages/{second}/reactions", emoji_name="thumbs_up")
    carol.ok("POST", f"/messages/{agreed}/reactions", emoji_name="heart")
    dev.ok("POST", f"/messages/{code}/reactions", emoji_name="tada")
    bob.ok("POST", "/messages", type="private", to=[ada.ok("GET", "/users/me")["user_id"]],
           content="Lunch at noon?")  # fmt: skip
    engineering = "engineering"
    for text in ("The build is green again.", "Release notes are in the wiki."):
        dev.ok("POST", "/messages", type="stream", to=engineering, topic="builds", content=text)

    for viewport, scheme, name in (
        (DESKTOP, "light", "web-client-light.png"),
        (PHONE, "dark", "web-client-phone-dark.png"),
    ):
        page = open_page(viewport, color_scheme=scheme)
        log_in(page, server.url, ada.email or "", password)
        stream_id = ada.ok("GET", "/get_stream_id", stream="design")["stream_id"]
        page.goto(f"{server.url}/#narrow/channel/{stream_id}-design/topic/new.20logo")
        expect(page.locator("#narrow-title")).to_have_text(re.compile(r"design.*new logo"))
        mine = message_with(page, "Agreed with")
        expect(mine.locator(".user-mention")).to_have_text("@Carol Chen")
        expect(message_with(page, ".logo").locator("pre, code").first).to_be_visible()
        mine.click()
        page.mouse.move(0, 0)
        page.screenshot(path=SCREENSHOTS / name)
        assert (SCREENSHOTS / name).stat().st_size > 10000
    for api in people.values():
        api.close()

"""The Integrations page in a real browser against a real server: GitHub into a channel through
a new incoming-webhook bot, the URL copied and then used by "GitHub" (a documented push
payload), the message seen in the web client; a delivery to a channel that does not exist
shows up as a notice under the bot; nothing serious for axe; screenshots on desktop and phone,
light and dark."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.support.api import Api
from tests.support.axe import axe_script, axe_violations
from tests.support.browser import DESKTOP, PHONE, log_in, message_with, subscribe
from tests.support.server import ServerProcess
from tests.webhooks.support import load_fixture

PHONE_844 = {"width": 390, "height": 844}


def open_integrations(page: Page, screenshot: Path | None = None) -> None:
    page.click("#settings-button")
    page.get_by_role("navigation", name="Settings sections").get_by_role(
        "button", name="Integrations"
    ).click()
    if screenshot is not None:
        page.screenshot(path=str(screenshot))
    page.get_by_role("button", name="Connect an integration").click()
    expect(page.locator("#integrations[open]")).to_be_visible()
    expect(page.locator("#settings[open]")).to_have_count(0)


def generate_github_url(page: Page, channel: str) -> str:
    dialog = page.locator("#integrations")
    page.fill("#integration-filter", "hub")
    expect(dialog.locator(".integration-choice")).to_have_count(1)
    page.fill("#integration-filter", "no such tool")
    expect(dialog.get_by_text("No integration matches.")).to_be_visible()
    page.fill("#integration-filter", "git")
    expect(dialog.locator(".integration-choice", has_text="GitLab")).to_be_visible()
    dialog.get_by_label("GitHub", exact=True).check()
    dialog.get_by_label("Send to").select_option(label=f"#{channel}")
    expect(dialog.get_by_label("New bot's name")).to_have_value(re.compile(r"^GitHub Bot( \d+)?$"))
    dialog.get_by_role("button", name="Generate URL").click()
    url_box = page.locator("#integration-url")
    expect(url_box).to_have_value(re.compile(r"/api/v1/external/github\?api_key=\w+&stream=\d+$"))
    return url_box.input_value()


def test_github_url_from_the_page_posts_into_the_channel(
    server: ServerProcess,
    open_page,  # type: ignore[no-untyped-def]
    make_user,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    person: Api = make_user("Ines Integrations")
    person.user_id = person.ok("GET", "/users/me")["user_id"]  # type: ignore[attr-defined]
    channel = f"hooks {time.time_ns()}"
    stream_id = subscribe(person, channel)
    page = open_page()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    log_in(page, server.url, person.email)
    page.set_viewport_size(PHONE_844)
    open_integrations(page, tmp_path / "settings-integrations-phone.png")
    page.set_viewport_size(DESKTOP)
    url = generate_github_url(page, channel)
    assert url.startswith(f"{server.url}/api/v1/external/github?api_key=")
    assert url.endswith(f"&stream={stream_id}")
    dialog = page.locator("#integrations")
    dialog.get_by_role("button", name="Copy").click()
    expect(dialog.get_by_text("Copied.")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == url
    docs = dialog.get_by_role("link", name="GitHub setup steps")
    expect(docs).to_have_attribute("href", "https://zulip.com/integrations/doc/github")

    # The new bot is mine, an incoming-webhook bot, and listed on the page.
    bots = {bot["full_name"]: bot for bot in person.ok("GET", "/bots")["bots"]}
    name = dialog.get_by_label("Posted by").locator("option:checked").inner_text()
    assert name in bots and bots[name]["api_key"] in url
    state = person.ok("POST", "/register", fetch_event_types=["realm_user"])
    made = next(user for user in state["realm_users"] if user["full_name"] == name)
    assert made["bot_type"] == 2 and made["bot_owner_id"] == person.user_id  # type: ignore[attr-defined]
    expect(dialog.locator(".integration-bot", has_text=name)).to_contain_text("No recent notices")

    # GitHub posts a push to the copied URL; the channel shows it.
    push = load_fixture("github", "push__1_commit")
    answer = httpx.post(url, json=push["payload"], headers=push["headers"], timeout=30)
    assert answer.status_code == 200, answer.text
    dialog.get_by_role("button", name="Close").click()
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-hooks")
    expect(message_with(page, "pushed 1 commit to branch main")).to_be_visible()
    expect(message_with(page, "pushed 1 commit to branch main")).to_contain_text(name)
    expect(page.locator("#messages")).to_contain_text("Hello-World / main")

    # A delivery to a channel that does not exist: the owner is told, and the open page shows
    # it at once.
    open_integrations(page)
    expect(dialog.locator(".integration-bot", has_text=name)).to_contain_text("No recent notices")
    missing = re.sub(r"stream=\d+", "stream=no-such-channel", url)
    answer = httpx.post(missing, json=push["payload"], headers=push["headers"], timeout=30)
    assert answer.status_code == 200, answer.text
    notices = dialog.get_by_role("list", name=f"Notices about {name}")
    expect(notices).to_contain_text("no-such-channel")
    expect(notices).to_contain_text("does not exist")
    expect(dialog.locator(".integration-bots")).not_to_contain_text("null")

    # An existing bot can be chosen again: the same key, a topic of my own.
    page.fill("#integration-filter", "")
    dialog.get_by_label("GitHub", exact=True).check()
    dialog.get_by_label("Send to").select_option(label=f"#{channel}")
    dialog.get_by_label("Posted by").select_option(label=name)
    expect(dialog.get_by_label("New bot's name")).to_be_hidden()
    dialog.get_by_label("Topic (optional)").fill("our repo")
    dialog.get_by_role("button", name="Generate URL").click()
    expect(page.locator("#integration-url")).to_have_value(f"{url}&topic=our+repo")
    assert len(person.ok("GET", "/bots")["bots"]) == len(bots)

    # Only some events (Zulip's only_events) and GitHub's own options, which the server then
    # applies.
    dialog.get_by_text("Only some events").click()
    dialog.get_by_role("group", name="Events to send").get_by_label("push_commits").check()
    dialog.get_by_label("Only these branches").fill("main, release")
    dialog.get_by_label("Exclude notifications from private repositories").check()
    dialog.get_by_role("button", name="Generate URL").click()
    only = (
        f"{url}&topic=our+repo&only_events=%5B%22push_commits%22%5D"
        "&branches=main%2C+release&ignore_private_repositories=true"
    )
    expect(dialog.locator("#integration-url")).to_have_value(only)
    ping = load_fixture("github", "ping")
    answer = httpx.post(only, json=ping["payload"], headers=ping["headers"], timeout=30)
    assert answer.status_code == 200, answer.text
    answer = httpx.post(only, json=push["payload"], headers=push["headers"], timeout=30)
    assert answer.status_code == 200, answer.text
    topic = [
        {"operator": "channel", "operand": stream_id},
        {"operator": "topic", "operand": "our repo"},
    ]
    got = person.ok("GET", "/messages", anchor="newest", num_before=10, num_after=0, narrow=topic)
    # The ping was left out; the push came through.
    assert len(got["messages"]) == 1 and "1 commit to branch main" in got["messages"][0]["content"]

    page.eval_on_selector(".integrations-body", "body => body.scrollTo(0, 0)")
    for scheme in ("light", "dark"):
        for label, viewport in (("desktop", DESKTOP), ("phone", PHONE_844)):
            page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
            page.set_viewport_size(viewport)
            page.screenshot(path=str(tmp_path / f"integrations-{scheme}-{label}.png"))
            dialog.locator(".integration-bots").scroll_into_view_if_needed()
            page.screenshot(path=str(tmp_path / f"integrations-bots-{scheme}-{label}.png"))
            page.eval_on_selector(".integrations-body", "body => body.scrollTo(0, 0)")
    print("screenshots in", tmp_path)

    # The conversation link opens the direct messages with Notification Bot.
    dialog.get_by_role("link", name="your conversation with Notification Bot").click()
    expect(page.locator("#integrations[open]")).to_have_count(0)
    expect(message_with(page, "no-such-channel")).to_be_visible()


def test_direct_message_url_has_no_channel_and_bad_names_are_refused(
    server: ServerProcess,
    open_page,  # type: ignore[no-untyped-def]
    make_user,  # type: ignore[no-untyped-def]
) -> None:
    person: Api = make_user("Dora Direct")
    page = open_page()
    log_in(page, server.url, person.email)
    open_integrations(page)
    dialog = page.locator("#integrations")
    dialog.get_by_role("button", name="Generate URL").click()
    expect(dialog.get_by_role("status").first).to_have_text("Pick an integration first.")
    dialog.get_by_label("Sentry", exact=True).check()
    dialog.get_by_label("Send to").select_option(label="Direct message to me")
    expect(dialog.get_by_label("Topic (optional)")).to_be_hidden()
    # The server's own refusal is shown as it is.
    dialog.get_by_label("New bot's name").fill("Dora Direct")
    dialog.get_by_role("button", name="Generate URL").click()
    expect(dialog.locator(".org-result.failed")).to_have_text("Name is already in use!")
    dialog.get_by_label("New bot's name").fill("Sentry alerts Bot")
    dialog.get_by_role("button", name="Generate URL").click()
    expect(page.locator("#integration-url")).to_have_value(
        re.compile(r"/api/v1/external/sentry\?api_key=\w+$")
    )
    page.evaluate("Object.defineProperty(navigator, 'clipboard', {value: undefined})")
    dialog.get_by_role("button", name="Copy").click()
    # Without the Clipboard API (plain http), the whole URL is selected and copied the old way.
    expect(dialog.get_by_text("Copied.")).to_be_visible()
    selected = "(b => b.id === 'integration-url' && b.selectionStart === 0"
    selected += " && b.selectionEnd === b.value.length)(document.activeElement)"
    assert page.evaluate(selected) is True
    bots = person.ok("GET", "/bots")["bots"]
    assert [bot["full_name"] for bot in bots] == ["Sentry alerts Bot"]
    assert bots[0]["username"].startswith("sentry-alerts-bot@")

    # A body that is not JSON: the owner's notice names the tool, not the bot; the page
    # shows it apart.
    url = dialog.locator("#integration-url").input_value()
    answer = httpx.post(url, content=b"not json", timeout=30)
    assert answer.status_code == 400, answer.text
    others = dialog.get_by_role("list", name="Other notices about integrations")
    expect(others).to_contain_text("Sentry integration")
    expect(dialog.locator(".integration-bot", has_text="Sentry alerts Bot")).to_contain_text(
        "No recent notices"
    )


def test_guests_are_not_offered_integrations(
    server: ServerProcess,
    owner: Api,
    open_page,  # type: ignore[no-untyped-def]
    make_user,  # type: ignore[no-untyped-def]
) -> None:
    guest: Api = make_user("Gus Guest")
    owner.ok("PATCH", f"/users/{guest.user_id}", role=600)  # type: ignore[attr-defined]
    page = open_page()
    log_in(page, server.url, guest.email)
    page.click("#settings-button")
    nav = page.get_by_role("navigation", name="Settings sections")
    expect(nav.get_by_role("button", name="Display")).to_be_visible()
    expect(nav.get_by_role("button", name="Integrations")).to_have_count(0)
    expect(page.get_by_role("button", name="Connect an integration")).to_have_count(0)
    assert (
        guest.post("/bots", full_name="Guest Bot", short_name="guest", bot_type=2).status_code
        == 400
    )


def test_axe_finds_no_serious_problems_on_the_integrations_page(
    server: ServerProcess,
    browser: Browser,
    make_user,  # type: ignore[no-untyped-def]
) -> None:
    script = axe_script()
    person: Api = make_user("Axel Integrations")
    channel = f"axe hooks {time.time_ns()}"
    subscribe(person, channel)
    problems: dict[str, list[dict[str, Any]]] = {}
    for scheme, viewport in (("light", DESKTOP), ("dark", DESKTOP), ("light", PHONE)):
        # axe is injected as an inline script, which the page's CSP forbids.
        context = browser.new_context(
            viewport=viewport,  # type: ignore[arg-type]
            color_scheme=scheme,  # type: ignore[arg-type]
            reduced_motion="reduce",
            bypass_csp=True,
        )
        try:
            page = context.new_page()
            log_in(page, server.url, person.email)
            open_integrations(page)
            tag = f"{scheme}-{viewport['width']}"
            found = axe_violations(page, script)
            if found:
                problems[f"form-{tag}"] = found
            if scheme == "light" and viewport is DESKTOP:
                generate_github_url(page, channel)
                found = axe_violations(page, script)
                if found:
                    problems[f"url-{tag}"] = found
        finally:
            context.close()
    assert not problems, problems

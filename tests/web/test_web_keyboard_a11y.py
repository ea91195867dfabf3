"""The web client's keyboard shortcuts, accessibility (axe-core in the page) and first-load size,
in a real browser against a real server."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.conftest import TEST_PASSWORD
from tests.support import web
from tests.support.api import Api
from tests.support.axe import axe_script, axe_violations
from tests.support.browser import DESKTOP, PHONE, log_in, message_with, subscribe
from tests.support.server import ServerProcess


def _conversation(make_user: Callable[..., Api]) -> tuple[Api, Api, Api, str, int]:
    """Three people talking in a channel of their own over two topics, with a code block, a
    mention, a quote, reactions and a direct message: (Ada, Bob, Carol, channel, its id)."""
    ada, bob, carol = (make_user(name) for name in ("Ada Lovelace", "Bob Builder", "Carol Chen"))
    for api in (ada, bob, carol):
        api.user_id = api.ok("GET", "/users/me")["user_id"]  # type: ignore[attr-defined]
    channel = f"design {time.time_ns() % 100000}"
    stream_id = subscribe(ada, channel, bob, carol)

    def say(api: Api, topic: str, content: str) -> int:
        sent = api.ok(
            "POST", "/messages", type="stream", to=stream_id, topic=topic, content=content
        )
        return int(sent["id"])

    say(bob, "logo", "I pushed three logo drafts to the shared folder. Thoughts?")
    first = say(carol, "logo", "The second one reads best at small sizes :+1:")
    say(ada, "logo", "Agreed with @**Carol Chen**. Can we try it on the dark theme too?")
    say(bob, "logo", "Sure, here is the colour I used:\n```css\n.logo { fill: #1d4ed8; }\n```")
    say(carol, "release", "> Ship on Friday?\n\nYes, if the **release notes** are ready.")
    last = say(bob, "release", "Notes are in the wiki, I will tag v1.4 tomorrow morning.")
    bob.ok("POST", f"/messages/{first}/reactions", emoji_name="+1")
    ada.ok("POST", f"/messages/{first}/reactions", emoji_name="+1")
    carol.ok("POST", f"/messages/{last}/reactions", emoji_name="tada")
    bob.ok("POST", "/messages", type="direct", to=[ada.user_id], content="Lunch at noon?")  # type: ignore[attr-defined]
    return ada, bob, carol, channel, stream_id


def test_keys_select_reply_jump_to_unread_and_show_the_cheat_sheet(
    server: ServerProcess,
    open_page,
    make_user,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    ada, bob, carol, _channel, stream_id = _conversation(make_user)
    page = open_page()
    log_in(page, server.url, ada.email)
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/logo")
    expect(message_with(page, "colour I used")).to_be_visible()
    # Unread elsewhere (all messages, shown at log-in, may have marked the rest read).
    carol.ok("POST", "/messages", type="stream", to=stream_id, topic="release", content="Tagged!")
    page.locator("#narrow-title").click()  # nothing focused: the keys go to the page

    # Up selects the newest message, k and up go back, j and down come forward.
    page.keyboard.press("ArrowUp")
    selected = page.locator("#messages article.message.selected")
    expect(selected).to_have_count(1)
    expect(selected).to_contain_text("colour I used")
    expect(selected).to_be_focused()
    page.keyboard.press("k")
    page.keyboard.press("ArrowUp")
    expect(selected).to_contain_text("second one reads best")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("j")
    expect(selected).to_contain_text("colour I used")
    page.keyboard.press("k")
    expect(selected).to_contain_text("dark theme too")
    expect(selected).to_have_attribute("aria-current", "true")
    # A live message does not lose the selection or the focus.
    bob.ok("POST", "/messages", type="stream", to=stream_id, topic="logo", content="One more")
    expect(message_with(page, "One more")).to_be_visible()
    expect(page.locator("#announce")).to_have_text(
        re.compile(r"^Bob Builder in # .* \u203a logo: One more$")
    )
    expect(selected).to_contain_text("dark theme too")
    expect(selected).to_be_focused()

    # r replies to the selected message's conversation, whatever the compose box said before.
    page.select_option("#compose-to", label="Direct message")
    selected.click()
    page.keyboard.press("r")
    expect(page.locator("#compose-content")).to_be_focused()
    expect(page.locator("#compose-to")).to_have_value(f"s:{stream_id}")
    expect(page.locator("#compose-topic")).to_have_value("logo")
    page.keyboard.type("Reply by keyboard")
    page.keyboard.press("Control+Enter")  # sends whether or not Enter does (enter_sends)
    sent = page.locator("#messages article.message:not(.echo)", has_text="Reply by keyboard")
    expect(sent).to_be_visible()  # the server's copy, not the local echo
    mine = [{"operator": "sender", "operand": "me"}]
    newest = ada.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0, narrow=mine)
    newest = newest["messages"][0]
    assert (newest["content"], newest["subject"]) == ("<p>Reply by keyboard</p>", "logo"), newest
    assert newest["stream_id"] == stream_id

    # Esc leaves the field; n goes to the next unread topic; Esc again goes back to all messages.
    page.keyboard.press("Escape")
    expect(page.locator("#compose-content")).not_to_be_focused()
    page.keyboard.press("n")
    expect(page).to_have_url(re.compile(rf"#narrow/channel/{stream_id}-.*/topic/release$"))
    expect(message_with(page, "Tagged!")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page).to_have_url(re.compile(r"#feed$"))
    expect(page.locator("#narrow-title")).to_have_text("All messages")

    # ? opens the cheat sheet: a modal dialog listing the keys; Esc closes it and the focus
    # comes back to where it was.
    page.locator("#search-input").focus()
    page.keyboard.press("Tab")
    focused_before = page.evaluate("document.activeElement.id")
    page.keyboard.press("?")
    sheet = page.get_by_role("dialog", name="Keyboard shortcuts")
    expect(sheet).to_be_visible()
    for text in ("New topic", "New direct message", "Reply to the selected message", "Search"):
        expect(sheet).to_contain_text(text)
    expect(sheet.locator("kbd", has_text="?")).to_be_visible()
    page.screenshot(path=str(tmp_path / "shortcuts.png"))
    page.keyboard.press("c")  # keys do nothing behind a modal dialog
    expect(sheet).to_be_visible()
    page.keyboard.press("Escape")
    expect(sheet).to_be_hidden()
    assert page.evaluate("document.activeElement.id") == focused_before
    # The settings dialog gives the focus back too.
    page.keyboard.press("Enter")
    expect(page.get_by_role("dialog", name="Settings")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#settings-button")).to_be_focused()
    # Every control on the way through the page shows where the focus is.
    page.locator("#search-input").focus()
    seen = set()
    for _ in range(25):
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "(() => { const e = document.activeElement, s = getComputedStyle(e);"
            " return [e.tagName + '#' + e.id + '.' + e.className + ' '"
            " + (e.textContent || '').slice(0, 20),"
            " s.outlineStyle, s.outlineWidth]; })()"
        )
        if focused[0].startswith("BODY#"):
            break  # past the last control: the focus left the page (as for the address bar)
        seen.add(focused[0])
        assert focused[1] != "none" and focused[2] != "0px", focused
    assert len(seen) > 15, seen
    # Live updates redraw the panes: the link with the keyboard focus keeps it.
    starred = page.locator("#left a", has_text="Starred messages")
    starred.focus()
    carol.ok("POST", "/messages", type="stream", to=stream_id, topic="release", content="Redrawn")
    expect(message_with(page, "Redrawn")).to_be_visible()
    expect(page.locator("#left a", has_text="Starred messages")).to_be_focused()


def test_axe_finds_no_serious_problems_on_the_main_views(
    server: ServerProcess,
    browser: Browser,
    make_user,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    script = axe_script()
    ada, _bob, _carol, _channel, stream_id = _conversation(make_user)
    problems: dict[str, list[dict[str, Any]]] = {}

    def check(name: str, page: Page) -> None:
        page.screenshot(path=str(tmp_path / f"{name}.png"))
        found = axe_violations(page, script)
        if found:
            problems[name] = found

    for scheme, viewport in (("light", DESKTOP), ("dark", DESKTOP), ("light", PHONE)):
        # Only here: axe is injected as an inline script, which the page's CSP forbids.
        context = browser.new_context(
            viewport=viewport,  # type: ignore[arg-type]
            color_scheme=scheme,  # type: ignore[arg-type]
            reduced_motion="reduce",
            bypass_csp=True,
        )
        try:
            page = context.new_page()
            log_in(page, server.url, ada.email)
            expect(message_with(page, "Lunch at noon")).to_be_visible()
            tag = f"{scheme}-{viewport['width']}"
            check(f"all-{tag}", page)
            page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/logo")
            expect(message_with(page, "colour I used")).to_be_visible()
            page.locator("#messages article.message").first.hover()
            check(f"topic-{tag}", page)
            if viewport is PHONE:
                page.click("#menu-toggle")
                expect(page.locator("#left")).to_be_visible()
                expect(page.locator("#left a").first).to_be_focused()  # the focus goes in
                check(f"menu-{tag}", page)
                page.keyboard.press("Escape")
                expect(page.locator("#left")).to_be_hidden()
                expect(page.locator("#menu-toggle")).to_be_focused()  # and comes back
            page.click("#settings-button")
            expect(page.get_by_role("dialog", name="Settings")).to_be_visible()
            check(f"settings-{tag}", page)
            page.keyboard.press("Escape")
            page.locator("#messages article.message").last.click()  # selects it
            page.keyboard.press("?")
            expect(page.get_by_role("dialog", name="Keyboard shortcuts")).to_be_visible()
            check(f"shortcuts-{tag}", page)
        finally:
            context.close()
    assert not problems, problems


def test_first_load_is_compressed_cached_and_under_200_kb(
    server: ServerProcess,
    open_page,
    make_user,  # type: ignore[no-untyped-def]
) -> None:
    person = make_user("Size Watcher")
    page = open_page()
    encodings: dict[str, tuple[str | None, str | None, str | None]] = {}

    def seen(response: Any) -> None:
        if "/static/" in response.url:
            headers = response.headers
            encodings[response.url] = (
                headers.get("content-encoding"),
                headers.get("vary"),
                headers.get("cache-control"),
            )

    page.on("response", seen)
    log_in(page, server.url, person.email)
    expect(page.locator("#compose-content")).to_be_visible()
    # What the browser fetched for the app: the shell, its stylesheet and every module.
    entries = page.evaluate(
        "[...performance.getEntriesByType('navigation'),"
        " ...performance.getEntriesByType('resource')]"
        ".filter(e => e.name.includes('/static/') || e.entryType === 'navigation')"
        ".map(e => ({name: e.name, transfer: e.transferSize, body: e.decodedBodySize}))"
    )
    modules = [e for e in entries if e["name"].endswith(".js")]
    assert any(e["name"].endswith("/js/main.js") for e in modules)
    assert any(e["name"].endswith("/js/views/keyboard.js") for e in modules)
    assert any(e["name"].endswith("/app.css") for e in entries)
    transferred = sum(e["transfer"] for e in entries)
    decoded = sum(e["body"] for e in entries)
    print(f"first load: {len(entries)} files, {transferred} bytes transferred, {decoded} decoded")
    assert 0 < transferred < 200_000, entries
    assert transferred < decoded / 2  # compressed
    for url, (encoding, vary, cache) in encodings.items():
        assert encoding == "gzip", url
        assert vary == "Accept-Encoding", url
        assert cache is not None and "immutable" in cache, url
    assert all(e["name"] in encodings for e in entries if e["name"] != page.url)


def test_assets_are_gzipped_only_when_the_browser_accepts_it(
    server: ServerProcess,
    make_user,  # type: ignore[no-untyped-def]
) -> None:
    person = make_user("Encoding Tester")
    with web.browser(server.url) as session:
        assert web.log_in(session, person.email, TEST_PASSWORD).status_code == 303
        shell = session.get("/").text
    css = re.search(r'href="(/static/[0-9a-f]+/app\.css)"', shell)
    assert css, shell
    with httpx.Client(base_url=server.url, timeout=30) as plain:
        original = plain.get(css.group(1), headers={"Accept-Encoding": "identity"})
        assert original.status_code == 200 and "content-encoding" not in original.headers
        cases = {
            "gzip, deflate, br, zstd": "gzip",  # what Chromium sends
            "br;q=1.0, gzip;q=0.5": "gzip",
            "*": "gzip",
            "GZIP": "gzip",
            "gzip;q=0": None,
            "*;q=0.1, gzip;q=0": None,
            "br": None,  # no brotli encoder in the standard library
            "deflate": None,
            "gzip;q=nonsense": None,
        }
        for accept, expected in cases.items():
            response = plain.get(css.group(1), headers={"Accept-Encoding": accept})
            assert response.status_code == 200, accept
            assert response.headers.get("content-encoding") == expected, accept
            assert response.headers["vary"] == "Accept-Encoding", accept
            assert "immutable" in response.headers["cache-control"], accept
            assert response.content == original.content, accept  # decoded by httpx
            if expected:
                assert int(response.headers["content-length"]) < len(original.content) / 2

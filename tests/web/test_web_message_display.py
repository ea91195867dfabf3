"""How messages look in a real browser: pictures as thumbnails that open in a viewer, other
uploads as file cards, mentions of you marked, syntax-highlighted code in both themes, and on
a touch phone the actions of the tapped message only.

Pictures and code: the server that emits Zulip's image-preview markup (thumbnails) and Pygments
markup is built separately; until then these tests give the client Zulip's exact markup by
rewriting the message HTML of GET /json/messages answers in the browser (the files themselves
are real uploads on the real server)."""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, Route, expect

from tests.support.api import Api
from tests.support.browser import DESKTOP, box, log_in, message_with
from tests.support.server import ServerProcess
from tests.test_uploads import upload

PHONE_844 = {"width": 390, "height": 844}
PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"


@pytest.fixture
def touch_page(open_page: Callable[..., Page]) -> Callable[..., Page]:
    """Phone pages with touch (no hover), in their own contexts; page errors fail the test."""
    return lambda color_scheme="light": open_page(
        PHONE_844, color_scheme, has_touch=True, is_mobile=True
    )


def rewrite_messages(page: Page, change: Callable[[str], str]) -> None:
    """Pass every message's rendered HTML of GET /json/messages through `change`."""

    def handle(route: Route) -> None:
        response = route.fetch()
        body = response.json()
        for message in body.get("messages", []):
            message["content"] = change(message["content"])
        route.fulfill(response=response, body=json.dumps(body))

    page.route(re.compile(r"/json/messages\?"), handle)


def placeholder(url: str, name: str) -> str:
    """Zulip's preview while the thumbnail is being made."""
    return (
        f'<div class="message_inline_image"><a href="{html.escape(url)}"'
        f' title="{html.escape(name)}">'
        '<img class="image-loading-placeholder" src="/static/images/loading/loader-black.svg">'
        "</a></div>"
    )


def tap_until_starred(star: Locator, message: Locator) -> None:
    """Tap the Star button until the message shows starred.

    A tap is aimed where the button was a moment before; a redraw of the list from a late
    event can move it in between and the tap lands beside it. Tapping "Star" again is safe:
    it only ever asks to add the flag.
    """
    starred = re.compile(r"\bstarred\b")
    for _ in range(3):
        if star.get_attribute("aria-pressed") == "true":
            break  # the last tap did land, only late
        star.tap()
        try:
            expect(message).to_have_class(starred, timeout=3000)
            return
        except AssertionError:
            pass
    expect(message).to_have_class(starred)


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def picture(page: Page) -> bytes:
    """A real picture to upload: a screenshot of the log-in page (1280 wide)."""
    return page.screenshot()


def test_pictures_show_as_thumbnails_that_open_in_a_viewer_and_files_as_cards(
    server: ServerProcess,
    open_page,
    touch_page,
    pair,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    person, other, _, stream_id = pair
    page = open_page()
    page.goto(f"{server.url}/login/")
    image = upload(other, "whiteboard.png", picture(page))["url"]
    pending = upload(other, "later.png", picture(page))["url"]
    report = upload(other, "report.pdf", PDF)["url"]
    content = f"Notes: [whiteboard.png]({image}) and [report.pdf]({report})"
    sent = other.ok("POST", "/messages", type="stream", to=stream_id, topic="pics", content=content)
    other.ok("POST", "/messages", type="stream", to=stream_id, topic="pics", content="Waiting:")
    # The server renders the preview and makes the thumbnail in the background.
    deadline = time.monotonic() + 30
    while (
        "/user_uploads/thumbnail/"
        not in other.ok("GET", f"/messages/{sent['id']}")["message"]["content"]
    ):
        assert time.monotonic() < deadline, "no thumbnail was made"
        time.sleep(0.2)

    def with_previews(rendered: str) -> str:
        # A thumbnail still being made (Zulip's placeholder markup), shown in another message.
        return rendered + placeholder(pending, "later.png") if "Waiting:" in rendered else rendered

    for viewport, scheme, name in (
        (DESKTOP, "light", "desktop-light"),
        (DESKTOP, "dark", "desktop-dark"),
        (None, "light", "phone-light"),
        (None, "dark", "phone-dark"),
    ):
        page = open_page(viewport, scheme) if viewport else touch_page(scheme)
        rewrite_messages(page, with_previews)
        log_in(page, server.url, person.email)
        page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/pics")
        message = message_with(page, "Notes:")
        thumb = message.get_by_role("link", name="View whiteboard.png")
        expect(thumb.locator("img")).to_be_visible()
        expect(thumb.locator("img")).to_have_js_property("complete", True)
        size = box(thumb.locator("img"))
        assert 0 < size["width"] <= 300 and 0 < size["height"] <= 200, size
        assert abs(size["width"] / size["height"] - 1280 / 800) < 0.05, size  # not distorted
        # The thumbnail still being made: a small spinner, its name said in words.
        waiting = message_with(page, "Waiting:").get_by_role("link", name="View later.png")
        expect(waiting.locator("img")).to_have_attribute("alt", "later.png (preparing a preview)")
        # Another file: a card with its kind, its name (the link) and a download button.
        card = message.locator(".file-card", has_text="report.pdf")
        expect(card.locator(".file-icon")).to_have_text("PDF")
        expect(card.get_by_role("link", name="report.pdf")).to_have_attribute("href", report)
        download = card.get_by_role("link", name="Download")
        expect(download).to_have_attribute("download", "report.pdf")
        expect(download).to_have_attribute("href", report)
        page.screenshot(path=tmp_path / f"pictures-{name}.png")

        # The viewer: full size, closed by Escape, by Close, or by a click outside.
        viewer = page.get_by_role("dialog", name="whiteboard.png")
        thumb.click()
        expect(viewer).to_be_visible()
        big = viewer.locator("img.lightbox-image")
        expect(big).to_have_attribute("src", image)
        expect(big).to_have_js_property("naturalWidth", 1280)
        page.screenshot(path=tmp_path / f"viewer-{name}.png")
        if name == "desktop-light":
            expect(viewer.get_by_role("button", name="Close")).to_be_focused()
            page.keyboard.press("Escape")
            expect(viewer).to_be_hidden()
            expect(thumb).to_be_focused()  # back where the person was
            page.keyboard.press("Enter")  # the thumbnail opens from the keyboard too
            expect(viewer).to_be_visible()
            viewer.get_by_role("button", name="Close").click()
            expect(viewer).to_be_hidden()
            thumb.click()
        viewport_size = page.viewport_size
        assert viewport_size is not None
        page.mouse.click(8, viewport_size["height"] - 8)  # outside the picture
        expect(viewer).to_be_hidden()
        # The finished thumbnail arrives by an edit event (rendering_only) in a live view.
        page.close()


def test_phone_shows_the_actions_of_the_tapped_message_only(
    server: ServerProcess,
    touch_page,
    pair,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    person, other, channel, stream_id = pair
    for n in range(4):
        other.ok(
            "POST",
            "/messages",
            type="stream",
            to=stream_id,
            topic="phone",
            content=f"Line {n}: a message long enough to reach the right edge of a phone screen",
        )
    person.ok("POST", "/messages", type="stream", to=stream_id, topic="phone", content="Mine")
    for scheme in ("light", "dark"):
        page = touch_page(scheme)
        assert page.evaluate("matchMedia('(hover: none)').matches")
        log_in(page, server.url, person.email)
        page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/phone")
        messages = page.locator("#messages article.message:not(.echo)")
        expect(messages).to_have_count(5)
        expect(page.locator("#messages .message-actions:visible")).to_have_count(0)
        page.screenshot(path=tmp_path / f"phone-untouched-{scheme}.png")
        tapped = message_with(page, "Line 1")
        tapped.locator(".content").tap()
        actions = page.locator("#messages .message-actions:visible")
        expect(actions).to_have_count(1)
        expect(tapped.locator(".message-actions")).to_be_visible()
        bar = box(tapped.locator(".message-actions"))
        # Over no text: not the tapped message's own, nor any other message's.
        texts = page.locator("#messages .content, #messages .sender-line, #messages h2")
        for n in range(texts.count()):
            found = texts.nth(n).bounding_box()  # None: not shown
            assert found is None or not overlaps(bar, found), texts.nth(n).inner_text()
        for n in (0, 2, 3):
            assert not overlaps(bar, box(message_with(page, f"Line {n}")))
        page.screenshot(path=tmp_path / f"phone-tapped-{scheme}.png")
        # Another tap moves them; the buttons work by touch.
        mine = message_with(page, "Mine")
        mine.locator(".content").tap()
        expect(actions).to_have_count(1)
        expect(mine.get_by_role("button", name="Edit")).to_be_visible()
        star = mine.get_by_role("button", name="Star")
        expect(star).to_be_visible()
        tap_until_starred(star, mine)
        page.screenshot(path=tmp_path / f"phone-own-{scheme}.png")
        # A long press (the browser's contextmenu) picks a message too.
        message_with(page, "Line 3").locator(".content").dispatch_event("contextmenu")
        expect(message_with(page, "Line 3").locator(".message-actions")).to_be_visible()
        expect(actions).to_have_count(1)
    # The other views at phone size, to look at: the menu, recent conversations, search, a DM.
    page = touch_page()
    log_in(page, server.url, person.email)
    page.locator("#menu-toggle").tap()
    expect(page.locator("#left")).to_be_in_viewport(ratio=1)
    page.screenshot(path=tmp_path / "phone-menu.png")
    page.locator("#menu-toggle").tap()
    views = {
        "recent": "#recent",
        "search": "#narrow/search/Line",
        "dm": f"#narrow/dm/{other.user_id}-Bob",
        "channel": f"#narrow/channel/{stream_id}-x",
    }
    for name, hash_ in views.items():
        page.goto(f"{server.url}/{hash_}")
        expect(page.locator("#messages .loading", has_text="Loading")).to_have_count(0)
        page.screenshot(path=tmp_path / f"phone-view-{name}.png")
    # The dialogs and popovers at phone size: the emoji picker, a profile card, settings.
    first = message_with(page, "Line 0")
    first.locator(".content").tap()
    first.get_by_role("button", name="Add reaction").tap()
    expect(page.locator(".emoji-picker")).to_be_visible()
    page.screenshot(path=tmp_path / "phone-emoji-picker.png")
    page.keyboard.press("Escape")
    expect(page.locator(".emoji-picker")).to_be_hidden()
    first.locator(".sender").tap()
    expect(page.locator(".profile-card")).to_be_visible()
    page.screenshot(path=tmp_path / "phone-profile-card.png")
    page.keyboard.press("Escape")
    page.locator("#settings-button").tap()
    expect(page.locator("#settings")).to_be_visible()
    page.screenshot(path=tmp_path / "phone-settings.png")
    assert channel


def test_mentions_of_you_are_marked(
    server: ServerProcess,
    open_page,
    pair,
    owner: Api,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    person, other, _, stream_id = pair
    me = person.ok("GET", "/users/me")
    mine = f"Ada Mention{stream_id}"
    person.ok("PATCH", "/settings", full_name=mine)
    bob = other.ok("GET", "/users/me")["full_name"]
    group = f"crew{stream_id}"
    owner.ok("POST", "/user_groups/create", name=group, description="d", members=[me["user_id"]])
    lines = {
        "you": f"@**{mine}** please look",
        "silent": f"@_**{mine}** said so",
        "group": f"@*{group}* meeting",
        "all": "@**all** heads up",
        "bob": f"@**{bob}|{other.user_id}** not you",
    }
    for text in lines.values():
        other.ok("POST", "/messages", type="stream", to=stream_id, topic="mentions", content=text)
    for scheme in ("light", "dark"):
        page = open_page(DESKTOP, scheme)
        log_in(page, server.url, person.email)
        page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/mentions")
        marked = {
            key: message_with(page, text.split("** ")[-1].split("* ")[-1])
            .locator(".user-mention, .user-group-mention")
            .evaluate("node => node.classList.contains('user-mention-me')")
            for key, text in lines.items()
        }
        # A silent mention carries the class, as in Zulip, but is not drawn as one for you.
        assert marked == {"you": True, "silent": True, "group": True, "all": True, "bob": False}
        colour = "node => getComputedStyle(node).backgroundColor"
        you = message_with(page, "please look").locator(".user-mention").evaluate(colour)
        silent = message_with(page, "said so").locator(".user-mention").evaluate(colour)
        someone = message_with(page, "not you").locator(".user-mention").evaluate(colour)
        assert you != someone and silent == someone
        expect(message_with(page, "please look")).to_have_class(re.compile(r"\bmentioned-me\b"))
        expect(message_with(page, "not you")).not_to_have_class(re.compile(r"\bmentioned-me\b"))
        page.screenshot(path=tmp_path / f"mentions-{scheme}.png")


PYGMENTS_PYTHON = (
    '<div class="codehilite" data-code-language="Python"><pre><span></span><code>'
    '<span class="nd">@cache</span>\n'
    '<span class="k">def</span><span class="w"> </span><span class="nf">greet</span>'
    '<span class="p">(</span><span class="n">name</span><span class="p">:</span> '
    '<span class="nb">str</span><span class="p">)</span> <span class="o">-&gt;</span> '
    '<span class="nb">str</span><span class="p">:</span>\n'
    '    <span class="c1"># say hello</span>\n'
    '    <span class="k">return</span> <span class="sa">f</span><span class="s2">"Hello, </span>'
    '<span class="si">{</span><span class="n">name</span><span class="si">}</span>'
    '<span class="s2">!"</span> <span class="o">*</span> <span class="mi">3</span>\n'
    "</code></pre></div>"
)


def test_code_blocks_are_highlighted_in_both_themes(
    server: ServerProcess,
    open_page,
    touch_page,
    pair,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    person, other, _, stream_id = pair
    source = (
        '@cache\ndef greet(name: str) -> str:\n    # say hello\n    return f"Hello, {name}!" * 3'
    )
    other.ok(
        "POST",
        "/messages",
        type="stream",
        to=stream_id,
        topic="code",
        content=f"Highlighted:\n```python\n{source}\n```",
    )

    def with_pygments(rendered: str) -> str:
        if "Highlighted:" not in rendered:
            return rendered
        # Zulip's markup for a fenced block (the server's Pygments output, as Zulip emits it).
        return "<p>Highlighted:</p>\n" + PYGMENTS_PYTHON

    expected = {
        # Pygments' "default" style in light, "monokai" in dark: keyword, comment, string.
        "light": ("rgb(0, 128, 0)", "rgb(61, 123, 123)", "rgb(186, 33, 33)"),
        "dark": ("rgb(102, 217, 239)", "rgb(149, 144, 119)", "rgb(230, 219, 116)"),
    }
    for scheme, (keyword, comment, string) in expected.items():
        for name, page in (("desktop", open_page(DESKTOP, scheme)), ("phone", touch_page(scheme))):
            rewrite_messages(page, with_pygments)
            log_in(page, server.url, person.email)
            page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/code")
            block = message_with(page, "Highlighted:").locator(".codehilite")
            expect(block).to_be_visible()
            colour = "node => getComputedStyle(node).color"
            assert block.locator(".k").first.evaluate(colour) == keyword
            assert block.locator(".c1").evaluate(colour) == comment
            assert block.locator(".s2").first.evaluate(colour) == string
            page.screenshot(path=tmp_path / f"code-{name}-{scheme}.png")

"""The compose box's tools in a real browser against a real server: autocomplete for mentions,
channels, topics and emoji (keyboard and ARIA), file uploads with progress and cancel, the
server-rendered preview, and the Enter-sends setting."""

from __future__ import annotations

import re
import time
from pathlib import Path

from playwright.sync_api import Page, Route, expect

from tests.support.api import Api
from tests.support.browser import PHONE, log_in, message_with
from tests.support.server import ServerProcess
from tests.test_uploads import PNG


def enter_sends(api: Api) -> bool:
    state = api.ok("POST", "/register", fetch_event_types=["user_settings"])
    return bool(state["user_settings"]["enter_sends"])


def wait_for(check, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def newest(api: Api) -> dict:  # type: ignore[type-arg]
    return api.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)["messages"][-1]  # type: ignore[no-any-return]


def test_autocomplete_mentions_channels_topics_emoji_and_enter_sends(
    server: ServerProcess,
    open_page,
    pair,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    person, other, channel, stream_id = pair
    other.ok("POST", "/messages", type="stream", to=stream_id, topic="release plans", content="x")
    bob = f"Bob Compose{stream_id}"  # a name of its own on the server the tests share
    other.ok("PATCH", "/settings", full_name=bob)
    page = open_page()
    log_in(page, server.url, person.email)
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/chat")
    box = page.locator("#compose-content")
    options = page.get_by_role("listbox", name="Suggestions").locator("visible=true")

    # The topic field offers the channel's known topics.
    page.fill("#compose-topic", "")
    page.locator("#compose-topic").type("rel")
    expect(page.get_by_role("option", name=re.compile("release plans"))).to_be_visible()
    expect(page.get_by_role("combobox", name="Topic")).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Enter")
    expect(page.locator("#compose-topic")).to_have_value("release plans")

    # @ people: the arrows move, Enter picks, Zulip's markup goes in.
    box.click()
    box.type(f"Hi @{bob}")
    expect(options.get_by_role("option").first).to_contain_text(bob)
    expect(box).to_have_attribute("aria-activedescendant", re.compile("typeahead-"))
    page.screenshot(path=str(tmp_path / "compose-mention-light.png"))
    page.keyboard.press("Enter")
    expect(box).to_have_value(f"Hi @**{bob}|{other.user_id}** ")
    # # channels with Tab, then : emoji; Esc closes a list and stays in the field.
    box.type("in #web")
    expect(options.get_by_role("option", name=re.compile(re.escape(channel)))).to_be_visible()
    page.keyboard.press("Tab")
    box.type(":tad")
    expect(options.get_by_role("option").first).to_contain_text("tada")
    page.keyboard.press("Enter")
    expect(box).to_have_value(f"Hi @**{bob}|{other.user_id}** in #**{channel}** :tada: ")
    box.type("@everyo")
    expect(options.get_by_role("option", name=re.compile("everyone"))).to_be_visible()
    page.keyboard.press("Escape")
    expect(options).to_have_count(0)
    expect(box).to_be_focused()
    box.press("Backspace")  # a list closed by Esc leaves the text as typed
    for _ in range(len("@everyo")):
        box.press("Backspace")
    page.keyboard.press("Enter")  # Enter sends (set so by the fixture)
    expect(box).to_have_value("")
    wait_for(lambda: "Hi" in newest(other)["content"])
    sent = newest(other)
    assert f'data-user-id="{other.user_id}"' in sent["content"]
    assert 'class="stream"' in sent["content"] and "emoji-1f389" in sent["content"]
    assert sent["subject"] == "release plans"
    assert other.ok("GET", f"/messages/{sent['id']}")["message"]["flags"] == ["mentioned"]

    # Enter-sends off: Enter is a new line, Ctrl+Enter sends; the setting is saved.
    switch = page.get_by_label("Enter sends")
    expect(switch).to_be_checked()
    switch.uncheck()
    wait_for(lambda: not enter_sends(person))
    box.click()
    box.type("line one")
    box.press("Enter")
    box.type("line two")
    expect(box).to_have_value("line one\nline two")
    box.press("Control+Enter")
    expect(box).to_have_value("")
    wait_for(lambda: newest(other)["content"] == "<p>line one<br>\nline two</p>")
    # Changed from another client: the switch follows (user_settings event).
    person.ok("PATCH", "/settings", enter_sends=True)
    expect(switch).to_be_checked()
    expect(box).to_have_attribute("placeholder", re.compile("Enter sends"))

    # The recipient: Direct message, then the person found by name.
    page.select_option("#compose-to", label="Direct message")
    expect(page.locator("#compose-topic")).to_be_hidden()
    page.get_by_role("combobox", name="Direct message recipients").type(bob)
    expect(options.get_by_role("option").first).to_contain_text(bob)
    page.keyboard.press("Enter")
    expect(page.locator(".dm-pill", has_text=bob)).to_be_visible()
    box.click()
    box.type("a direct one")
    box.press("Enter")
    wait_for(lambda: newest(other)["content"] == "<p>a direct one</p>")
    assert newest(other)["type"] == "private"


def paste_file(page: Page, name: str, data: bytes, event: str = "paste") -> None:
    page.evaluate(
        """([name, bytes, event]) => {
            const data = new DataTransfer();
            data.items.add(new File([new Uint8Array(bytes)], name, {type: "image/png"}));
            const box = document.getElementById("compose-content");
            const init = {bubbles: true, cancelable: true};
            box.dispatchEvent(event === "paste"
                ? new ClipboardEvent("paste", {...init, clipboardData: data})
                : new DragEvent("drop", {...init, dataTransfer: data}));
        }""",
        [name, list(data), event],
    )


def wait_held(page: Page, held: list[Route], count: int) -> None:
    """Wait until `count` requests are held; Playwright calls route handlers only while the
    test is inside a Playwright call, so wait in the page, not with time.sleep."""
    for _ in range(200):
        if len(held) >= count:
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"{len(held)} uploads held, not {count}")


def test_uploads_with_progress_and_cancel_then_preview(
    server: ServerProcess,
    open_page,
    pair,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    person, other, _channel, stream_id = pair
    page = open_page(color_scheme="dark")
    log_in(page, server.url, person.email)
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/files")
    box = page.locator("#compose-content")
    held: list[Route] = []
    page.route("**/json/user_uploads", lambda route: held.append(route))

    # Pasted: a progress row with Cancel while the upload runs, then the link.
    paste_file(page, "pasted.png", PNG)
    row = page.locator(".compose-uploads .upload", has_text="pasted.png")
    expect(row.get_by_role("progressbar")).to_be_visible()
    expect(box).to_have_value("[Uploading pasted.png…]()")
    wait_held(page, held, 1)
    page.screenshot(path=str(tmp_path / "compose-upload-dark.png"))
    held[0].continue_()
    expect(row).to_have_count(0)
    expect(box).to_have_value(re.compile(r"^\[pasted\.png\]\(/user_uploads/\d+/.+/pasted\.png\)$"))

    # Dropped, then cancelled: nothing is left of it.
    paste_file(page, "dropped.png", PNG, event="drop")
    cancelled = page.locator(".upload", has_text="dropped.png")
    wait_held(page, held, 2)
    cancelled.get_by_role("button", name="Cancel uploading dropped.png").click()
    expect(cancelled).to_have_count(0)
    expect(box).not_to_have_value(re.compile("dropped"))
    held[1].abort()  # the browser gave up on it; let Playwright's copy go too
    page.unroute("**/json/user_uploads")

    # Too large for the server's max_file_upload_size_mib: said at once, nothing uploaded.
    page.evaluate(
        """() => {
            const data = new DataTransfer();
            data.items.add(new File([new Uint8Array(26 * 1024 * 1024)], "huge.bin"));
            document.getElementById("compose-content").dispatchEvent(
                new ClipboardEvent("paste", {bubbles: true, clipboardData: data}));
        }"""
    )
    expect(page.locator(".compose-errors")).to_contain_text(
        '"huge.bin" is larger than the maximum file size for uploads (25 MiB).'
    )

    # By the button: the file chooser.
    page.set_input_files(
        "#compose-file", files=[{"name": "chosen.png", "mimeType": "image/png", "buffer": PNG}]
    )
    expect(box).to_have_value(re.compile(r"pasted\.png\)\n\[chosen\.png\]\(/user_uploads/"))

    # Preview: the server's rendering, then back to the text as it was.
    box.press("End")
    box.type(" and **bold**")
    text = box.input_value()
    page.get_by_role("button", name="Preview").click()
    preview = page.locator("#compose-preview")
    expect(preview.locator("strong")).to_have_text("bold")
    expect(preview.get_by_role("link", name="chosen.png")).to_have_attribute(
        "href", re.compile("^/user_uploads/")
    )
    expect(box).to_be_hidden()
    page.screenshot(path=str(tmp_path / "compose-preview-dark.png"))
    page.get_by_role("button", name="Edit").click()
    expect(box).to_have_value(text)
    box.press("Enter")
    sent = message_with(page, "bold")
    expect(sent.get_by_role("link", name="pasted.png")).to_be_visible()
    expect(sent.get_by_role("link", name="chosen.png")).to_be_visible()
    content = newest(other)["content"]
    assert content.count('<a href="/user_uploads/') == 2, content
    # The message claimed both uploads; the cancelled one never reached the server.
    attachments = person.ok("GET", "/attachments")["attachments"]
    assert sorted(a["name"] for a in attachments) == ["chosen.png", "pasted.png"]
    assert all(a["messages"] for a in attachments)
    page.set_viewport_size(PHONE)
    box.type(":smil")
    expect(page.get_by_role("listbox").get_by_role("option").first).to_be_visible()
    page.screenshot(path=str(tmp_path / "compose-emoji-phone-dark.png"))

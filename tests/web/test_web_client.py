"""The built-in web client in a real browser (Debian's Chromium driven by Playwright), against a
real server: log in, channels, sending, live messages from another client, unread counts,
narrowing by URL with the back button, reload, log-out, reconnecting after a restart, failed
sends, and user content never executing. Screenshots of the main views (desktop and phone,
light and dark) land in the test's output directory."""

from __future__ import annotations

import re
import time
from pathlib import Path

from playwright.sync_api import Route, expect

from tests.support.api import Api
from tests.support.browser import DESKTOP, PHONE, log_in, message_with, subscribe
from tests.support.server import ServerProcess


def test_a_person_logs_in_chats_narrows_and_logs_out(
    server: ServerProcess,
    open_page,
    pair,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    person, other, channel, stream_id = pair
    page = open_page()
    log_in(page, server.url, person.email)
    expect(page.locator("#left .channels")).to_contain_text(channel)
    expect(page.locator("#me")).to_have_text("Ada Browser")

    # Send in a channel and a topic: the local echo becomes the server's rendered message.
    page.click(f"#left .channels a:has-text('{channel}')")
    expect(page).to_have_url(re.compile(rf"#narrow/channel/{stream_id}-web-"))
    page.fill("#compose-topic", "plans")
    page.fill("#compose-content", "Hello **team**")
    page.press("#compose-content", "Shift+Enter")
    page.keyboard.type("second line")
    page.press("#compose-content", "Enter")
    sent = message_with(page, "Hello team")
    expect(sent.locator(".content strong")).to_have_text("team")
    expect(page.locator("#messages .echo")).to_have_count(0)
    latest = other.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)["messages"][
        -1
    ]
    assert latest["content"] == "<p>Hello <strong>team</strong><br>\nsecond line</p>"
    assert latest["subject"] == "plans" and latest["sender_id"] == person.user_id

    # Another person's message over the API appears live, under its topic header.
    other.ok("POST", "/messages", type="stream", to=stream_id, topic="plans", content="Live :tada:")
    expect(message_with(page, "Live")).to_be_visible()
    expect(message_with(page, "Live").locator(".emoji")).to_have_text("\U0001f389")  # :tada:
    expect(page.locator("#messages h2.recipient").last).to_contain_text("plans")

    # Narrow to the topic from its header; the URL is Zulip's, the back button works.
    page.locator("#messages h2.recipient a", has_text="plans").last.click()
    expect(page).to_have_url(re.compile(rf"#narrow/channel/{stream_id}-[^/]+/topic/plans$"))
    expect(page.locator("#narrow-title")).to_have_text(f"# {channel} \u203a plans")
    expect(page.locator("#left .topics")).to_contain_text("plans")
    page.screenshot(path=tmp_path / "topic-desktop.png")
    page.go_back()
    expect(page.locator("#narrow-title")).to_have_text(f"# {channel}")

    # Reload keeps the session; logging out ends it.
    page.reload()
    expect(page.locator("#narrow-title")).to_have_text(f"# {channel}")
    expect(message_with(page, "Live")).to_be_visible()
    page.click("#logout")
    expect(page).to_have_url(f"{server.url}/login/")
    page.goto(f"{server.url}/")
    expect(page).to_have_url(f"{server.url}/login/")


def test_unread_counts_fall_when_messages_are_seen(
    server: ServerProcess,
    open_page,
    pair,  # type: ignore[no-untyped-def]
) -> None:
    person, other, channel, stream_id = pair
    page = open_page()
    log_in(page, server.url, person.email)
    page.click("#left .views a:has-text('Starred messages')")  # a view without the new message
    sent = other.ok(
        "POST", "/messages", type="stream", to=stream_id, topic="news", content="Unseen"
    )
    channel_link = page.locator(f"#left .channels a:has-text('{channel}')")
    expect(channel_link.locator(".badge")).to_have_text("1")
    channel_link.click()
    expect(message_with(page, "Unseen")).to_be_visible()
    expect(channel_link.locator(".badge")).to_have_count(0)
    # Read on the server too (flags as another client of the same person sees them).
    for _ in range(50):
        flags = person.ok("GET", f"/messages/{sent['id']}")["message"]["flags"]
        if "read" in flags:
            break
        time.sleep(0.1)
    assert "read" in flags


def test_direct_messages_and_user_content_never_run(
    server: ServerProcess,
    open_page,
    make_user,
    pair,  # type: ignore[no-untyped-def]
) -> None:
    person, other, _, stream_id = pair
    mallory = make_user("Mallory")
    page = open_page()
    log_in(page, server.url, person.email)
    mallory.ok(
        "POST",
        "/messages",
        type="direct",
        to=[person.user_id],
        content='<script>window.pwned=2</script> <img src=x onerror="window.pwned=3"> hi',
    )
    dm = page.locator("#left .dms a", has_text="Mallory")
    expect(dm.locator(".badge")).to_have_text("1")
    dm.click()
    expect(page).to_have_url(re.compile(r"#narrow/dm/\d+-"))
    message = message_with(page, "hi")
    expect(message.locator(".sender")).to_have_text("Mallory")
    expect(message.locator(".content")).to_contain_text("<script>window.pwned=2</script>")
    assert page.locator("#messages img, #messages script").count() == 0
    # A topic is text: shown as written in its header and the left pane, never as HTML.
    topic = '<img src=x onerror="window.pwned=1">'
    other.ok("POST", "/messages", type="stream", to=stream_id, topic=topic, content="topic test")
    page.click("#left .views a:has-text('All messages')")
    expect(message_with(page, "topic test")).to_be_visible()
    expect(page.locator("#messages h2.recipient").last).to_contain_text(topic)
    assert page.locator("#messages img, #left img").count() == 0
    assert page.evaluate("window.pwned") is None
    page.go_back()
    # A reply from the compose box goes to that conversation.
    page.fill("#compose-content", "who are you?")
    page.press("#compose-content", "Enter")
    expect(message_with(page, "who are you?").locator(".content")).to_be_visible()
    expect(page.locator("#messages .echo")).to_have_count(0)
    latest = mallory.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)["messages"]
    assert latest[-1]["content"] == "<p>who are you?</p>"


def test_a_send_that_fails_stays_visible_until_retried(
    server: ServerProcess,
    open_page,
    pair,  # type: ignore[no-untyped-def]
) -> None:
    person, other, channel, stream_id = pair
    page = open_page()
    log_in(page, server.url, person.email)
    page.click(f"#left .channels a:has-text('{channel}')")
    page.fill("#compose-topic", "offline")
    page.context.set_offline(True)
    page.fill("#compose-content", "Written on a train")
    page.press("#compose-content", "Enter")
    echo = page.locator("#messages .echo.failed", has_text="Written on a train")
    expect(echo.locator(".echo-status")).to_contain_text("Not sent")
    page.context.set_offline(False)
    echo.get_by_role("button", name="Retry").click()
    expect(page.locator("#messages .echo")).to_have_count(0)
    expect(message_with(page, "Written on a train")).to_have_count(1)
    latest = other.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)["messages"]
    assert latest[-1]["content"] == "<p>Written on a train</p>"
    assert latest[-1]["subject"] == "offline" and latest[-1]["stream_id"] == stream_id


def test_a_sent_message_fetched_before_its_event_is_shown_once(
    server: ServerProcess,
    open_page,
    pair,  # type: ignore[no-untyped-def]
) -> None:
    """The server's copy can come by a fetch (another view, a scroll down) before its event:
    the local echo then gives way to it, not beside it."""
    person, other, channel, stream_id = pair
    page = open_page()
    log_in(page, server.url, person.email)
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/echoes")
    expect(page.locator("#narrow-title")).to_contain_text(channel)
    held: list[Route] = []
    page.route(re.compile(r"/json/events\?"), lambda route: held.append(route))
    page.wait_for_timeout(100)
    with page.expect_response(lambda r: r.url.endswith("/json/messages") and r.ok):
        page.fill("#compose-content", "Sent while the events wait")
        page.press("#compose-content", "Enter")
    # The events are held: no message event yet. A fetch of the topic brings the message in.
    page.click("#left .views a:has-text('All messages')")
    expect(page.locator("#narrow-title")).to_have_text("All messages")
    page.go_back()
    expect(message_with(page, "Sent while the events wait")).to_have_count(1)
    expect(page.locator("#messages .echo")).to_have_count(0)
    # Released (Playwright sends the held polls on), the events arrive: still one copy.
    page.unroute(re.compile(r"/json/events\?"))
    assert held
    other.ok("POST", "/messages", type="stream", to=stream_id, topic="echoes", content="After")
    expect(message_with(page, "After")).to_have_count(1)
    expect(message_with(page, "Sent while the events wait")).to_have_count(1)


def test_reconnects_after_a_server_restart(
    start_server,
    open_page,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    proc = start_server()
    owner = Api(proc.url, proc.owner_email, proc.owner_key)
    password = "a-long-web-password-1"
    email = "webber@example.com"
    owner.ok("POST", "/users", email=email, password=password, full_name="Web Ber")
    stream_id = subscribe(owner, "restarts")
    with Api(proc.url) as anonymous:
        key = anonymous.ok("POST", "/fetch_api_key", username=email, password=password)["api_key"]
    webber = Api(proc.url, email, key)
    webber.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": "restarts"}])
    page = open_page(PHONE)
    log_in(page, proc.url, email, password)
    page.goto(f"{proc.url}/#narrow/channel/{stream_id}-restarts")
    expect(page.locator("#narrow-title")).to_have_text("# restarts")
    proc.stop()
    expect(page.locator("#connection")).to_have_text("Reconnecting…")
    proc.start(port=proc.port)
    with Api(proc.url, proc.owner_email, proc.owner_key) as again:
        again.ok("POST", "/messages", type="stream", to=stream_id, topic="back", content="After")
    expect(message_with(page, "After")).to_be_visible(timeout=30000)
    expect(page.locator("#connection")).to_be_hidden()
    owner.close()
    webber.close()


def test_screenshots_of_the_main_views(
    server: ServerProcess,
    open_page,
    pair,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    person, other, channel, stream_id = pair
    for n, text in enumerate(["Morning! `code` and a [link](https://example.com)", "> quoted"]):
        other.ok("POST", "/messages", type="stream", to=stream_id, topic=f"topic {n}", content=text)
    person.ok("POST", "/messages", type="stream", to=stream_id, topic="topic 1", content="Reply")
    desktop = open_page(DESKTOP)
    log_in(desktop, server.url, person.email)
    desktop.click(f"#left .channels a:has-text('{channel}')")
    expect(desktop.locator("#narrow-title")).to_have_text(f"# {channel}")  # not the feed's welcome
    expect(message_with(desktop, "Reply")).to_be_visible()
    desktop.screenshot(path=tmp_path / "channel-desktop.png")
    dark = open_page(DESKTOP, color_scheme="dark")
    log_in(dark, server.url, person.email)
    dark.click(f"#left .channels a:has-text('{channel}')")
    expect(dark.locator("#narrow-title")).to_have_text(f"# {channel}")  # not the feed's welcome
    expect(message_with(dark, "Reply")).to_be_visible()
    background = dark.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(27, 31, 36)", background  # the dark theme, from the system setting
    dark.screenshot(path=tmp_path / "channel-desktop-dark.png")
    phone = open_page(PHONE)
    log_in(phone, server.url, person.email)
    expect(phone.locator("#left")).not_to_be_in_viewport()
    phone.screenshot(path=tmp_path / "feed-phone.png")
    phone.click("#menu-toggle")
    expect(phone.locator("#left")).to_be_in_viewport(ratio=1)
    phone.screenshot(path=tmp_path / "menu-phone.png")
    phone.locator(f"#left .channels a:has-text('{channel}')").click()
    expect(phone.locator("#left")).not_to_be_in_viewport()
    expect(message_with(phone, "Reply")).to_be_visible()
    phone.screenshot(path=tmp_path / "channel-phone.png")
    for name in (
        "channel-desktop",
        "channel-desktop-dark",
        "feed-phone",
        "menu-phone",
        "channel-phone",
    ):
        assert (tmp_path / f"{name}.png").stat().st_size > 5000

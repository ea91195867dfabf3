"""The built-in web client in a real browser (Debian's Chromium driven by Playwright), against a
real server: log in, channels, sending, live messages from another client, unread counts,
narrowing by URL with the back button, reload, log-out, reconnecting after a restart, and user
content never executing. Screenshots of the main views land in the test's output directory."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.conftest import TEST_PASSWORD
from tests.support.api import Api
from tests.support.browser import chromium_executable
from tests.support.server import ServerProcess

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 780}


@pytest.fixture(scope="session")
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

    def factory(viewport: dict[str, int] = DESKTOP, color_scheme: str = "light") -> Page:
        # Reduced motion: no sliding menu half-way through a screenshot.
        context = browser.new_context(
            viewport=viewport,  # type: ignore[arg-type]
            reduced_motion="reduce",
            color_scheme=color_scheme,  # type: ignore[arg-type]
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


def message_with(page: Page, text: str):  # type: ignore[no-untyped-def]
    return page.locator("#messages article.message", has_text=text)


@pytest.fixture
def pair(server: ServerProcess, make_user: Callable[..., Api]) -> tuple[Api, Api, str, int]:
    """Two people in a fresh channel: (the browser's person, the other one, channel, id)."""
    person = make_user("Ada Browser")
    person.user_id = person.ok("GET", "/users/me")["user_id"]  # type: ignore[attr-defined]
    other = make_user("Bob Api")
    other.user_id = other.ok("GET", "/users/me")["user_id"]  # type: ignore[attr-defined]
    name = f"web {time.time_ns()}"
    stream_id = subscribe(person, name, other)
    return person, other, name, stream_id


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
    expect(message_with(desktop, "Reply")).to_be_visible()
    desktop.screenshot(path=tmp_path / "channel-desktop.png")
    dark = open_page(DESKTOP, color_scheme="dark")
    log_in(dark, server.url, person.email)
    dark.click(f"#left .channels a:has-text('{channel}')")
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


def test_search_narrows_with_zulip_syntax_and_highlights(
    server: ServerProcess,
    open_page,
    pair,  # type: ignore[no-untyped-def]
) -> None:
    person, other, _channel, stream_id = pair
    word = f"pineapple{time.time_ns()}"
    other.ok("POST", "/messages", type="stream", to=stream_id, topic="fruit", content=f"A {word}!")
    other.ok("POST", "/messages", type="stream", to=stream_id, topic="veg", content=f"No {word}")
    other.ok("POST", "/messages", type="stream", to=stream_id, topic="fruit", content="Unrelated")
    page = open_page()
    log_in(page, server.url, person.email)
    page.fill("#search-input", word)
    page.press("#search-input", "Enter")
    expect(page).to_have_url(re.compile(rf"#narrow/search/{word}$"))
    expect(page.locator("#messages article.message")).to_have_count(2)
    expect(page.locator("#messages .content .highlight").first).to_have_text(word)
    page.fill("#search-input", f"topic:fruit {word}")
    page.press("#search-input", "Enter")
    expect(page.locator("#messages article.message")).to_have_count(1)
    expect(message_with(page, f"A {word}")).to_be_visible()
    expect(page.locator("#narrow-title")).to_have_text(f"Search: topic:fruit {word}")
    page.go_back()
    expect(page.locator("#messages article.message")).to_have_count(2)
    expect(page.locator("#search-input")).to_have_value(word)


def test_star_react_edit_and_delete_own_messages(
    server: ServerProcess,
    open_page,
    pair,  # type: ignore[no-untyped-def]
) -> None:
    person, other, _channel, stream_id = pair
    mine = person.ok("POST", "/messages", type="stream", to=stream_id, topic="acts", content="Mine")
    theirs = other.ok(
        "POST", "/messages", type="stream", to=stream_id, topic="acts", content="Theirs"
    )
    page = open_page()
    log_in(page, server.url, person.email)
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/acts")
    their_message = message_with(page, "Theirs")
    expect(their_message.locator(".edit")).to_have_count(0)  # not one's own
    their_message.hover()
    their_message.get_by_role("button", name="Star").click()
    expect(their_message.get_by_role("button", name="Unstar")).to_be_visible()
    assert "starred" in person.ok("GET", f"/messages/{theirs['id']}")["message"]["flags"]
    their_message.get_by_role("button", name="React with thumbs up").click()
    expect(their_message.locator(".reaction.mine")).to_contain_text("1")
    # Another person's reaction arrives live and adds to the count.
    other.ok("POST", f"/messages/{theirs['id']}/reactions", emoji_name="+1")
    expect(their_message.locator(".reaction.mine")).to_contain_text("2")
    their_message.locator(".reaction.mine").click()  # take one's own back
    expect(their_message.locator(".reaction")).to_contain_text("1")
    expect(their_message.locator(".reaction.mine")).to_have_count(0)
    reactions = person.ok("GET", f"/messages/{theirs['id']}")["message"]["reactions"]
    assert [r["user_id"] for r in reactions] == [other.user_id]

    own = message_with(page, "Mine")
    own.hover()
    own.get_by_role("button", name="Edit").click()
    editor = page.get_by_role("textbox", name="Edit message")
    expect(editor).to_have_value("Mine")
    editor.fill("Mine, *edited*")
    editor.press("Enter")
    edited = message_with(page, "Mine, edited")
    expect(edited.locator(".content em")).to_have_text("edited")
    expect(edited.locator(".edited")).to_be_visible()
    assert person.ok("GET", f"/messages/{mine['id']}")["message"]["content"] == (
        "<p>Mine, <em>edited</em></p>"
    )
    # Another person's edit of their own message shows live too.
    other.ok("PATCH", f"/messages/{theirs['id']}", content="Theirs, changed")
    expect(message_with(page, "Theirs, changed")).to_be_visible()
    page.once("dialog", lambda dialog: dialog.accept())
    edited.hover()
    edited.get_by_role("button", name="Delete").click()
    expect(message_with(page, "Mine, edited")).to_have_count(0)
    gone = person.get(f"/messages/{mine['id']}")
    assert gone.status_code == 400 and gone.json()["msg"] == "Invalid message(s)"


def test_people_with_presence_and_typing_both_ways(
    server: ServerProcess,
    open_page,
    pair,
    make_user,  # type: ignore[no-untyped-def]
) -> None:
    person, other, _, _ = pair
    absent = make_user("Zed Absent")  # never online
    absent_id = absent.ok("GET", "/users/me")["user_id"]
    other.ok("POST", "/users/me/presence", status="active")
    queue = other.ok("POST", "/register", event_types=["typing"])
    page = open_page()
    log_in(page, server.url, person.email)
    people = page.locator("#people")
    # (The session's server has many people of these names: each is found by user id.)
    bob = people.locator(f"li[data-user-id='{other.user_id}']")
    expect(bob).to_have_class("person active")
    expect(bob).to_contain_text("Bob Api (active)")
    expect(people.locator(f"li[data-user-id='{person.user_id}']")).to_have_class("person active")
    expect(people.locator(f"li[data-user-id='{absent_id}']")).to_contain_text(
        "Zed Absent (offline)"
    )
    bob.get_by_role("link").click()
    expect(page).to_have_url(re.compile(rf"#narrow/dm/{other.user_id}-Bob-Api$"))

    other.ok("POST", "/typing", op="start", type="direct", to=[person.user_id])
    expect(page.locator("#typing")).to_have_text("Bob Api is typing…")
    other.ok("POST", "/typing", op="stop", type="direct", to=[person.user_id])
    expect(page.locator("#typing")).to_have_text("")

    page.fill("#compose-content", "")
    page.type("#compose-content", "typing here")
    # Bob's own client hears Ada start typing to him (his own start/stop come first).
    starts: list[dict[str, object]] = []
    last = -1
    for _ in range(5):
        events = other.ok("GET", "/events", queue_id=queue["queue_id"], last_event_id=last)[
            "events"
        ]
        last = events[-1]["id"]
        starts += [
            e
            for e in events
            if e["type"] == "typing"
            and e["op"] == "start"
            and e["sender"]["user_id"] == person.user_id
        ]
        if starts:
            break
    assert starts, "no typing start from the browser"
    recipients = {r["user_id"] for r in starts[0]["recipients"]}  # type: ignore[attr-defined]
    assert recipients == {person.user_id, other.user_id}, starts


def test_settings_change_the_name_and_lead_to_the_api_key(
    server: ServerProcess,
    open_page,
    make_user,  # type: ignore[no-untyped-def]
) -> None:
    person = make_user("Old Name")
    page = open_page()
    log_in(page, server.url, person.email)
    expect(page.locator("#me")).to_have_text("Old Name")
    page.click("#settings-button")
    dialog = page.get_by_role("dialog", name="Settings")
    dialog.get_by_label("Full name").fill("New Name")
    dialog.get_by_role("button", name="Save").click()
    expect(dialog.get_by_role("status")).to_have_text("Saved.")
    expect(page.locator("#me")).to_have_text("New Name")  # through the realm_user event
    assert person.ok("GET", "/users/me")["full_name"] == "New Name"
    dialog.get_by_label("Full name").fill("")
    dialog.get_by_label("Full name").press("Enter")  # refused by the form, nothing sent
    assert person.ok("GET", "/users/me")["full_name"] == "New Name"
    dialog.get_by_role("link", name="Your API key and zuliprc").click()
    expect(page.locator("#api_key")).to_have_text(str(person.api_key))


def test_keyboard_shortcuts_reach_search_and_compose(
    server: ServerProcess,
    open_page,
    pair,  # type: ignore[no-untyped-def]
) -> None:
    person, _, channel, stream_id = pair
    page = open_page()
    log_in(page, server.url, person.email)
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/keys")
    expect(page.locator("#narrow-title")).to_contain_text("keys")
    page.locator("body").press("/")
    expect(page.locator("#search-input")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#search-input")).not_to_be_focused()
    page.keyboard.press("c")
    expect(page.locator("#compose-content")).to_be_focused()
    expect(page.locator("#compose-content")).to_have_value("")  # the key was not typed
    expect(page.locator("#compose-topic")).to_have_value("keys")
    page.keyboard.press("Escape")
    page.keyboard.press("x")
    expect(page.locator("#compose-to")).to_be_focused()
    page.keyboard.press("Escape")
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-x")
    expect(page.locator("#narrow-title")).to_have_text(f"# {channel}")
    page.keyboard.press("c")
    expect(page.locator("#compose-topic")).to_be_focused()  # a channel view asks for a topic


def test_uploaded_files_linked_in_messages_open_with_the_session(
    server: ServerProcess,
    open_page,
    pair,  # type: ignore[no-untyped-def]
) -> None:
    from tests.test_uploads import PNG, upload

    person, other, _, stream_id = pair
    url = upload(other, "dot.png", PNG)["url"]
    page = open_page()
    log_in(page, server.url, person.email)
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/files")
    other.ok(
        "POST", "/messages", type="stream", to=stream_id, topic="files", content=f"[dot]({url})"
    )
    link = message_with(page, "dot").get_by_role("link", name="dot")
    expect(link).to_have_attribute("href", url)
    response = page.context.request.get(f"{server.url}{url}")
    assert response.status == 200 and response.body() == PNG


def test_drafts_are_kept_per_conversation_across_reloads(
    server: ServerProcess,
    open_page,
    pair,  # type: ignore[no-untyped-def]
) -> None:
    person, other, _, stream_id = pair
    page = open_page()
    log_in(page, server.url, person.email)
    topic_a = f"{server.url}/#narrow/channel/{stream_id}-x/topic/a"
    page.goto(topic_a)
    page.fill("#compose-content", "half-written for a")
    page.goto(f"{server.url}/#narrow/dm/{other.user_id}-Bob")
    expect(page.locator("#compose-content")).to_have_value("")
    page.fill("#compose-content", "for Bob")
    page.goto(topic_a)
    expect(page.locator("#compose-content")).to_have_value("half-written for a")
    page.reload()
    expect(page.locator("#compose-content")).to_have_value("half-written for a")
    # Changing the topic while writing takes the text along; sending clears the draft.
    page.fill("#compose-topic", "b")
    page.press("#compose-content", "Enter")
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/b")
    expect(message_with(page, "half-written for a")).to_have_count(1)
    expect(page.locator("#messages .echo")).to_have_count(0)
    latest = other.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)["messages"]
    assert latest[-1]["subject"] == "b", latest
    assert latest[-1]["content"] == "<p>half-written for a</p>"
    expect(page.locator("#compose-content")).to_have_value("")
    page.goto(f"{server.url}/#narrow/dm/{other.user_id}-Bob")
    expect(page.locator("#compose-content")).to_have_value("for Bob")


# The browser's Notification API, recorded (headless Chromium shows nothing to look at), and
# the page as if in the background.
RECORD_NOTIFICATIONS = """
window.shownNotifications = [];
window.Notification = class {
  static permission = "default";
  static requestPermission() {
    window.Notification.permission = "granted";
    return Promise.resolve("granted");
  }
  constructor(title, options) { window.shownNotifications.push({ title, body: options.body }); }
};
document.hasFocus = () => false;
"""


def test_direct_messages_and_mentions_raise_desktop_notifications(
    server: ServerProcess,
    open_page,
    pair,  # type: ignore[no-untyped-def]
) -> None:
    person, other, channel, stream_id = pair
    page = open_page()
    page.add_init_script(RECORD_NOTIFICATIONS)
    log_in(page, server.url, person.email)
    other.ok("POST", "/messages", type="direct", to=[person.user_id], content="before allowing")
    expect(page.locator("#left .dms")).to_contain_text("Bob Api")
    page.click("#settings-button")
    page.get_by_role("button", name="Enable desktop notifications").click()
    expect(page.get_by_role("dialog")).to_contain_text("Desktop notifications are on.")
    page.get_by_role("button", name="Close").click()
    other.ok("POST", "/messages", type="direct", to=[person.user_id], content="**psst** <b>")
    other.ok("POST", "/messages", type="stream", to=stream_id, topic="n", content="no mention")
    # (By id: the session's server has several people called Ada Browser.)
    mention = f"@**Ada Browser|{person.user_id}** hey"
    other.ok("POST", "/messages", type="stream", to=stream_id, topic="n", content=mention)
    page.wait_for_function("window.shownNotifications.length >= 2")
    page.wait_for_timeout(300)
    shown = page.evaluate("window.shownNotifications")
    assert shown == [
        {"title": "Bob Api", "body": "psst <b>"},
        {"title": f"Bob Api (#{channel} \u203a n)", "body": "@Ada Browser hey"},
    ], shown

"""The web client's features beyond chatting, in a real browser against a real server: search,
message actions, people and presence, typing, settings, keys, uploads, drafts and desktop
notifications."""

from __future__ import annotations

import re
import time

from playwright.sync_api import expect

from tests.conftest import TEST_PASSWORD
from tests.support.browser import log_in, message_with
from tests.support.server import ServerProcess


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
    bob.get_by_role("link").click()  # the profile card, which leads to the conversation
    page.get_by_role("button", name="Send direct message").click()
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
    # The key is shown only once the password is entered again, as in Zulip.
    page.get_by_label("Password").fill(TEST_PASSWORD)
    page.get_by_role("button", name="Show API key").click()
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
    page.keyboard.press("x")  # a new direct message: the people field
    expect(page.locator("#compose-dm")).to_be_focused()
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
    # Polled from here: wait_for_function's string predicates need eval, which the CSP forbids.
    shown: list[dict[str, str]] = []
    for _ in range(100):
        shown = page.evaluate("window.shownNotifications")
        if len(shown) >= 2:
            break
        page.wait_for_timeout(100)
    page.wait_for_timeout(300)  # and nothing more arrives
    shown = page.evaluate("window.shownNotifications")
    assert shown == [
        {"title": "Bob Api", "body": "psst <b>"},
        {"title": f"Bob Api (#{channel} \u203a n)", "body": "@Ada Browser hey"},
    ], shown


def test_a_new_subscription_appears_live_in_the_left_pane_and_compose(
    server: ServerProcess,
    open_page,
    pair,
    owner,  # type: ignore[no-untyped-def]
) -> None:
    person, _, _, stream_id = pair
    page = open_page()
    log_in(page, server.url, person.email)
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/kept")
    page.fill("#compose-content", "still here")
    name = f"added {time.time_ns()}"
    owner.ok(
        "POST",
        "/users/me/subscriptions",
        subscriptions=[{"name": name}],
        principals=[person.user_id],
    )
    expect(page.locator("#left .channels")).to_contain_text(name)
    expect(page.locator("#compose-to option", has_text=name)).to_have_count(1)
    # What was being written, and to where, is untouched.
    expect(page.locator("#compose-to")).to_have_value(f"s:{stream_id}")
    expect(page.locator("#compose-content")).to_have_value("still here")

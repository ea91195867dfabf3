"""The web client's personal settings, profile cards and user status, in a real browser
against a real server: theme, time zone and notifications stored and followed live by another
tab; avatar and password; a status seen live by another person; a card with a custom field
and the person's local time."""

from __future__ import annotations

import base64
import re
import time
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.conftest import TEST_PASSWORD
from tests.support.api import Api, assert_error, assert_success
from tests.support.browser import PHONE, log_in, message_with
from tests.support.server import ServerProcess

DARK_BG = "rgb(27, 31, 36)"
LIGHT_BG = "rgb(255, 255, 255)"
# A 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def settings_of(api: Api) -> dict[str, object]:
    settings: dict[str, object] = api.ok("POST", "/register", fetch_event_types=["user_settings"])[
        "user_settings"
    ]
    return settings


def background(page: Page) -> str:
    return str(page.evaluate("getComputedStyle(document.body).backgroundColor"))


def open_settings(page: Page, section: str) -> None:
    if not page.locator("#settings[open]").count():
        page.click("#settings-button")
    page.get_by_role("navigation", name="Settings sections").get_by_role(
        "button", name=section
    ).click()


def test_theme_time_zone_and_notifications_are_stored_and_followed_by_another_tab(
    server: ServerProcess,
    open_page,
    make_user,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    person = make_user("Theo Theme")
    page = open_page()  # the system is light
    log_in(page, server.url, person.email)
    other_tab = open_page()
    log_in(other_tab, server.url, person.email)
    open_settings(other_tab, "Notifications")
    assert background(page) == LIGHT_BG

    open_settings(page, "Display")
    page.get_by_label("Dark").check()
    expect(page.locator("html")).to_have_class("theme-dark")
    expect(page.locator("body")).to_have_css("background-color", DARK_BG)
    expect(other_tab.locator("html")).to_have_class("theme-dark")  # through the event
    assert settings_of(person)["color_scheme"] == 2
    page.get_by_label("Time zone").select_option("Asia/Tokyo")
    expect(page.locator(".settings .display .result")).to_have_text("Saved.")
    assert settings_of(person)["timezone"] == "Asia/Tokyo"
    assert person.ok("GET", "/users/me")["timezone"] == "Asia/Tokyo"

    open_settings(page, "Notifications")
    box = page.get_by_label("Email notifications for followed topics")
    expect(box).to_be_checked()
    box.uncheck()
    expect(other_tab.get_by_label("Email notifications for followed topics")).not_to_be_checked()
    assert settings_of(person)["enable_followed_topic_email_notifications"] is False
    page.screenshot(path=str(tmp_path / "settings-dark.png"))
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(tmp_path / "settings-dark-phone.png"))
    page.reload()  # the chosen theme comes back at once
    expect(page.locator("html")).to_have_class("theme-dark")
    # The settings button works once the client has registered (slower on PostgreSQL).
    expect(page.locator("#left .channels")).to_be_attached()
    open_settings(page, "Notifications")
    # Another client changes the theme: both tabs follow; "automatic" follows the system.
    person.ok("PATCH", "/settings", color_scheme=1)
    expect(page.locator("body")).to_have_css("background-color", LIGHT_BG)
    expect(other_tab.locator("html")).not_to_have_class("theme-dark")
    expect(other_tab.get_by_label("Automatic (as the system)")).to_be_checked()
    other_tab.get_by_label("Light").check()
    expect(page.get_by_label("Light")).to_be_checked()
    page.screenshot(path=str(tmp_path / "settings-light.png"))
    # A bad value is refused with the server's error and nothing changes.
    assert_error(
        person.patch("/settings", timezone="Mars/Base"),
        "Invalid timezone: Value error, Not a recognized time zone",
    )
    assert settings_of(person)["timezone"] == "Asia/Tokyo"


def test_avatar_and_password_change(
    server: ServerProcess,
    open_page,
    make_user,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    person = make_user("Pat Password")
    page = open_page()
    log_in(page, server.url, person.email)
    open_settings(page, "Profile")
    dialog = page.get_by_role("dialog", name="Settings")
    avatar = tmp_path / "me.png"
    avatar.write_bytes(PNG)
    dialog.get_by_label("Upload avatar").set_input_files(str(avatar))
    expect(dialog.get_by_text("Avatar uploaded.")).to_be_visible()
    expect(dialog.locator("img.user-avatar")).to_be_visible()  # from the realm_user event
    page.screenshot(path=str(tmp_path / "settings-profile.png"))
    assert "/user_avatars/" in person.ok("GET", "/users/me")["avatar_url"]
    dialog.get_by_role("button", name="Delete avatar").click()
    expect(dialog.locator("img.user-avatar")).to_have_count(0)
    assert "/user_avatars/" not in person.ok("GET", "/users/me")["avatar_url"]

    open_settings(page, "Account")
    dialog.get_by_label("Current password").fill("not my password")
    dialog.get_by_label("New password").fill("brand-new-secret-9")
    dialog.get_by_role("button", name="Change password").click()
    expect(dialog.get_by_text("Wrong password!")).to_be_visible()
    dialog.get_by_label("Current password").fill(TEST_PASSWORD)
    dialog.get_by_role("button", name="Change password").click()
    expect(dialog.get_by_text("Password changed.")).to_be_visible()
    anonymous = Api(server.url)
    old = anonymous.post("/fetch_api_key", username=person.email, password=TEST_PASSWORD)
    assert old.status_code == 401
    assert_success(
        anonymous.post("/fetch_api_key", username=person.email, password="brand-new-secret-9")
    )
    anonymous.close()
    page.reload()  # this browser's session goes on
    expect(page.locator("#me")).to_have_text("Pat Password")
    fresh = open_page()
    fresh.goto(f"{server.url}/login/")
    fresh.fill("#username", str(person.email))
    fresh.fill("#password", TEST_PASSWORD)
    fresh.click("button[type=submit]")
    expect(fresh.locator(".problem")).to_be_visible()  # the old password no longer logs in


def test_status_is_seen_live_and_the_profile_card_shows_fields_and_local_time(
    server: ServerProcess,
    open_page,
    pair,
    owner: Api,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    person, other, _channel, stream_id = pair
    team = owner.ok(
        "POST", "/realm/profile_fields", name=f"Team {time.time_ns()}", field_type=1, hint=""
    )["id"]
    site = owner.ok(
        "POST", "/realm/profile_fields", name=f"Site {time.time_ns()}", field_type=5, hint=""
    )["id"]
    person.ok(
        "PATCH",
        "/users/me/profile_data",
        data=[{"id": team, "value": "Compilers"}, {"id": site, "value": "https://ada.example/"}],
    )
    person.ok("PATCH", "/settings", timezone="Asia/Kolkata")
    person.ok("POST", "/messages", type="stream", to=stream_id, topic="cards", content="Hi all")

    mine = open_page()
    log_in(mine, server.url, person.email)
    theirs = open_page(color_scheme="dark")
    log_in(theirs, server.url, other.email)
    open_settings(mine, "Status")
    dialog = mine.get_by_role("dialog", name="Settings")
    dialog.get_by_role("button", name="Working remotely").click()
    expect(dialog.get_by_label("Status emoji name")).to_have_value("house")
    dialog.get_by_label("Status text").fill("Reviewing <b>patches</b>")
    dialog.get_by_role("button", name="Set status").click()
    expect(dialog.locator(".current-status")).to_have_text("🏠 Reviewing <b>patches</b>")
    mine.screenshot(path=str(tmp_path / "settings-status-light.png"))
    status = other.ok("GET", f"/users/{person.user_id}/status")["status"]
    assert status["status_text"] == "Reviewing <b>patches</b>" and status["emoji_name"] == "house"

    # The other person's browser shows it live in the people list and on the card.
    entry = theirs.locator(f"#people li[data-user-id='{person.user_id}']")
    expect(entry.locator(".user-status")).to_have_text("🏠Reviewing <b>patches</b>")
    theirs.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/cards")
    message_with(theirs, "Hi all").locator("button.sender").click()
    card = theirs.get_by_role("dialog", name="Ada Browser")
    expect(card).to_contain_text("Member")
    expect(card).to_contain_text("Compilers")
    expect(card.get_by_role("link", name="https://ada.example/")).to_have_attribute(
        "href", "https://ada.example/"
    )
    expect(card.locator(".local-time")).to_have_text(re.compile(r"\d+:\d\d.*\(Asia/Kolkata\)"))
    expect(card.locator(".user-status")).to_contain_text("Reviewing <b>patches</b>")
    expect(card.locator("b")).to_have_count(0)  # status text is text, never HTML
    theirs.screenshot(path=str(tmp_path / "profile-card-dark.png"))
    dialog.get_by_role("button", name="Clear status").click()
    expect(card.locator(".user-status")).to_have_count(0)  # the open card follows
    expect(entry.locator(".user-status")).to_have_count(0)
    card.get_by_role("button", name="Send direct message").click()
    expect(theirs).to_have_url(re.compile(rf"#narrow/dm/{person.user_id}-"))

"""The compose box and the tab in a real browser: one recipient control (a channel and topic,
or the people of a direct message), the length counter and the refusal of an over-long
message, text kept when the server refuses, "No search results", the unread count in the
tab's title and the favicon."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, Route, expect

from tests.support.api import Api
from tests.support.browser import DESKTOP, PHONE, log_in, message_with, subscribe
from tests.support.server import ServerProcess


def newest(api: Api) -> dict:  # type: ignore[type-arg]
    body = api.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)
    return body["messages"][-1]  # type: ignore[no-any-return]


def newest_in(api: Api, stream_id: int) -> dict:  # type: ignore[type-arg]
    narrow = [{"operator": "channel", "operand": stream_id}]
    body = api.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0, narrow=narrow)
    return body["messages"][-1]  # type: ignore[no-any-return]


def wait_for(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_one_recipient_control_for_channels_and_direct_messages(
    server: ServerProcess,
    open_page,
    pair,
    make_user,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    person, other, channel, stream_id = pair
    bob = f"Bob Recipient{stream_id}"
    other.ok("PATCH", "/settings", full_name=bob)
    carol_api = make_user(f"Carol Recipient{stream_id}")
    carol = f"Carol Recipient{stream_id}"
    for scheme, viewport, name in (
        ("light", DESKTOP, "desktop-light"),
        ("dark", DESKTOP, "desktop-dark"),
        ("light", PHONE, "phone-light"),
        ("dark", PHONE, "phone-dark"),
    ):
        page = open_page(viewport, scheme)
        log_in(page, server.url, person.email)
        page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/plans")
        to = page.get_by_role("combobox", name="Send to")
        topic = page.get_by_role("combobox", name="Topic")
        people = page.get_by_role("combobox", name="Direct message recipients")
        # A channel: the picker and the topic, nothing else.
        expect(to).to_have_value(f"s:{stream_id}")
        expect(topic).to_have_value("plans")
        expect(people).to_be_hidden()
        assert page.locator(".compose-recipient :is(input, select):visible").count() == 2
        page.screenshot(path=tmp_path / f"recipient-channel-{name}.png")
        if name != "desktop-light":
            page.close()
            continue
        # Direct message: the topic goes, the people field comes; names are found as typed.
        to.select_option(label="Direct message")
        expect(topic).to_be_hidden()
        expect(people).to_be_visible()
        people.fill(bob[:-2])
        expect(page.get_by_role("option", name=re.compile(re.escape(bob)))).to_be_visible()
        page.keyboard.press("Enter")  # picks; does not send
        expect(page.locator(".dm-pill", has_text=bob)).to_be_visible()
        people.fill(carol)
        page.keyboard.press("Enter")
        expect(page.locator(".dm-pill")).to_have_count(2)
        page.screenshot(path=tmp_path / "recipient-dm-two-desktop-light.png")
        # Backspace in the empty field takes the last person off; Remove, any.
        page.keyboard.press("Backspace")
        expect(page.locator(".dm-pill")).to_have_count(1)
        page.get_by_role("button", name=f"Remove {bob}").click()
        expect(page.locator(".dm-pill")).to_have_count(0)
        # Sending with nobody to send to: refused, and the text stays.
        box = page.locator("#compose-content")
        box.fill("for nobody")
        box.press("Enter")
        expect(page.locator("#compose-status")).to_have_text(
            "Please specify at least one valid recipient."
        )
        expect(box).to_have_value("for nobody")
        expect(people).to_be_focused()
        people.fill(bob)
        page.keyboard.press("Enter")
        box.fill("a direct one")
        box.press("Enter")
        wait_for(lambda: newest(other)["content"] == "<p>a direct one</p>")
        assert newest(other)["type"] == "private"
        # Back to the channel: its topic again, and a message goes there.
        to.select_option(f"s:{stream_id}")
        expect(people).to_be_hidden()
        expect(topic).to_be_visible()
        topic.fill("back")
        box.fill("in the channel")
        box.press("Enter")
        wait_for(lambda: newest_in(other, stream_id)["content"] == "<p>in the channel</p>")
        assert newest_in(other, stream_id)["subject"] == "back"
        # A direct message conversation opens with its people; `x` starts a new one.
        page.goto(f"{server.url}/#narrow/dm/{other.user_id}-Bob")
        expect(page.locator(".dm-pill", has_text=bob)).to_be_visible()
        expect(to).to_have_value("dm")
        page.screenshot(path=tmp_path / "recipient-dm-desktop-light.png")
        page.locator("#messages").click()
        page.keyboard.press("x")
        expect(people).to_be_focused()
        expect(page.locator(".dm-pill")).to_have_count(0)
        page.close()
    assert channel and carol_api


def test_an_over_long_message_is_counted_and_refused_and_nothing_is_lost(
    server: ServerProcess,
    open_page,
    pair,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    person, other, _, stream_id = pair
    limit = person.ok("POST", "/register", fetch_event_types=["realm"])["max_message_length"]
    before = newest_in(other, stream_id)["id"]
    for scheme, viewport, name in (
        ("light", DESKTOP, "desktop-light"),
        ("dark", PHONE, "phone-dark"),
    ):
        page = open_page(viewport, scheme)
        log_in(page, server.url, person.email)
        page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/long")
        box = page.locator("#compose-content")
        counter = page.locator("#compose-count")
        box.fill("short")
        expect(counter).to_be_hidden()
        near = "é" * (limit - 100)  # counted as the server counts: characters, not bytes
        box.fill(near)
        expect(counter).to_have_text(f"{limit - 100:,}/{limit:,}")
        expect(counter).not_to_have_class(re.compile(r"\bover\b"))
        too_long = "x" * 132_000
        box.fill(too_long)
        expect(counter).to_have_text(f"132,000/{limit:,}")
        expect(counter).to_have_class(re.compile(r"\bover\b"))
        expect(box).to_have_attribute("aria-invalid", "")
        box.press("Enter")
        expect(page.locator("#compose-status")).to_have_text(
            f"Message length shouldn't be greater than {limit} characters."
        )
        send = page.get_by_role("button", name="Send")
        expect(send).to_be_disabled()  # aria-disabled: shown as not available
        send.click(force=True)  # clicked anyway: refused the same way
        expect(box).to_have_value(too_long)  # nothing cleared
        expect(page.locator("#messages .echo")).to_have_count(0)
        page.screenshot(path=tmp_path / f"too-long-{name}.png")
        box.fill("x" * limit)  # exactly the limit goes
        expect(page.locator("#compose-status")).to_have_text("")
        box.press("Enter")
        expect(box).to_have_value("")
        wait_for(lambda last=before: newest_in(other, stream_id)["id"] > last)
        assert newest_in(other, stream_id)["content"] == f"<p>{'x' * limit}</p>"
        before = newest_in(other, stream_id)["id"]
        page.close()


def test_a_message_the_server_refuses_comes_back_into_the_compose_box(
    server: ServerProcess,
    open_page,
    pair,
    make_user,
    owner: Api,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    person, other, _, stream_id = pair
    leaving = make_user("Leaving Soon")
    page = open_page()
    log_in(page, server.url, person.email)
    page.goto(f"{server.url}/#narrow/dm/{leaving.user_id}-Leaving")
    expect(page.locator(".dm-pill", has_text="Leaving Soon")).to_be_visible()
    owner.ok("DELETE", f"/users/{leaving.user_id}")
    box = page.locator("#compose-content")
    box.fill("Are you still there?")
    box.press("Enter")
    status = page.locator("#compose-status")
    expect(status).to_contain_text("Not sent:")
    expect(status).to_contain_text("no longer using")
    expect(box).to_have_value("Are you still there?")
    expect(page.locator("#messages .echo")).to_have_count(0)
    page.screenshot(path=tmp_path / "refused-desktop.png")

    # A server error that is not the API's JSON (a proxy's 502 page): the same.
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/errors")

    def bad_gateway(route: Route) -> None:
        if route.request.method == "POST":
            route.fulfill(status=502, content_type="text/html", body="<h1>Bad gateway</h1>")
        else:
            route.continue_()

    page.route(re.compile(r"/json/messages$"), bad_gateway)
    box.fill("Through a broken proxy")
    box.press("Enter")
    expect(status).to_contain_text("HTTP 502")
    expect(box).to_have_value("Through a broken proxy")
    page.unroute(re.compile(r"/json/messages$"))
    box.press("Enter")
    expect(box).to_have_value("")
    expect(message_with(page, "Through a broken proxy")).to_have_count(1)
    expect(status).to_have_text("")
    expect(page.locator("#messages .echo")).to_have_count(0)
    assert newest_in(other, stream_id)["content"] == "<p>Through a broken proxy</p>"


def test_an_empty_search_says_no_search_results(
    server: ServerProcess,
    open_page,
    pair,  # type: ignore[no-untyped-def]
) -> None:
    person, _, _, _ = pair
    page: Page = open_page()
    log_in(page, server.url, person.email)
    page.fill("#search-input", f"nothing-matches-{time.time_ns()}")
    page.press("#search-input", "Enter")
    expect(page.locator("#messages .empty")).to_have_text("No search results.")
    expect(page.locator("#messages")).not_to_contain_text("No older messages")


def test_the_tab_title_counts_unread_messages_and_the_icon_loads(
    server: ServerProcess,
    open_page,
    pair,  # type: ignore[no-untyped-def]
) -> None:
    person, other, _, stream_id = pair
    elsewhere = f"elsewhere {time.time_ns()}"
    away = subscribe(person, elsewhere, other)
    # Start with nothing unread.
    person.ok("POST", "/mark_all_as_read")
    page = open_page()
    icons: list[int] = []
    page.on("response", lambda r: icons.append(r.status) if "favicon" in r.url else None)
    log_in(page, server.url, person.email)
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/here")
    expect(page).to_have_title(re.compile(r"^# web .* \u203a here - "))
    for n in range(3):
        other.ok("POST", "/messages", type="stream", to=away, topic="t", content=f"news {n}")
    expect(page).to_have_title(re.compile(r"^\(3\) # web .* \u203a here - "))
    page.goto(f"{server.url}/#narrow/channel/{away}-x/topic/t")
    expect(page).to_have_title(re.compile(rf"^# {re.escape(elsewhere)} \u203a t - "))  # read
    icon = page.evaluate("document.querySelector('link[rel=icon]').href")
    assert re.search(r"/static/[0-9a-f]+/images/favicon\.svg$", icon), icon
    response = page.context.request.get(icon)
    assert response.status == 200 and response.headers["content-type"] == "image/svg+xml"
    # What a browser asks for by itself, without a link: no 404.
    response = page.context.request.get(f"{server.url}/favicon.ico")
    assert response.status == 200 and response.headers["content-type"] == "image/png"
    assert icons and all(status == 200 for status in icons), icons

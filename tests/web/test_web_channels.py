"""Channels in the web client, in a real browser against a real server: the empty state, the
channel browser (filter, subscribe, unsubscribe, create), a channel's settings (adding and
removing subscribers as the permissions allow), an unsubscribed channel's view with
"Subscribe", and the compose box's warning when a mention names someone who is not
subscribed ("Subscribe them"). The other side is checked through the API. Screenshots of each
view, desktop and phone, light and dark, go to the test's directory (or TEAMCHAT_SCREENSHOTS)."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.conftest import TEST_PASSWORD
from tests.support.api import Api
from tests.support.axe import axe_script, axe_violations
from tests.support.browser import DESKTOP, log_in, message_with, subscribe
from tests.support.server import ServerProcess

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def shots(tmp_path: Path) -> Callable[[Page, str], None]:
    folder = Path(os.environ.get("TEAMCHAT_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)

    def take(page: Page, name: str) -> None:
        page.screenshot(path=str(folder / f"channels-{name}.png"))

    return take


def person(make_user: Callable[..., Api], name: str) -> Api:
    api = make_user(name)
    api.user_id = api.ok("GET", "/users/me")["user_id"]  # type: ignore[attr-defined]
    api.ok("PATCH", "/settings", enter_sends=True)
    return api


def leave_everything(api: Api) -> None:
    names = [s["name"] for s in api.ok("GET", "/users/me/subscriptions")["subscriptions"]]
    if names:
        api.ok("DELETE", "/users/me/subscriptions", subscriptions=names)


def subscribed_names(api: Api) -> set[str]:
    return {s["name"] for s in api.ok("GET", "/users/me/subscriptions")["subscriptions"]}


def members(api: Api, stream_id: int) -> set[int]:
    return set(api.ok("GET", f"/streams/{stream_id}/members")["subscribers"])


def eventually(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while not check():
        assert time.monotonic() < deadline, "not within 10 seconds"
        time.sleep(0.1)


def test_browse_subscribe_unsubscribe_and_create(
    server: ServerProcess,
    open_page,
    make_user,
    shots,  # type: ignore[no-untyped-def]
) -> None:
    stamp = time.time_ns()
    me = person(make_user, "Cleo Channels")
    other = person(make_user, "Olu Owner")
    name = f"gardening {stamp}"
    subscribe(other, name)
    other.ok(
        "PATCH",
        f"/streams/{other.ok('GET', '/get_stream_id', stream=name)['stream_id']}",
        description='"Tomatoes, **beans** and sunflowers"',
    )
    leave_everything(me)
    for scheme, viewport, label in (
        ("light", DESKTOP, "desktop-light"),
        ("dark", PHONE, "phone-dark"),
    ):
        page = open_page(viewport=viewport, color_scheme=scheme)
        log_in(page, server.url, me.email)
        if viewport is PHONE:
            page.click("#menu-toggle")
        empty = page.locator("#left .left-empty")
        expect(empty).to_contain_text("You are not subscribed to any channels.")
        shots(page, f"empty-{label}")
        if viewport is PHONE:
            page.click("#menu-toggle")  # closed: All messages says the same
        expect(page.locator("#channel-bar")).to_contain_text(
            "You are not subscribed to any channels."
        )
        shots(page, f"empty-all-{label}")
        if viewport is PHONE:
            page.click("#menu-toggle")
        empty.get_by_role("button", name="Browse channels").click()
        dialog = page.locator("#channels-dialog")
        expect(dialog).to_be_visible()
        page.fill("#channel-filter", f"gardening {stamp}")
        row = dialog.locator("li.channel-row", has_text=name)
        expect(row).to_have_count(1)
        expect(row.locator(".channel-description strong")).to_have_text("beans")
        expect(row.locator(".channel-count")).to_have_text("1 subscriber")
        shots(page, f"browser-{label}")
        page.fill("#channel-filter", "no channel is called this")
        expect(dialog.locator(".channel-none")).to_have_text("No channels match this filter.")
        page.fill("#channel-filter", name)
        if label == "desktop-light":
            row.get_by_role("button", name=f"Subscribe to {name}").click()
            expect(row.get_by_role("button", name=f"Unsubscribe from {name}")).to_be_visible()
            expect(row.locator(".channel-count")).to_have_text("2 subscribers")
            assert name in subscribed_names(me)
            expect(page.locator("#left .channels")).to_contain_text(name)
            expect(page.locator("#channel-bar")).to_be_hidden()
            dialog.get_by_role("tab", name="Subscribed", exact=True).click()
            expect(row).to_have_count(1)
            dialog.get_by_role("tab", name="Not subscribed").click()
            expect(row).to_have_count(0)
            dialog.get_by_role("tab", name="All channels").click()
            row.get_by_role("button", name=f"Unsubscribe from {name}").click()
            expect(row.get_by_role("button", name=f"Subscribe to {name}")).to_be_visible()
            eventually(lambda: name not in subscribed_names(me))
            expect(page.locator("#left .left-empty")).to_be_visible()
            expect(page.locator("#channel-bar")).to_be_visible()

        created = f"made here {stamp} {label}"
        dialog.get_by_role("button", name="Create channel").click()
        page.fill("#channel-create-name", created)
        page.fill("#channel-create-description", "Made in the browser")
        shots(page, f"create-{label}")
        dialog.get_by_role("button", name="Create", exact=True).click()
        expect(dialog).to_be_hidden()
        expect(page.locator("#narrow-title")).to_have_text(f"# {created}")
        assert created in subscribed_names(me)
        # A name that is taken: the server's error, in place.
        if viewport is PHONE:
            page.click("#menu-toggle")
        page.locator("#left [data-action=browse-channels]").first.click()
        dialog.get_by_role("button", name="Create channel").click()
        page.fill("#channel-create-name", created)
        dialog.get_by_role("button", name="Create", exact=True).click()
        expect(dialog.locator(".channels-result.failed")).to_contain_text("already exists")
        dialog.get_by_role("button", name="Close").click()
        leave_everything(me)


def test_channel_settings_add_and_remove_subscribers(
    server: ServerProcess,
    open_page,
    make_user,
    owner: Api,
    shots,  # type: ignore[no-untyped-def]
) -> None:
    stamp = time.time_ns()
    member = person(make_user, "Mara Member")
    bob = person(make_user, f"Bob Added {stamp}")
    maker = person(make_user, "Carl Creator")
    name = f"settings {stamp}"
    # Made by someone else: the member is no administrator of this channel.
    stream_id = subscribe(maker, name, member)
    page = open_page()
    log_in(page, server.url, member.email)
    page.locator("#left [data-action=browse-channels]").first.click()
    dialog = page.locator("#channels-dialog")
    page.fill("#channel-filter", name)
    dialog.get_by_role("button", name=f"Settings of {name}").click()
    expect(dialog.locator("#channels-title")).to_have_text(f"#{name}")
    expect(dialog.locator(".channel-subscriber")).to_have_count(2)
    page.select_option("#channel-add-person", str(bob.user_id))  # type: ignore[attr-defined]
    dialog.get_by_role("button", name="Add subscriber").click()
    added = dialog.locator(".channel-subscriber", has_text=f"Bob Added {stamp}")
    expect(added).to_have_count(1)
    assert bob.user_id in members(member, stream_id)  # type: ignore[attr-defined]
    expect(dialog.locator("#channel-subscribers-title")).to_have_text("Subscribers (3)")
    # A member may not unsubscribe others here (administrators may): no Remove button.
    expect(added.get_by_role("button", name="Remove")).to_have_count(0)
    shots(page, "settings-member-desktop-light")

    admin = person(make_user, "Ada Settings")
    owner.ok("PATCH", f"/users/{admin.user_id}", role=200)  # type: ignore[attr-defined]
    for scheme, viewport, label in (
        ("dark", DESKTOP, "desktop-dark"),
        ("light", PHONE, "phone-light"),
    ):
        admin_page = open_page(viewport=viewport, color_scheme=scheme)
        log_in(admin_page, server.url, admin.email)
        admin_dialog = admin_page.locator("#channels-dialog")
        if viewport is PHONE:
            admin_page.click("#menu-toggle")
            admin_page.locator("#left [data-action=browse-channels]").first.click()
            admin_page.fill("#channel-filter", name)
            admin_dialog.get_by_role("button", name=f"Settings of {name}").click()
        else:
            # The Organization area's channel list leads to the same page.
            admin_page.click("#org-button")
            admin_page.get_by_role("tab", name="Channels").click()
            admin_page.get_by_role("button", name=f"Subscribers of {name}").click()
        expect(admin_dialog.locator("#channels-title")).to_have_text(f"#{name}")
        row = admin_dialog.locator(".channel-subscriber", has_text=f"Bob Added {stamp}")
        shots(admin_page, f"settings-admin-{label}")
        if label == "desktop-dark":
            row.get_by_role("button", name=f"Remove Bob Added {stamp}").click()
            expect(row).to_have_count(0)
            eventually(lambda: bob.user_id not in members(admin, stream_id))  # type: ignore[attr-defined]
            # The member's open settings page follows (peer_remove).
            expect(dialog.locator(".channel-subscriber", has_text="Bob Added")).to_have_count(0)


def test_an_unsubscribed_channel_is_named_and_offers_subscribe(
    server: ServerProcess,
    open_page,
    make_user,
    shots,  # type: ignore[no-untyped-def]
) -> None:
    stamp = time.time_ns()
    me = person(make_user, "Uma Unsubscribed")
    other = person(make_user, "Theo There")
    name = f"elsewhere {stamp}"
    stream_id = subscribe(other, name)
    other.ok(
        "POST", "/messages", type="stream", to=stream_id, topic="hello", content="Before you came"
    )
    for scheme, viewport, label in (
        ("dark", DESKTOP, "desktop-dark"),
        ("light", PHONE, "phone-light"),
        ("dark", PHONE, "phone-dark"),
        ("light", DESKTOP, "desktop-light"),
    ):
        page = open_page(viewport=viewport, color_scheme=scheme)
        log_in(page, server.url, me.email)
        page.goto(f"{server.url}/#narrow/channel/{stream_id}-elsewhere")
        expect(page.locator("#narrow-title")).to_have_text(f"# {name}")
        bar = page.locator("#channel-bar")
        expect(bar).to_contain_text(f"You are not subscribed to #{name}")
        expect(message_with(page, "Before you came")).to_be_visible()
        shots(page, f"unsubscribed-{label}")
        if label != "desktop-light":
            continue
        bar.get_by_role("button", name="Subscribe").click()
        expect(bar).to_be_hidden()
        assert name in subscribed_names(me)
        expect(page.locator("#compose-to")).to_have_value(f"s:{stream_id}")
        page.fill("#compose-topic", "hello")
        page.fill("#compose-content", "Glad to be here")
        page.press("#compose-content", "Enter")
        expect(message_with(page, "Glad to be here")).to_be_visible()


def test_a_mention_of_someone_not_subscribed_warns_and_subscribes_them(
    server: ServerProcess,
    open_page,
    make_user,
    owner: Api,
    pair,
    shots,  # type: ignore[no-untyped-def]
) -> None:
    me, other, name, stream_id = pair
    other_name = other.ok("GET", "/users/me")["full_name"]
    stamp = time.time_ns()
    outsider = person(make_user, f"Nell Outside {stamp}")
    for scheme, viewport, label in (
        ("light", DESKTOP, "desktop-light"),
        ("dark", PHONE, "phone-dark"),
    ):
        page = open_page(viewport=viewport, color_scheme=scheme)
        log_in(page, server.url, me.email)
        page.goto(f"{server.url}/#narrow/channel/{stream_id}-web/topic/mentions")
        banner = page.locator("#compose .compose-banner")
        # Someone subscribed, and a silent mention: no warning.
        page.fill("#compose-content", f"@**{other_name}** and @_**Nell Outside {stamp}**")
        page.wait_for_timeout(400)
        expect(banner).to_have_count(0)
        page.fill("#compose-content", f"Hello @**Nell Outside {stamp}**, welcome")
        expect(banner).to_contain_text(f"Nell Outside {stamp} is not subscribed to #{name}")
        shots(page, f"mention-{label}")
        if label == "desktop-light":
            banner.get_by_role("button", name="Dismiss the warning about", exact=False).click()
            expect(banner).to_have_count(0)
            page.fill("#compose-content", "")
            page.goto(f"{server.url}/#narrow/channel/{stream_id}-web/topic/again")
            page.reload()
            page.fill("#compose-content", f"Hello @**Nell Outside {stamp}**")
            expect(banner).to_have_count(1)
            banner.get_by_role("button", name="Subscribe them").click()
            expect(banner).to_have_count(0)
            assert outsider.user_id in members(me, stream_id)  # type: ignore[attr-defined]
            page.fill("#compose-content", "")
            leave = {"subscriptions": [name], "principals": [outsider.user_id]}  # type: ignore[attr-defined]
            owner.ok("DELETE", "/users/me/subscriptions", **leave)
    # Someone who may not add subscribers is warned without the button (the channel's creator
    # administers it, and so may; the other subscriber may not once the organization says so).
    owner_groups = owner.ok("GET", "/user_groups")["user_groups"]
    ids = {g["name"]: g["id"] for g in owner_groups if g["is_system_group"]}
    owner.ok("PATCH", "/realm", can_add_subscribers_group={"new": ids["role:administrators"]})
    try:
        page = open_page()
        log_in(page, server.url, other.email)
        page.goto(f"{server.url}/#narrow/channel/{stream_id}-web/topic/mentions")
        page.fill("#compose-content", f"@**Nell Outside {stamp}**")
        banner = page.locator("#compose .compose-banner")
        expect(banner).to_contain_text("will not be notified of this mention")
        expect(banner.get_by_role("button", name="Subscribe them")).to_have_count(0)
        page.fill("#compose-content", "")
    finally:
        owner.ok("PATCH", "/realm", can_add_subscribers_group={"new": ids["role:members"]})


def sign_up_in_browser(open_page, url: str, stamp: int) -> Page:  # type: ignore[no-untyped-def]
    newcomer: Page = open_page()
    newcomer.goto(url)
    newcomer.fill("#email", f"newcomer{stamp}@example.com")
    newcomer.fill("#full_name", "Nia Newcomer")
    newcomer.fill("#password", TEST_PASSWORD)
    newcomer.click("button[type=submit]")
    expect(newcomer.locator("#left .channels")).to_be_attached()
    return newcomer


def test_the_invitation_form_ticks_the_default_channels(
    server: ServerProcess,
    open_page,
    make_user,
    owner: Api,
    shots,  # type: ignore[no-untyped-def]
) -> None:
    stamp = time.time_ns()
    admin = person(make_user, "Ines Inviter")
    owner.ok("PATCH", f"/users/{admin.user_id}", role=200)  # type: ignore[attr-defined]
    default, extra = f"welcome desk {stamp}", f"extra desk {stamp}"
    default_id = subscribe(admin, default)
    subscribe(admin, extra)
    owner.ok("POST", "/default_streams", stream_id=default_id)
    try:
        for scheme in ("light", "dark"):
            page = open_page(color_scheme=scheme)
            log_in(page, server.url, admin.email)
            page.click("#org-button")
            page.get_by_role("tab", name="Invitations").click()
            defaults = page.locator("#org-invite-defaults")
            expect(defaults).to_be_checked()
            default_box = page.locator("#organization .org-check", has_text=default).locator(
                "input"
            )
            extra_box = page.locator("#organization .org-check", has_text=extra).locator("input")
            expect(default_box).to_be_checked()
            expect(default_box).to_be_disabled()
            expect(extra_box).not_to_be_checked()
            shots(page, f"invite-{scheme}")
        extra_box.check()
        page.get_by_role("button", name="Create invitation link").click()
        expect(page.locator("#organization .org-form .org-result")).to_have_text("Link created.")
        link = page.locator("#org-invite-link")
        expect(link).to_have_value(re.compile(r"/join/[a-z0-9]+/$"))
        first_url = link.input_value()
        newcomer = sign_up_in_browser(open_page, first_url, stamp)
        expect(newcomer.locator("#left .channels")).to_contain_text(default)
        expect(newcomer.locator("#left .channels")).to_contain_text(extra)

        # Unticking "Default channels" lets the inviter untick each of them.
        defaults.uncheck()
        expect(default_box).to_be_enabled()
        expect(default_box).to_be_checked()
        default_box.uncheck()
        page.get_by_role("button", name="Create invitation link").click()
        expect(link).not_to_have_value(first_url)
        second = sign_up_in_browser(open_page, link.input_value(), stamp + 1)
        expect(second.locator("#left .channels")).to_contain_text(extra)
        expect(second.locator("#left .channels")).not_to_contain_text(default)
    finally:
        owner.ok("DELETE", "/default_streams", stream_id=default_id)


def test_axe_finds_no_serious_problems_in_the_channel_views(
    server: ServerProcess,
    browser: Browser,
    make_user,  # type: ignore[no-untyped-def]
    pair,  # type: ignore[no-untyped-def]
) -> None:
    script = axe_script()
    me, _other, name, stream_id = pair
    stamp = time.time_ns()
    person(make_user, f"Axe Outside {stamp}")
    elsewhere = f"axe elsewhere {stamp}"
    elsewhere_id = subscribe(person(make_user, "Axe Owner"), elsewhere)
    problems: dict[str, list[dict[str, Any]]] = {}

    def check(label: str, page: Page) -> None:
        found = axe_violations(page, script)
        if found:
            problems[label] = found

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
            tag = f"{scheme}-{viewport['width']}"
            log_in(page, server.url, me.email)
            page.goto(f"{server.url}/#narrow/channel/{elsewhere_id}-axe")
            expect(page.locator("#channel-bar")).to_be_visible()
            check(f"unsubscribed-{tag}", page)
            page.goto(f"{server.url}/#narrow/channel/{stream_id}-web/topic/axe")
            page.fill("#compose-content", f"@**Axe Outside {stamp}**")
            expect(page.locator("#compose .compose-banner")).to_be_visible()
            check(f"banner-{tag}", page)
            page.fill("#compose-content", "")
            if viewport is PHONE:
                page.click("#menu-toggle")
            page.locator("#left [data-action=browse-channels]").first.click()
            dialog = page.locator("#channels-dialog")
            expect(dialog.locator("li.channel-row").first).to_be_visible()
            check(f"browser-{tag}", page)
            page.fill("#channel-filter", name)
            dialog.get_by_role("button", name=f"Settings of {name}").click()
            expect(dialog.locator(".channel-subscriber").first).to_be_visible()
            check(f"settings-{tag}", page)
            dialog.get_by_role("button", name="Back to channels").click()
            dialog.get_by_role("button", name="Create channel").click()
            check(f"create-{tag}", page)
        finally:
            context.close()
    assert not problems, problems

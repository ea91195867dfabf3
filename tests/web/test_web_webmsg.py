"""Message actions and views in the web client, in a real browser against a real server: the
emoji picker, quote and reply, copy link, mark as unread from here, edit history, moving and
resolving topics where allowed, opening at the first unread message, recent conversations."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.support.api import Api
from tests.support.axe import axe_script, axe_violations
from tests.support.browser import DESKTOP, log_in, message_with, subscribe
from tests.support.server import ServerProcess


def plans_in(api: Api, stream_id: int, topic: str) -> list[str]:
    """The "Plan" messages in a topic (not the notification bot's "moved" notices)."""
    narrow = [
        {"operator": "channel", "operand": stream_id},
        {"operator": "topic", "operand": topic},
    ]
    body = api.ok(
        "GET",
        "/messages",
        anchor="newest",
        num_before=100,
        num_after=0,
        narrow=narrow,
        apply_markdown=False,
    )
    return [m["content"] for m in body["messages"] if m["content"].startswith("Plan")]


def send(api: Api, stream_id: int, topic: str, content: str) -> int:
    message = api.ok("POST", "/messages", type="stream", to=stream_id, topic=topic, content=content)
    return int(message["id"])


def reaction_names(api: Api, message_id: int) -> list[str]:
    message = api.ok("GET", f"/messages/{message_id}")["message"]
    return sorted(r["emoji_name"] for r in message["reactions"] if r["user_id"] == api.user_id)  # type: ignore[attr-defined]


def test_emoji_picker_searches_remembers_and_works_by_keyboard(
    server: ServerProcess,
    open_page,
    pair,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    person, other, _channel, stream_id = pair
    message_id = send(other, stream_id, "emoji", "React to me")
    page = open_page()
    log_in(page, server.url, person.email)
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/emoji")
    message = message_with(page, "React to me")
    message.hover()
    message.get_by_role("button", name="Add reaction").click()
    picker = page.get_by_role("dialog", name="Add a reaction")
    search = picker.get_by_role("combobox", name="Search emoji")
    expect(search).to_be_focused()
    search.fill("tada")
    expect(picker.get_by_role("option").first).to_have_attribute("aria-label", "tada")
    page.screenshot(path=tmp_path / "emoji-picker.png")
    search.press("Enter")
    expect(picker).to_have_count(0)
    expect(message.locator(".reaction.mine")).to_have_attribute("aria-label", "tada: 1")
    assert reaction_names(person, message_id) == ["tada"]

    # "+" beside the reactions: frequently used first; the keyboard moves and picks; Esc closes.
    message.get_by_role("button", name="Add reaction").last.click()
    frequent = picker.get_by_role("group", name="Frequently used")
    expect(frequent.get_by_role("option").first).to_have_attribute("aria-label", "tada")
    search.press("Escape")
    expect(picker).to_have_count(0)
    message.get_by_role("button", name="Add reaction").last.click()
    search.fill("heart")
    first = picker.get_by_role("option").first
    expect(first).to_have_attribute("aria-selected", "true")
    search.press("ArrowRight")
    second = picker.get_by_role("option").nth(1)
    expect(second).to_have_attribute("aria-selected", "true")
    expect(search).to_have_attribute("aria-activedescendant", second.get_attribute("id") or "")
    search.press("ArrowLeft")
    chosen = first.get_attribute("aria-label") or ""
    search.press("Enter")
    expect(message.locator(".reaction.mine")).to_have_count(2)
    assert reaction_names(person, message_id) == sorted(["tada", chosen.replace(" ", "_")])

    dark = open_page(DESKTOP, color_scheme="dark")
    log_in(dark, server.url, person.email)
    dark.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/emoji")
    dark_message = message_with(dark, "React to me")
    dark_message.get_by_role("button", name="Add reaction").last.click()
    # Frequently used lives in each browser's localStorage: a new browser starts without it.
    expect(dark.get_by_role("group", name="All emoji")).to_be_visible()
    expect(dark.get_by_role("group", name="Frequently used")).to_have_count(0)
    dark.screenshot(path=tmp_path / "emoji-picker-dark.png")


def test_quote_copy_link_mark_unread_and_edit_history(
    server: ServerProcess,
    open_page,
    pair,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    person, other, channel, stream_id = pair
    first = send(other, stream_id, "menu", "First **bold** words")
    second = send(other, stream_id, "menu", "Second")
    third = send(other, stream_id, "menu", "Third")
    person.ok("POST", "/messages/flags", messages=[first, second, third], op="add", flag="read")
    page = open_page()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    log_in(page, server.url, person.email)

    # Quote and reply from the combined feed: the topic opens, compose holds Zulip's quote.
    message = message_with(page, "First bold words")
    message.hover()
    message.get_by_role("button", name="More actions").click()
    page.get_by_role("menuitem", name="Quote and reply").click()
    expect(page).to_have_url(re.compile(rf"#narrow/channel/{stream_id}-.*/topic/menu$"))
    slug = channel.replace(" ", "-")
    link = f"{server.url}/#narrow/channel/{stream_id}-{slug}/topic/menu/near/{first}"
    expected = (
        f"@_**Bob Api|{other.user_id}** [said]({link}):\n```quote\nFirst **bold** words\n```\n"
    )
    compose = page.locator("#compose-content")
    expect(compose).to_be_focused()
    assert compose.input_value().startswith(expected)
    expect(page.locator("#compose-topic")).to_have_value("menu")

    # Copy link: the full near link is on the clipboard.
    message = message_with(page, "Second")
    message.hover()
    message.get_by_role("button", name="More actions").click()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page.get_by_role("status").filter(has_text="Link copied")).to_be_visible()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == link.replace(f"/near/{first}", f"/near/{second}")

    # Mark as unread from here: this message and the later one, and they stay unread on screen.
    message.hover()
    message.get_by_role("button", name="More actions").click()
    page.get_by_role("menuitem", name="Mark as unread from here").click()
    topic_item = page.locator("#left .topics li", has_text="menu")
    expect(topic_item.locator(".badge")).to_have_text("2")
    expect(page.locator("#messages article.message.unread")).to_have_count(2)
    page.wait_for_timeout(800)  # reading is paused: nothing is marked read again
    flags = {
        m["id"]: "read" in m["flags"]
        for m in person.ok(
            "GET",
            "/messages",
            anchor=first,
            num_before=0,
            num_after=3,
            narrow=[{"operator": "channel", "operand": stream_id}],
        )["messages"]
    }
    assert flags == {first: True, second: False, third: False}

    # Edit history: each version, the edit as the server's diff.
    other.ok("PATCH", f"/messages/{third}", content="Third, now longer")
    edited = message_with(page, "Third, now longer")
    expect(edited.locator(".edited")).to_be_visible()
    edited.hover()
    edited.get_by_role("button", name="More actions").click()
    page.get_by_role("menuitem", name="View edit history").click()
    dialog = page.get_by_role("dialog", name="Message edit history")
    expect(dialog.locator(".history-version")).to_have_count(2)
    expect(dialog.locator(".history-version").first).to_contain_text("Original")
    expect(dialog.locator(".highlight_text_inserted")).to_contain_text("now longer")
    page.screenshot(path=tmp_path / "edit-history.png")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)


def group_id(owner: Api, name: str) -> int:
    groups = owner.ok("GET", "/user_groups")["user_groups"]
    return int(next(g["id"] for g in groups if g["name"] == name))


def test_move_and_resolve_topics_where_allowed(
    server: ServerProcess,
    open_page,
    pair,
    owner: Api,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    person, other, _channel, stream_id = pair
    target_name = f"target {time.time_ns()}"
    target_id = subscribe(person, target_name)
    send(other, stream_id, "draft plan", "Plan A")
    send(other, stream_id, "draft plan", "Plan B")
    page = open_page()
    log_in(page, server.url, person.email)
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/draft.20plan")
    expect(page.get_by_text("Plan B", exact=True)).to_be_visible()

    # Rename from the left pane's topic menu; the view follows the topic.
    page.get_by_role("button", name="Topic actions: draft plan").first.click()
    page.get_by_role("menuitem", name="Move topic…").click()
    dialog = page.get_by_role("dialog", name="Move “draft plan”")
    dialog.get_by_label("New topic").fill("final plan")
    expect(dialog.get_by_label("Which messages")).to_have_value("change_all")
    page.screenshot(path=tmp_path / "move-topic.png")
    dialog.get_by_role("button", name="Move").click()
    expect(page).to_have_url(re.compile(r"/topic/final.20plan$"))
    expect(page.get_by_text("Plan A", exact=True)).to_be_visible()
    assert plans_in(person, stream_id, "final plan") == ["Plan A", "Plan B"]
    assert plans_in(person, stream_id, "draft plan") == []

    # Resolve from the topic header, then unresolve.
    page.locator("#messages h2.recipient").get_by_role("button", name="Topic actions").click()
    page.get_by_role("menuitem", name="Mark as resolved").click()
    expect(page).to_have_url(re.compile(r"/topic/.*final.20plan$"))
    expect(page.locator("#messages h2.recipient")).to_contain_text("✔ final plan")
    assert plans_in(person, stream_id, "✔ final plan") == ["Plan A", "Plan B"]
    page.locator("#messages h2.recipient").get_by_role("button", name="Topic actions").click()
    page.get_by_role("menuitem", name="Mark as unresolved").click()
    expect(page.locator("#messages h2.recipient")).not_to_contain_text("✔")

    # To another channel, only the header's (first) message (propagate_mode change_one).
    page.locator("#messages h2.recipient").get_by_role("button", name="Topic actions").click()
    page.get_by_role("menuitem", name="Move topic…").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("Channel").select_option(str(target_id))
    dialog.get_by_label("Which messages").select_option("change_one")
    dialog.get_by_role("button", name="Move").click()
    expect(page).to_have_url(re.compile(rf"#narrow/channel/{target_id}-.*/topic/final.20plan$"))
    assert plans_in(person, target_id, "final plan") == ["Plan A"]
    assert plans_in(person, stream_id, "final plan") == ["Plan B"]

    # Permission taken away while the page is open: the server's refusal is shown; after a
    # reload the menu is gone.
    admins = group_id(owner, "role:administrators")
    settings = (
        "can_resolve_topics_group",
        "can_move_messages_between_topics_group",
        "can_move_messages_between_channels_group",
    )
    owner.ok("PATCH", "/realm", **{name: {"new": admins} for name in settings})
    try:
        page.locator("#messages h2.recipient").get_by_role("button", name="Topic actions").click()
        page.get_by_role("menuitem", name="Mark as resolved").click()
        expect(page.locator("#connection")).to_contain_text("permission")
        assert plans_in(person, target_id, "final plan") == ["Plan A"]  # nothing changed
        page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/final.20plan")
        expect(page.get_by_text("Plan B", exact=True)).to_be_visible()
        expect(page.get_by_role("button", name=re.compile("Topic actions"))).to_have_count(0)
    finally:
        owner.ok(
            "PATCH",
            "/realm",
            can_resolve_topics_group={"new": group_id(owner, "role:everyone")},
            can_move_messages_between_topics_group={"new": group_id(owner, "role:everyone")},
            can_move_messages_between_channels_group={"new": group_id(owner, "role:members")},
        )


IN_VIEW = (
    "node => { const box = node.getBoundingClientRect();"
    " const list = document.getElementById('messages').getBoundingClientRect();"
    " return box.top >= list.top && box.bottom <= list.bottom; }"
)


def scrolled_into_view(page: Page, text: str) -> bool:
    return bool(message_with(page, text).evaluate(IN_VIEW))


def test_opens_at_first_unread_and_recent_conversations_update_live(
    server: ServerProcess,
    open_page,
    pair,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    person, other, channel, stream_id = pair
    old = [send(other, stream_id, "long", f"Old line {n}\n\nwith\n\nspace") for n in range(25)]
    person.ok("POST", "/messages/flags", messages=old, op="add", flag="read")
    # More than one batch (100) after the first unread: the rest load on scrolling down.
    new = [send(other, stream_id, "long", f"New line {n}\n\nwith\n\nspace") for n in range(105)]
    other.ok("POST", "/messages", type="direct", to=[person.user_id], content="A quick DM")
    page = open_page()
    log_in(page, server.url, person.email)
    # The feed opens at its first unread too and marks what it shows read: leave it, and make
    # all the new messages unread again before opening the topic.
    page.goto(f"{server.url}/#narrow/is/starred")
    expect(page.locator("#narrow-title")).to_have_text("Starred messages")
    person.ok("POST", "/messages/flags", messages=new, op="remove", flag="read")
    expect(page.locator("#left .channels .badge")).to_have_text("105")
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/long")
    expect(message_with(page, "New line 0")).to_be_visible()
    page.wait_for_function(
        f"() => ({IN_VIEW})([...document.querySelectorAll('#messages article.message')]"
        ".find((node) => node.textContent.includes('New line 0')))"
    )
    assert not scrolled_into_view(page, "Old line 0")
    assert not scrolled_into_view(page, "New line 11")
    expect(message_with(page, "New line 104")).to_have_count(0)
    page.locator("#messages").evaluate("node => { node.scrollTop = node.scrollHeight; }")
    expect(message_with(page, "New line 104")).to_have_count(1)
    # Opened above the newest again, the person's own new message brings the newest in.
    page.goto(f"{server.url}/#narrow/is/starred")
    expect(page.locator("#narrow-title")).to_have_text("Starred messages")
    page.wait_for_timeout(500)  # what the topic's list had seen is marked read by now
    person.ok("POST", "/messages/flags", messages=new, op="remove", flag="read")
    expect(page.locator("#left .channels .badge")).to_have_text("105")
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/long")
    expect(message_with(page, "New line 0")).to_be_visible()
    expect(page.get_by_text("Scroll down for newer messages")).to_be_attached()
    page.fill("#compose-content", "My own reply")
    page.press("#compose-content", "Enter")
    # The scroll to the bottom may fetch the message before the send's answer names it: for
    # that moment the local echo stands beside it, then gives way.
    sent = page.locator("#messages article.message:not(.echo)", has_text="My own reply")
    expect(sent).to_be_visible()
    expect(page.locator("#messages .echo")).to_have_count(0)
    expect(message_with(page, "My own reply")).to_have_count(1)
    expect(message_with(page, "New line 104")).to_have_count(1)

    page.get_by_role("link", name="Recent conversations").click()
    expect(page).to_have_url(re.compile(r"#recent$"))
    expect(page.locator("#narrow-title")).to_have_text("Recent conversations")
    rows = page.locator(".recent-row")
    expect(rows.first).to_contain_text("Bob Api")  # the DM, the newest
    long_row = rows.filter(has_text="long")
    expect(long_row).to_contain_text(f"# {channel}")
    expect(long_row.locator(".badge")).to_have_text(re.compile(r"^\d+$"))
    # Live: a new topic comes in on top.
    send(other, stream_id, "fresh news", "Just in")
    expect(rows.first).to_contain_text("fresh news")
    expect(rows.first.locator(".badge")).to_have_text("1")
    page.get_by_label("Filter conversations").fill("fresh")
    expect(rows).to_have_count(1)
    page.screenshot(path=tmp_path / "recent.png")
    page.get_by_label("Filter conversations").fill("")
    page.get_by_label("Unread only").check()
    expect(rows.filter(has_text="fresh news")).to_have_count(1)
    rows.first.get_by_role("link", name="fresh news").click()
    expect(message_with(page, "Just in")).to_be_visible()

    dark = open_page(DESKTOP, color_scheme="dark")
    log_in(dark, server.url, person.email)
    dark.goto(f"{server.url}/#recent")
    expect(dark.locator(".recent-row").first).to_be_visible()
    dark.screenshot(path=tmp_path / "recent-dark.png")


def test_axe_finds_no_serious_problems_in_the_pickers_menus_and_views(
    server: ServerProcess,
    browser: Browser,
    pair,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    person, other, _channel, stream_id = pair
    send(other, stream_id, "a11y", "Check me")
    other.ok("PATCH", f"/messages/{send(other, stream_id, 'a11y', 'Edit me')}", content="Edited")
    script = axe_script()
    problems: dict[str, list[dict[str, Any]]] = {}
    for scheme in ("light", "dark"):
        # axe is injected as an inline script, which the page's CSP forbids: bypassed here only.
        context = browser.new_context(
            viewport=DESKTOP,  # type: ignore[arg-type]
            color_scheme=scheme,  # type: ignore[arg-type]
            reduced_motion="reduce",
            bypass_csp=True,
        )
        try:
            page = context.new_page()
            log_in(page, server.url, person.email)

            def check(name: str, page: Page = page, scheme: str = scheme) -> None:
                page.screenshot(path=tmp_path / f"{name}-{scheme}.png")
                found = axe_violations(page, script)
                if found:
                    problems[f"{name}-{scheme}"] = found

            page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/a11y")
            message = message_with(page, "Check me")
            message.hover()
            message.get_by_role("button", name="Add reaction").click()
            expect(page.get_by_role("dialog", name="Add a reaction")).to_be_visible()
            check("emoji-picker")
            page.keyboard.press("Escape")
            message.hover()
            message.get_by_role("button", name="More actions").click()
            expect(page.get_by_role("menu")).to_be_visible()
            check("message-menu")
            page.keyboard.press("Escape")
            edited = message_with(page, "Edited")
            edited.hover()
            edited.get_by_role("button", name="More actions").click()
            page.get_by_role("menuitem", name="View edit history").click()
            expect(page.get_by_role("dialog", name="Message edit history")).to_be_visible()
            check("edit-history")
            page.keyboard.press("Escape")
            page.locator("#messages h2.recipient").get_by_role(
                "button", name="Topic actions"
            ).click()
            page.get_by_role("menuitem", name="Move topic…").click()
            expect(page.get_by_role("dialog", name="Move “a11y”")).to_be_visible()
            check("move-topic")
            page.keyboard.press("Escape")
            page.goto(f"{server.url}/#recent")
            expect(page.locator(".recent-row").first).to_be_visible()
            check("recent")
        finally:
            context.close()
    assert not problems, problems

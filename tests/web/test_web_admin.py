"""The web client's Organization area, in a real browser against a real server, as an
administrator uses it: invitations (a new person signs up with the link in another browser),
users' roles and deactivation, channels (a member sees a rename live), the organization's
profile, custom emoji and linkifiers (a message uses the new one). The other side is checked
through the API."""

from __future__ import annotations

import re
import time
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.conftest import TEST_PASSWORD
from tests.support.api import Api
from tests.support.browser import PHONE, log_in, message_with, subscribe
from tests.support.server import ServerProcess

# A 1x1 red PNG: a custom emoji's image.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
    "0000000c4944415478da63f8cfc000000301010018dd8db00000000049454e44ae426082"
)


def admin_of(make_user, owner: Api, name: str) -> Api:  # type: ignore[no-untyped-def]
    """A new person made an administrator (not an owner) by the owner."""
    admin: Api = make_user(name)
    admin.user_id = admin.ok("GET", "/users/me")["user_id"]  # type: ignore[attr-defined]
    owner.ok("PATCH", f"/users/{admin.user_id}", role=200)  # type: ignore[attr-defined]
    return admin


def open_tab(page: Page, tab: str) -> None:
    if not page.locator("#organization").is_visible():
        page.click("#org-button")
    page.get_by_role("tab", name=tab).click()


def shot(page: Page, tmp_path: Path, name: str) -> None:
    page.screenshot(path=str(tmp_path / f"{name}.png"))


def test_an_invitation_link_signs_a_new_person_up_and_is_revoked(
    server: ServerProcess,
    open_page,
    make_user,
    owner: Api,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    admin = admin_of(make_user, owner, "Ada Admin")
    channel = f"welcome {time.time_ns()}"
    stream_id = subscribe(admin, channel)
    page = open_page()
    log_in(page, server.url, admin.email)
    open_tab(page, "Invitations")
    # An email invitation to a bad address: the server's error, in place.
    page.select_option("#org-invite-kind", "email")
    page.fill("#org-invite-emails", "not an address")
    page.get_by_role("button", name="Send invitations").click()
    expect(page.locator("#organization .org-result.failed")).to_contain_text("not an address")

    invitee = f"invitee{time.time_ns()}@example.com"
    page.fill("#org-invite-emails", invitee)
    page.locator("#organization .org-check", has_text=channel).locator("input").check()
    page.get_by_role("button", name="Send invitations").click()
    # This server has no SMTP server: the dialog says no email went and gives the link.
    expect(page.locator("#organization .org-result.failed")).to_contain_text(
        "not set up to send email"
    )
    unsent = page.locator("#org-invite-unsent li", has_text=invitee)
    expect(unsent.locator("input")).to_have_value(re.compile(r"^http://.+/join/[a-z0-9]+/$"))
    shot(page, tmp_path, "invite-without-smtp")
    emailed = page.locator("#organization tr.org-invite", has_text=invitee)
    expect(emailed).to_contain_text("Ada Admin")
    emailed.get_by_role("button", name="Resend").click()
    expect(emailed.locator(".org-result")).to_contain_text("not set up to send email")
    assert any(i.get("email") == invitee for i in admin.ok("GET", "/invites")["invites"])

    page.select_option("#org-invite-kind", "link")
    page.select_option("#org-invite-role", "400")
    page.select_option("#org-invite-expiry", "1440")
    expect(
        page.locator("#organization .org-check", has_text=channel).locator("input")
    ).to_be_checked()
    page.get_by_role("button", name="Create invitation link").click()
    link = page.locator("#org-invite-link")
    expect(link).to_have_value(re.compile(r"/join/[a-z0-9]+/$"))
    url = link.input_value()
    # The list follows invites_changed: the new link is there, as the API has it.
    row = page.locator("#organization tr.org-invite", has_text=url)
    expect(row).to_contain_text("Member")
    invite = next(i for i in admin.ok("GET", "/invites")["invites"] if i.get("link_url") == url)
    assert invite["is_multiuse"] and invite["invited_as"] == 400
    shot(page, tmp_path, "org-invitations-light")

    newcomer = open_page()
    newcomer.goto(url)
    email = f"newcomer{time.time_ns()}@example.com"
    newcomer.fill("#email", email)
    newcomer.fill("#full_name", "Nia Newcomer")
    newcomer.fill("#password", TEST_PASSWORD)
    newcomer.click("button[type=submit]")
    expect(newcomer.locator("#left .channels")).to_contain_text(channel)
    expect(newcomer.locator("#org-button")).to_be_hidden()  # a member: no Organization area
    person = next(u for u in owner.ok("GET", "/users")["members"] if u["delivery_email"] == email)
    assert person["role"] == 400 and person["full_name"] == "Nia Newcomer"
    subscribers = admin.ok("GET", f"/streams/{stream_id}/members")["subscribers"]
    assert person["user_id"] in subscribers

    row.get_by_role("button", name="Revoke").click()
    row.get_by_role("button", name="Confirm revoke").click()
    expect(page.locator("#organization tr.org-invite", has_text=url)).to_have_count(0)
    assert all(i.get("link_url") != url for i in admin.ok("GET", "/invites")["invites"])


def test_roles_change_and_people_are_deactivated_and_reactivated(
    server: ServerProcess,
    open_page,
    make_user,
    owner: Api,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    admin = admin_of(make_user, owner, "Ada Roles")
    member = make_user(f"Mo Member {time.time_ns()}")
    member_id = member.ok("GET", "/users/me")["user_id"]
    page = open_page(color_scheme="dark")
    log_in(page, server.url, admin.email)
    open_tab(page, "Users")
    page.fill("#org-users-filter", member.email)
    row = page.locator("#organization tr.org-user", has_text=member.email)
    # An administrator cannot make owners: the choice is not offered.
    expect(row.locator("select.org-role option")).to_have_text(
        ["Administrator", "Moderator", "Member", "Guest"]
    )
    row.locator("select.org-role").select_option("300")
    expect(row.locator("select.org-role")).to_have_value("300")
    deadline = time.monotonic() + 10
    while member.ok("GET", "/users/me")["role"] != 300 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert member.ok("GET", "/users/me")["role"] == 300
    # A change made elsewhere shows here live.
    owner.ok("PATCH", f"/users/{member_id}", role=600)
    expect(row.locator("select.org-role")).to_have_value("600")
    shot(page, tmp_path, "org-users-dark")

    row.get_by_role("button", name="Deactivate").click()
    row.get_by_role("button", name="Confirm deactivating").click()
    gone = (
        page.locator("#organization .org-list").nth(1).locator("tr.org-user", has_text=member.email)
    )
    expect(gone).to_be_visible()
    assert owner.ok("GET", f"/users/{member_id}")["user"]["is_active"] is False
    gone.get_by_role("button", name="Reactivate").click()
    gone.get_by_role("button", name="Confirm reactivating").click()
    expect(
        page.locator("#organization .org-list").first.locator("tr.org-user", has_text=member.email)
    ).to_be_visible()
    assert owner.ok("GET", f"/users/{member_id}")["user"]["is_active"] is True
    # Oneself: no role change or deactivation from here.
    page.fill("#org-users-filter", admin.email)
    own = page.locator("#organization tr.org-user", has_text=admin.email)
    expect(own.locator("select")).to_have_count(0)
    expect(own.get_by_role("button")).to_have_count(0)
    page.set_viewport_size(PHONE)
    page.fill("#org-users-filter", "")
    shot(page, tmp_path, "org-users-phone-dark")
    # No longer an administrator: the area closes and its button goes, live; the server
    # refuses a member anyway.
    owner.ok("PATCH", f"/users/{admin.user_id}", role=400)  # type: ignore[attr-defined]
    expect(page.locator("#organization")).to_be_hidden()
    expect(page.locator("#org-button")).to_be_hidden()
    refused = admin.post("/invites/multiuse", invite_expires_in_minutes=60)
    assert refused.status_code == 400 and refused.json()["result"] == "error"


def test_a_channel_is_created_renamed_live_for_a_member_restricted_and_archived(
    server: ServerProcess,
    open_page,
    make_user,
    owner: Api,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    admin = admin_of(make_user, owner, "Ada Channels")
    member = make_user("Max Member")
    member.user_id = member.ok("GET", "/users/me")["user_id"]  # type: ignore[attr-defined]
    name = f"plans {time.time_ns()}"
    page = open_page()
    log_in(page, server.url, admin.email)
    open_tab(page, "Channels")
    page.fill("#org-channel-name", name)
    page.fill("#org-channel-description", "Where we *plan*")
    page.get_by_role("button", name="Create channel").click()
    row = page.locator("#organization tr.org-channel", has_text=name)
    expect(row.locator(".rendered em")).to_have_text("plan")
    stream_id = int(admin.ok("GET", "/get_stream_id", stream=name)["stream_id"])
    subscribe(admin, name, member)

    watcher = open_page()
    log_in(watcher, server.url, member.email)
    expect(watcher.locator("#left .channels")).to_contain_text(name)
    expect(watcher.locator("#org-button")).to_be_hidden()

    row.get_by_role("button", name="Edit").click()
    page.fill("#org-edit-name", f"{name} renamed")
    page.select_option("#org-edit-privacy", "private-protected")
    page.select_option("select[data-setting=can_send_message_group]", label="Administrators")
    page.get_by_role("button", name="Save changes").click()
    expect(page.locator("#organization .org-channel-editor .org-result")).to_have_text("Saved.")
    expect(watcher.locator("#left .channels")).to_contain_text(f"{name} renamed")
    expect(page.locator("#organization .org-channel-editor h3")).to_have_text(
        f"Edit #{name} renamed"
    )
    shot(page, tmp_path, "org-channels-light")
    stream = admin.ok("GET", f"/streams/{stream_id}")["stream"]
    assert stream["name"] == f"{name} renamed"
    assert stream["invite_only"] and not stream["history_public_to_subscribers"]
    groups = admin.ok("GET", "/user_groups")["user_groups"]
    admins = next(g["id"] for g in groups if g["name"] == "role:administrators")
    assert stream["can_send_message_group"] == admins
    denied = member.post("/messages", type="stream", to=stream_id, topic="t", content="hi")
    assert denied.status_code == 400, denied.text

    # Someone else changes the description meanwhile: saving here sends only what changed here.
    admin.ok("PATCH", f"/streams/{stream_id}", description="Set elsewhere")
    expect(
        page.locator("#organization tr.org-channel .rendered", has_text="Set elsewhere")
    ).to_be_visible()
    page.select_option("select[data-setting=can_send_message_group]", label="Members")
    page.get_by_role("button", name="Save changes").click()
    members = next(g["id"] for g in groups if g["name"] == "role:members")
    deadline = time.monotonic() + 10
    while admin.ok("GET", f"/streams/{stream_id}")["stream"]["can_send_message_group"] != members:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert admin.ok("GET", f"/streams/{stream_id}")["stream"]["description"] == "Set elsewhere"

    # A refused change: the server's message in place, nothing changed.
    page.fill("#org-edit-name", "general")
    page.get_by_role("button", name="Save changes").click()
    expect(page.locator("#organization .org-channel-editor .org-result.failed")).to_contain_text(
        "already"
    )
    assert admin.ok("GET", f"/streams/{stream_id}")["stream"]["name"] == f"{name} renamed"

    row = page.locator("#organization tr.org-channel", has_text=f"{name} renamed")
    row.get_by_role("button", name="Archive").click()
    row.get_by_role("button", name="Confirm archiving").click()
    expect(page.locator("#organization tr.org-channel", has_text=name)).to_have_count(0)
    expect(watcher.locator("#left .channels")).not_to_contain_text(name)
    assert admin.ok("GET", f"/streams/{stream_id}")["stream"]["is_archived"] is True


def test_profile_emoji_and_a_linkifier_a_message_then_uses(
    server: ServerProcess,
    open_page,
    make_user,
    owner: Api,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    admin = admin_of(make_user, owner, "Ada Profile")
    name = f"links {time.time_ns()}"
    stream_id = subscribe(admin, name)
    page = open_page()
    log_in(page, server.url, admin.email)
    open_tab(page, "Linkifiers")
    # A bad pattern: the server's error in place.
    page.fill("#org-linkifier-pattern", "(unclosed")
    page.fill("#org-linkifier-template", "https://example.com/{id}")
    page.get_by_role("button", name="Add linkifier").click()
    expect(page.locator("#organization .org-result.failed")).not_to_be_empty()
    tag = f"T{time.time_ns() % 100000}"
    page.fill("#org-linkifier-pattern", rf"{tag}-(?P<id>[0-9]+)")
    page.fill("#org-linkifier-template", "https://tracker.example.com/{id}")
    page.get_by_role("button", name="Add linkifier").click()
    row = page.locator("#organization tr.org-linkifier", has_text=tag)
    expect(row).to_contain_text("https://tracker.example.com/{id}")
    row_id = row.get_attribute("data-linkifier-id")
    # Editing turns the row's text into fields: find it by its id from now on.
    row = page.locator(f"#organization tr[data-linkifier-id='{row_id}']")
    row.get_by_role("button", name="Edit").click()
    row.get_by_role("textbox", name="URL template").fill("https://bugs.example.com/{id}")
    row.get_by_role("button", name="Save").click()
    expect(row).to_contain_text("https://bugs.example.com/{id}")
    page.click("#organization .org-close")
    page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/bugs")
    page.fill("#compose-content", f"See {tag}-42 please")
    page.press("#compose-content", "Control+Enter")  # sends whether or not Enter does
    link = message_with(page, "please").locator("a", has_text=f"{tag}-42")
    expect(link).to_have_attribute("href", "https://bugs.example.com/42")

    # The organization's profile: another person's browser shows the new name live.
    member = make_user("Pat Profile")
    watcher = open_page()
    log_in(watcher, server.url, member.email)
    realm = owner.ok("GET", "/server_settings")["realm_name"]
    open_tab(page, "Organization profile")
    new_name = f"Org {time.time_ns() % 100000}"
    page.fill("#org-realm-name", new_name)
    page.fill("#org-realm-description", "We **build** things")
    page.get_by_role("button", name="Save changes").click()
    expect(page.locator("#org-rendered-description strong")).to_have_text("build")
    expect(watcher.locator(".topbar .realm-name")).to_have_text(new_name)
    expect(page.locator("#org-realm-description")).to_have_value("We **build** things")
    assert owner.ok("GET", "/server_settings")["realm_name"] == new_name
    owner.ok("PATCH", "/realm", name=realm)
    expect(page.locator("#org-realm-name")).to_have_value(realm)

    open_tab(page, "Custom emoji")
    emoji = f"party{time.time_ns() % 100000}"
    page.fill("#org-emoji-name", emoji)
    page.set_input_files(
        "#org-emoji-file", files=[{"name": "e.png", "mimeType": "image/png", "buffer": PNG}]
    )
    page.get_by_role("button", name="Add emoji").click()
    item = page.locator(f"#organization li.org-emoji[data-emoji-name={emoji}]")
    expect(item).to_be_visible()
    assert any(e["name"] == emoji for e in owner.ok("GET", "/realm/emoji")["emoji"].values())
    shot(page, tmp_path, "org-emoji-light")
    item.get_by_role("button", name="Deactivate").click()
    item.get_by_role("button", name="Confirm deactivating").click()
    expect(item).to_have_count(0)
    found = [e for e in owner.ok("GET", "/realm/emoji")["emoji"].values() if e["name"] == emoji]
    assert found and found[0]["deactivated"] is True

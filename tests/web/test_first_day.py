"""A new team's first day, played in Chromium against the wheel `pip install .` builds, installed
in a fresh virtualenv and started as the README's Quick start says (tests/support/quickstart.py),
with mail going to a real SMTP server this module starts (aiosmtpd) and reads back.

The owner logs in with the password the first start printed, creates a channel and invites two
colleagues: Ada with an invitation link, Bob by email. They sign up and find the default
channels; Ada browses and joins the owner's channel; Ada shares an uploaded picture and both see
its thumbnail; Bob reads it and replies on a phone (390x844, touch); Ada forgets her password,
is locked out by wrong guesses and gets back in through the reset email; the owner deactivates
Bob, whose open pages go back to the log-in page and whose log-in is refused.

Every step checks what a person sees. Screenshots of each step (desktop and phone, light and
dark) go to TEAMCHAT_SCREENSHOT_DIR when it is set, else to the test's tmp_path; the folder is
printed."""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Iterator
from email.message import Message
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from tests.support.browser import DESKTOP, box, log_in, message_with
from tests.support.quickstart import QuickstartServer
from tests.support.smtp import SmtpRecorder

PHONE_844 = {"width": 390, "height": 844}
ADA = ("ada@example.com", "Ada Lovelace", "Analytical-engine-1843")
BOB = ("bob@example.com", "Bob Martin", "Clean-coder-shelf-2008")
ADA_NEW_PASSWORD = "Difference-engine-1822"
DEFAULT_CHANNELS = ("general", "sandbox", "Zulip")
CHANNEL = "design"
TOPIC = "first day"


@pytest.fixture(autouse=True)
def patient_expect() -> Iterator[None]:
    """A whole day on a busy machine (password hashing, thumbnails): assertions wait 15 s."""
    expect.set_options(timeout=15000)
    yield
    expect.set_options(timeout=None)


@pytest.fixture(scope="module")
def smtp() -> Iterator[SmtpRecorder]:
    with SmtpRecorder() as recorder:
        yield recorder


@pytest.fixture(scope="module")
def quickstart_env(smtp: SmtpRecorder) -> dict[str, str]:
    # Only what an operator sets to send mail; everything else is the Quick start's defaults
    # (the real log-in limits included).
    return {**smtp.env(), "TEAMCHAT_SMTP_FROM": "chat@example.com"}


def a_picture() -> bytes:
    """A 960x600 PNG with something to see in it (a real picture, decoded by the server)."""
    image = Image.new("RGB", (960, 600), (37, 99, 235))
    draw = ImageDraw.Draw(image)
    for step in range(0, 600, 40):
        draw.rectangle((step, step // 2, step + 300, step // 2 + 120), fill=(250, 204, 21))
    draw.ellipse((560, 260, 880, 580), fill=(220, 38, 38))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def body_of(mail: Message) -> str:
    payload = mail.get_payload(decode=True)
    assert isinstance(payload, bytes), mail
    return payload.decode()


def mail_to(smtp: SmtpRecorder, address: str, count: int) -> Message:
    """The newest of the first `count` emails, which must be to `address`."""
    mail = smtp.wait_for(count)[count - 1]
    assert mail["To"] == address, (mail["To"], mail["Subject"])
    return mail


def link_in(text: str, path: str) -> str:
    found = re.search(rf"(http://\S+{re.escape(path)}[A-Za-z0-9_-]+/)", text)
    assert found, text
    return found.group(1)


def shots(tmp_path: Path) -> Path:
    """Where screenshots go: TEAMCHAT_SCREENSHOT_DIR when set (to look at), else tmp_path."""
    folder = Path(os.environ.get("TEAMCHAT_SCREENSHOT_DIR", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Shots:
    """Screenshots of each step, numbered in order; `both` also takes the other colour scheme."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.count = 0

    def __call__(self, page: Page, name: str, *, both: bool = False) -> None:
        self.count += 1
        scheme = page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
        current = "dark" if scheme else "light"
        page.screenshot(path=str(self.folder / f"{self.count:02d}-{name}-{current}.png"))
        if both:
            other = "light" if current == "dark" else "dark"
            page.emulate_media(color_scheme=other)  # type: ignore[arg-type]
            page.wait_for_timeout(100)
            page.screenshot(path=str(self.folder / f"{self.count:02d}-{name}-{other}.png"))
            page.emulate_media(color_scheme=current)  # type: ignore[arg-type]


def left_pane_channels(page: Page) -> Locator:
    return page.locator("#left .channels")


def open_org_tab(page: Page, tab: str) -> None:
    if not page.locator("#organization").is_visible():
        page.click("#org-button")
    page.get_by_role("tab", name=tab).click()


def sign_up(page: Page, link: str, person: tuple[str, str, str], *, email_fixed: bool) -> None:
    email, name, password = person
    page.goto(link)
    if email_fixed:
        expect(page.locator("#email")).to_have_value(email)
    else:
        page.fill("#email", email)
    page.fill("#full_name", name)
    page.fill("#password", password)
    expect(page.locator(".strength-verdict")).to_contain_text("good enough")
    page.click("button[type=submit]")
    expect(page.locator("#me")).to_have_text(name)


def thumbnail_of(message: Locator, name: str) -> Locator:
    """The picture's thumbnail <img>, once the server's thumbnail has loaded in the page."""
    img = message.locator(".message_inline_image img")
    expect(message.locator(".message_inline_image a")).to_have_attribute("title", name)
    expect(img).to_have_attribute("src", re.compile(r"/user_uploads/thumbnail/"), timeout=30000)
    expect(img).to_be_visible()
    expect(img).to_have_js_property("complete", True)
    width = img.evaluate("img => img.naturalWidth")
    assert width > 0, "the thumbnail did not load"
    size = box(img)
    assert 0 < size["width"] <= 300 and 0 < size["height"] <= 200, size
    assert abs(size["width"] / size["height"] - 960 / 600) < 0.05, size  # not distorted
    frame = box(message.locator(".message_inline_image a"))
    assert frame["width"] - size["width"] <= 2.5, (frame, size)  # no strip
    return img


def fully_in_view(page: Page, message: Locator) -> None:
    """The message is inside the message list's visible area (not under the compose box)."""
    shown = box(page.locator("#messages"))
    found = box(message)
    assert (
        shown["y"] <= found["y"]
        and found["y"] + found["height"] <= shown["y"] + shown["height"] + 1
    ), (shown, found)


def no_overlap(a: Locator, b: Locator) -> None:
    box_a, box_b = box(a), box(b)
    apart = (
        box_a["x"] + box_a["width"] <= box_b["x"]
        or box_b["x"] + box_b["width"] <= box_a["x"]
        or box_a["y"] + box_a["height"] <= box_b["y"]
        or box_b["y"] + box_b["height"] <= box_a["y"]
    )
    assert apart, (box_a, box_b)


@pytest.fixture
def phone_page(browser: Browser) -> Iterator[Callable[[], Page]]:
    """A phone: 390x844, touch, mobile; errors in the page fail the test."""
    contexts: list[BrowserContext] = []
    errors: list[str] = []

    def factory() -> Page:
        context = browser.new_context(
            viewport=PHONE_844,  # type: ignore[arg-type]
            has_touch=True,
            is_mobile=True,
            reduced_motion="reduce",
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


# Building the wheel and its virtualenv (once per session) and a whole day in a browser.
@pytest.mark.timeout(900)
def test_a_new_teams_first_day(
    quickstart_server: QuickstartServer,
    smtp: SmtpRecorder,
    open_page: Callable[..., Page],
    phone_page: Callable[[], Page],
    tmp_path: Path,
) -> None:
    server = quickstart_server
    shot = Shots(shots(tmp_path))
    print(f"first-day screenshots: {shot.folder}")
    url = server.url

    # The owner logs in with the password the first start printed.
    owner = open_page(DESKTOP, "light")
    log_in(owner, url, server.owner_email, server.owner_password)
    expect(owner.locator("#me")).to_have_text("Owner")
    for channel in DEFAULT_CHANNELS:
        expect(left_pane_channels(owner)).to_contain_text(channel)
    shot(owner, "owner-logged-in", both=True)

    # A channel that is not a default one, for someone to find and join later.
    owner.locator("#left [data-action=browse-channels]").first.click()
    dialog = owner.locator("#channels-dialog")
    dialog.get_by_role("button", name="Create channel").click()
    owner.fill("#channel-create-name", CHANNEL)
    owner.fill("#channel-create-description", "Mockups, logos and **pictures**")
    dialog.get_by_role("button", name="Create", exact=True).click()
    expect(owner.locator("#narrow-title")).to_have_text(f"# {CHANNEL}")
    expect(left_pane_channels(owner)).to_contain_text(CHANNEL)

    # Invitations: the default channels are ticked; one link, one email.
    open_org_tab(owner, "Invitations")
    for channel in DEFAULT_CHANNELS:
        box = owner.locator("#organization .org-check", has_text=channel).locator("input")
        expect(box).to_be_checked()
    owner.select_option("#org-invite-kind", "link")
    owner.get_by_role("button", name="Create invitation link").click()
    link_box = owner.locator("#org-invite-link")
    expect(link_box).to_have_value(re.compile(rf"^{re.escape(url)}/join/[a-z0-9]+/$"))
    ada_link = link_box.input_value()
    shot(owner, "owner-invitation-link")
    owner.select_option("#org-invite-kind", "email")
    owner.fill("#org-invite-emails", BOB[0])
    owner.get_by_role("button", name="Send invitations").click()
    result = owner.locator("#organization .org-result").first
    expect(result).to_have_text("Invitations sent.", timeout=15000)
    expect(owner.locator("#organization tr.org-invite", has_text=BOB[0])).to_be_visible()
    shot(owner, "owner-invitation-emailed", both=True)
    invitation = mail_to(smtp, BOB[0], 1)
    assert "Invitation to join" in invitation["Subject"], invitation["Subject"]
    bob_link = link_in(body_of(invitation), "/join/")
    owner.click("#organization .org-close")

    # Ada signs up with the link and finds the default channels (not the owner's new one).
    ada = open_page(DESKTOP, "light")
    sign_up(ada, ada_link, ADA, email_fixed=False)
    for channel in DEFAULT_CHANNELS:
        expect(left_pane_channels(ada)).to_contain_text(channel)
    expect(left_pane_channels(ada)).not_to_contain_text(CHANNEL)
    shot(ada, "ada-signed-up")

    # Bob signs up from the email, his address already filled in (dark desktop).
    bob = open_page(DESKTOP, "dark")
    bob.goto(bob_link)
    shot(bob, "bob-signup-page")
    sign_up(bob, bob_link, BOB, email_fixed=True)
    for channel in DEFAULT_CHANNELS:
        expect(left_pane_channels(bob)).to_contain_text(channel)
    shot(bob, "bob-signed-up")

    # Ada browses the channels and joins the owner's.
    ada.locator("#left [data-action=browse-channels]").first.click()
    dialog = ada.locator("#channels-dialog")
    ada.fill("#channel-filter", CHANNEL)
    row = dialog.locator("li.channel-row", has_text=CHANNEL)
    expect(row.locator(".channel-description strong")).to_have_text("pictures")
    expect(row.locator(".channel-count")).to_have_text("1 subscriber")
    shot(ada, "ada-browses-channels", both=True)
    row.get_by_role("button", name=f"Subscribe to {CHANNEL}").click()
    expect(row.locator(".channel-count")).to_have_text("2 subscribers")
    expect(left_pane_channels(ada)).to_contain_text(CHANNEL)
    dialog.get_by_role("button", name="Close").click()
    ada.click(f"#left .channels a:has-text('{CHANNEL}')")
    expect(ada.locator("#narrow-title")).to_have_text(f"# {CHANNEL}")
    ada.fill("#compose-topic", "hello")
    ada.fill("#compose-content", "Thanks for the invitation!")
    ada.get_by_role("button", name="Send", exact=True).click()
    expect(message_with(owner, "Thanks for the invitation!")).to_be_visible()
    expect(message_with(owner, "Thanks for the invitation!")).to_contain_text("Ada Lovelace")

    # Ada shares a picture in #general; she and Bob each see its thumbnail.
    ada.click("#left .channels a:has-text('general')")
    expect(ada.locator("#narrow-title")).to_have_text("# general")
    ada.fill("#compose-topic", TOPIC)
    picture = {"name": "whiteboard.png", "mimeType": "image/png", "buffer": a_picture()}
    ada.set_input_files("#compose-file", files=[picture])
    content = ada.locator("#compose-content")
    expect(content).to_have_value(re.compile(r"\[whiteboard\.png\]\(/user_uploads/\S+\)"))
    content.press("End")
    content.type("\nHere is the whiteboard from this morning.")
    ada.get_by_role("button", name="Send", exact=True).click()
    sent = message_with(ada, "Here is the whiteboard")
    thumbnail_of(sent, "whiteboard.png")
    fully_in_view(ada, sent)  # the thumbnail arriving later does not push it out of view
    shot(ada, "ada-shares-a-picture", both=True)
    seen = message_with(bob, "Here is the whiteboard")
    thumbnail_of(seen, "whiteboard.png")
    expect(seen).to_contain_text("Ada Lovelace")
    shot(bob, "bob-sees-the-picture", both=True)
    seen.get_by_role("link", name="View whiteboard.png").click()
    viewer = bob.get_by_role("dialog", name="whiteboard.png")
    expect(viewer).to_be_visible()
    expect(viewer.locator("img.lightbox-image")).to_have_js_property("naturalWidth", 960)
    shot(bob, "bob-opens-the-picture")
    bob.keyboard.press("Escape")
    expect(viewer).to_be_hidden()

    # Bob reads it on his phone and replies there.
    phone = phone_page()
    log_in(phone, url, BOB[0], BOB[2])
    phone.click("#menu-toggle")
    phone.click("#left .channels a:has-text('general')")
    expect(phone.locator("#narrow-title")).to_have_text("# general")
    on_phone = message_with(phone, "Here is the whiteboard")
    thumbnail_of(on_phone, "whiteboard.png")
    shot(phone, "phone-reads-the-picture", both=True)
    text = on_phone.locator(".content p", has_text="Here is the whiteboard")
    on_phone.locator(".content p", has_text="Here is the whiteboard").tap()
    actions = on_phone.get_by_role("toolbar", name="Message actions")
    expect(actions).to_be_visible()
    no_overlap(actions, text)
    no_overlap(actions, on_phone.locator(".message_inline_image img"))
    shot(phone, "phone-message-tapped", both=True)
    # The tap addressed the compose box to the message's conversation, as a reply.
    expect(phone.locator("#compose-to option:checked")).to_have_text("# general")
    expect(phone.locator("#compose-topic")).to_have_value(TOPIC)
    actions.get_by_role("button", name="React with thumbs up").tap()
    expect(on_phone.locator(".reaction", has_text="1")).to_be_visible()
    phone.locator("#compose-content").tap()
    phone.fill("#compose-content", "Looks great, see you at lunch!")
    phone.get_by_role("button", name="Send", exact=True).tap()
    mine = message_with(phone, "Looks great, see you at lunch!")
    expect(mine).to_be_visible()
    expect(mine).to_contain_text("Bob Martin")
    expect(mine).not_to_have_class(re.compile(r"\becho\b"))  # the server's copy, not the echo
    fully_in_view(phone, mine)  # scrolled to the reply just sent
    shot(phone, "phone-replied", both=True)
    reply = message_with(ada, "Looks great, see you at lunch!")
    expect(reply).to_contain_text("Bob Martin")
    expect(sent.locator(".reaction")).to_contain_text("1")

    # Ada, on another computer, forgets her password: wrong guesses lock her out, the
    # reset email lets her back in.
    away = open_page(DESKTOP, "light")
    away.goto(f"{url}/login/")
    for guess in range(1, 6):
        away.fill("#username", ADA[0])
        away.fill("#password", f"wrong-guess-{guess}")
        away.click("button[type=submit]")
        expect(away.locator(".problem")).to_be_visible()
    away.fill("#username", ADA[0])
    away.fill("#password", ADA[2])  # the right one, too late
    away.click("button[type=submit]")
    # Five failures in 30 minutes lock the account for the rest of them (said in words).
    expect(away.locator(".problem")).to_have_text(
        re.compile(r"^Too many failed attempts; try again in (30|29|28) minutes\.$")
    )
    shot(away, "ada-locked-out", both=True)
    away.click("#forgot-password")
    expect(away).to_have_url(f"{url}/accounts/password/reset/")
    away.fill("#email", ADA[0])
    away.click("button[type=submit]")
    expect(away.locator("h1")).to_have_text("Check your email")
    shot(away, "ada-reset-requested")
    reset = mail_to(smtp, ADA[0], 2)
    away.goto(link_in(body_of(reset), "/accounts/password/reset/"))
    away.fill("#new_password", ADA_NEW_PASSWORD)
    expect(away.locator(".strength-verdict")).to_contain_text("good enough")
    away.fill("#new_password_confirm", ADA_NEW_PASSWORD)
    shot(away, "ada-new-password", both=True)
    away.click("button[type=submit]")
    expect(away.locator(".notice")).to_contain_text("Your password has been changed")
    expect(away.locator("#username")).to_have_value(ADA[0])
    away.fill("#password", ADA_NEW_PASSWORD)
    away.click("button[type=submit]")
    expect(away.locator("#me")).to_have_text("Ada Lovelace")
    expect(left_pane_channels(away)).to_contain_text(CHANNEL)
    shot(away, "ada-back-in")

    # The owner deactivates Bob: his open pages go to the log-in page, which refuses him.
    open_org_tab(owner, "Users")
    owner.fill("#org-users-filter", BOB[0])
    row = owner.locator("#organization tr.org-user", has_text=BOB[0])
    expect(row).to_contain_text("Bob Martin")
    row.get_by_role("button", name="Deactivate").click()
    shot(owner, "owner-deactivates-bob")
    row.get_by_role("button", name="Confirm deactivating").click()
    gone = owner.locator("#organization .org-list").nth(1)
    expect(gone.locator("tr.org-user", has_text=BOB[0])).to_be_visible()
    shot(owner, "owner-deactivated-bob", both=True)
    for page in (bob, phone):
        expect(page).to_have_url(f"{url}/login/", timeout=30000)
    expect(away.locator("#people")).not_to_contain_text("Bob Martin")  # gone for the others
    phone.fill("#username", BOB[0])
    phone.fill("#password", BOB[2])
    phone.click("button[type=submit]")
    expect(phone.locator(".problem")).to_have_text(
        f"Your account {BOB[0]} has been deactivated. "
        "Ask an administrator of the organization to reactivate it."
    )
    shot(phone, "bob-refused", both=True)

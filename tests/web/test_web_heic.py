"""A HEIC photo in a real browser: its thumbnail shows, and the viewer shows the server's
full-size WebP of it (browsers other than Safari cannot show HEIC), while Download still gives
the original file."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.support import images
from tests.support.browser import DESKTOP, log_in, message_with
from tests.support.server import ServerProcess
from tests.test_uploads import upload


def test_heic_photo_opens_as_its_full_size_webp(
    server: ServerProcess,
    open_page: Callable[..., Page],
    pair,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    person, other, _, stream_id = pair
    url = upload(other, "IMG_0042.heic", images.heic(1200, 900))["url"]
    sent = other.ok(
        "POST", "/messages", type="stream", to=stream_id, topic="photos",
        content=f"From my phone: [IMG_0042.heic]({url})",
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while (
        "data-transcoded-image"
        not in other.ok("GET", f"/messages/{sent['id']}")["message"]["content"]
    ):
        assert time.monotonic() < deadline, "no thumbnail was made"
        time.sleep(0.2)
    for scheme in ("light", "dark"):
        page = open_page(DESKTOP, scheme)
        log_in(page, server.url, person.email)
        page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/photos")
        thumb = message_with(page, "From my phone").get_by_role("link", name="View IMG_0042.heic")
        expect(thumb.locator("img")).to_have_js_property("complete", True)
        thumb.click()
        viewer = page.get_by_role("dialog", name="IMG_0042.heic")
        big = viewer.locator("img.lightbox-image")
        expect(big).to_have_attribute("src", f"/user_uploads/thumbnail/{url[14:]}/4032x3024.webp")
        expect(big).to_have_js_property("naturalWidth", 1200)
        expect(viewer.get_by_role("link", name="Download")).to_have_attribute("href", url)
        page.screenshot(path=tmp_path / f"heic-viewer-{scheme}.png")
        page.close()

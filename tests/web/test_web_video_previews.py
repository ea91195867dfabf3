"""Video previews in a real browser: a YouTube link's still image (as the server renders it)
and a Vimeo oEmbed preview (the server's own markup for Vimeo's answer, put in the page since
the tests cannot reach Vimeo) show with a play badge, load no third-party frame, and open the
video's page in a new tab. The stills come through the server's /external_content/ proxy, whose
remote fetch a route answers here with a generated picture."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from pathlib import Path

from PIL import Image
from playwright.sync_api import Page, Route, expect

from teamchat.actions.integrations.url_previews import LinkData, apply_previews
from teamchat.lib.oembed import parse_oembed
from tests.support.browser import DESKTOP, PHONE, box, log_in, message_with
from tests.support.server import ServerProcess

YOUTUBE = "https://www.youtube.com/watch?v=eSJTXC7Ixgg"
VIMEO = "https://vimeo.com/76979871"
VIMEO_ANSWER = {
    "type": "video",
    "title": "Sintel trailer",
    "thumbnail_url": "https://i.vimeocdn.com/video/452001751-640.jpg",
    "html": '<iframe src="https://player.vimeo.com/video/76979871" width="640" height="360"'
    ' frameborder="0" allowfullscreen></iframe>',
}


def still() -> bytes:
    picture = Image.linear_gradient("L").resize((320, 180)).convert("RGB")
    out = io.BytesIO()
    picture.save(out, "JPEG")
    return out.getvalue()


def show_stills_and_vimeo(page: Page, camo_key: bytes) -> list[str]:
    """Answer the proxy's stills; give the Vimeo message the server's preview markup."""
    foreign: list[str] = []
    jpeg = still()
    page.route(
        re.compile(r"/external_content/"),
        lambda route: route.fulfill(status=200, content_type="image/jpeg", body=jpeg),
    )
    page.context.on(
        "request",
        lambda request: (
            foreign.append(request.url)
            if not request.url.startswith(("http://127.0.0.1", "data:"))
            else None
        ),
    )
    found = [LinkData(url=VIMEO, oembed=parse_oembed(json.dumps(VIMEO_ANSWER).encode()))]

    def handle(route: Route) -> None:
        body = route.fetch().json()
        for message in body.get("messages", []):
            if VIMEO in message["content"]:
                message["content"] = apply_previews(message["content"], found, camo_key, True)
        route.fulfill(json=body)

    page.route(re.compile(r"/json/messages\?"), handle)
    return foreign


def test_video_previews_show_a_still_and_open_the_video_page(
    server: ServerProcess,
    open_page: Callable[..., Page],
    pair,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    person, other, _, stream_id = pair
    other.ok(
        "POST", "/messages", type="stream", to=stream_id, topic="videos", content=f"Talk: {YOUTUBE}"
    )
    other.ok("POST", "/messages", type="stream", to=stream_id, topic="videos", content=VIMEO)
    for viewport, scheme, name in (
        (DESKTOP, "light", "desktop-light"),
        (DESKTOP, "dark", "desktop-dark"),
        (PHONE, "light", "phone-light"),
        (PHONE, "dark", "phone-dark"),
    ):
        page = open_page(viewport, scheme)
        foreign = show_stills_and_vimeo(page, b"unused-key")
        log_in(page, server.url, person.email)
        page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/videos")
        youtube = message_with(page, "Talk:").get_by_role(
            "link", name="Play video on youtube.com (opens a new tab)"
        )
        expect(youtube).to_have_attribute("target", "_blank")
        expect(youtube).to_have_attribute("rel", "noopener noreferrer")
        expect(youtube).to_have_attribute("href", YOUTUBE)
        expect(youtube.locator("img")).to_have_js_property("naturalWidth", 320)
        vimeo = message_with(page, "Vimeo - Sintel trailer").get_by_role(
            "link", name="Play Sintel trailer on vimeo.com (opens a new tab)"
        )
        expect(vimeo.locator("img")).to_have_js_property("complete", True)
        size = box(youtube.locator("img"))
        assert 0 < size["width"] <= 320, size
        assert page.locator("iframe").count() == 0
        page.screenshot(path=tmp_path / f"videos-{name}.png")
        if name == "desktop-light":
            page.context.route(
                re.compile(r"^https://www\.youtube\.com/"),
                lambda route: route.fulfill(status=200, content_type="text/html", body="video"),
            )
            with page.expect_popup() as popup:
                youtube.click()
            assert popup.value.url == YOUTUBE
            popup.value.close()
            # Nothing but the opened video page left our origin.
            assert [url for url in foreign if url != YOUTUBE] == []
        page.close()

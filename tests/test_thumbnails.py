"""Uploaded images: thumbnails made in the background, served with the upload's access rules,
shown in messages with Zulip's markup, and hostile images refused without harm."""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from typing import Any

import httpx
from PIL import Image

from tests.support import images, rawdb
from tests.support.api import Api, assert_success
from tests.support.channels import Queue, stream_id, subscribe, unique_name
from tests.support.server import ServerProcess

SPINNER = "/static/images/loading/loader-black.svg"


def upload(api: Api, name: str, data: bytes) -> str:
    response = api.http.post("/user_uploads", files={"file": (name, data, "image/png")})
    return str(assert_success(response, "POST", "/user_uploads")["url"])


def channel(api: Api, **params: str) -> int:
    name = unique_name("pictures")
    subscribe(api, name, **params)
    return stream_id(api, name)


def send(api: Api, sid: int, content: str) -> int:
    return int(api.ok("POST", "/messages", type="stream", to=sid, topic="t", content=content)["id"])


def rendered(api: Api, message_id: int) -> str:
    return str(api.ok("GET", f"/messages/{message_id}")["message"]["content"])


def settled(api: Api, message_id: int, timeout: float = 20) -> str:
    """The message's rendering once no thumbnail is pending."""
    deadline = time.monotonic() + timeout
    while "image-loading-placeholder" in (html := rendered(api, message_id)):
        assert time.monotonic() < deadline, html
        time.sleep(0.1)
    return html


def collect(queue: Queue, count: int, timeout: float = 20) -> list[dict[str, Any]]:
    """The first `count` events of the queue (fewer if they do not come in time)."""
    deadline, found = time.monotonic() + timeout, []
    while len(found) < count and time.monotonic() < deadline:
        found += queue.events()
        time.sleep(0.05)
    return found


def test_register_advertises_zulips_thumbnail_formats(make_user: Callable[..., Api]) -> None:
    state = make_user().ok("POST", "/register", fetch_event_types=["realm"])
    assert state["server_thumbnail_formats"] == [
        {"name": "840x560-anim.webp", "max_width": 840, "max_height": 560, "format": "webp",
         "animated": True},
        {"name": "840x560.webp", "max_width": 840, "max_height": 560, "format": "webp",
         "animated": False},
    ]  # fmt: skip
    assert state["server_inline_image_preview"] is True


def test_uploaded_image_gets_a_thumbnail_shown_with_zulips_markup(
    server: ServerProcess, make_user: Callable[..., Api]
) -> None:
    user = make_user()
    url = upload(user, "pic.jpg", images.jpeg(1200, 900))
    message_id = send(user, channel(user, invite_only="true"), f"[pic.jpg]({url})")
    path = url.removeprefix("/user_uploads/")
    assert settled(user, message_id) == (
        f'<p><a href="{url}">pic.jpg</a></p>\n'
        f'<div class="message_inline_image"><a href="{url}" title="pic.jpg">'
        '<img data-original-content-type="image/jpeg" data-original-dimensions="1200x900" '
        f'src="/user_uploads/thumbnail/{path}/840x560.webp"></a></div>'
    )
    thumb_url = f"{server.url}/user_uploads/thumbnail/{path}/840x560.webp"
    response = httpx.get(thumb_url, auth=(user.email, user.api_key))
    assert response.status_code == 200 and response.headers["content-type"] == "image/webp"
    assert Image.open(io.BytesIO(response.content)).size == (747, 560)
    # Another size than the ones made: the closest one made (as Zulip approximates).
    closest = httpx.get(thumb_url.replace("840x560", "300x200"), auth=(user.email, user.api_key))
    assert closest.status_code == 200 and closest.content == response.content
    # The upload's access rules: no credentials, a user not sent the message, a bad format.
    assert httpx.get(thumb_url).status_code == 401
    stranger = make_user()
    refused = httpx.get(thumb_url, auth=(stranger.email, stranger.api_key))
    assert refused.status_code == 400 and refused.json()["msg"] == "File not found"
    bad = httpx.get(thumb_url.replace("840x560.webp", "huge"), auth=(user.email, user.api_key))
    assert bad.status_code == 404 and bad.json()["msg"] == "File not found"


def test_spinner_first_then_a_rendering_only_update(
    server: ServerProcess, make_user: Callable[..., Api]
) -> None:
    user = make_user()
    sid = channel(user)
    queue = Queue(user, event_types=["message", "update_message"], apply_markdown="true")
    # A slow image first keeps the one decoder thread busy while the second is sent.
    upload(user, "slow.png", _slow_png())
    url = upload(user, "dot.png", images.png(300, 200))
    message_id = send(user, sid, f"[dot.png]({url})")
    # Asked for before it is made, a thumbnail is made at once (the request waits for it).
    thumb = f"/user_uploads/thumbnail/{url.removeprefix('/user_uploads/')}/840x560.webp"
    early = httpx.get(server.url + thumb, auth=(user.email, user.api_key), timeout=30)
    assert early.status_code == 200 and early.headers["content-type"] == "image/webp"
    message, update = collect(queue, 2)
    assert message["type"] == "message" and update["type"] == "update_message"
    link = (
        f'<p><a href="{url}">dot.png</a></p>\n'
        f'<div class="message_inline_image"><a href="{url}" title="dot.png">'
    )
    placeholder = (
        f'{link}<img class="image-loading-placeholder"'
        f' data-original-content-type="image/png" data-original-dimensions="300x200"'
        f' src="{SPINNER}"></a></div>'
    )
    assert message["message"]["content"] == placeholder
    assert update["rendering_only"] is True and update["user_id"] is None
    assert update["message_id"] == message_id and update["message_ids"] == [message_id]
    assert update["content"] == f"[dot.png]({url})"
    assert update["rendered_content"] == (
        f'{link}<img data-original-content-type="image/png" data-original-dimensions="300x200"'
        f' src="{thumb}"></a></div>'
    )
    assert rendered(user, message_id) == update["rendered_content"]
    history = user.ok("GET", f"/messages/{message_id}/history")["message_history"]
    assert len(history) == 1  # not an edit


def _slow_png() -> bytes:
    out = io.BytesIO()
    Image.linear_gradient("L").resize((6000, 6000)).save(out, "PNG")
    return out.getvalue()


def test_animated_gif_gets_an_animated_thumbnail(
    server: ServerProcess, make_user: Callable[..., Api]
) -> None:
    user = make_user()
    url = upload(user, "wave.gif", images.animated_gif(64, 48, frames=3))
    message_id = send(user, channel(user), f"![a wave]({url})")
    path = url.removeprefix("/user_uploads/")
    assert settled(user, message_id) == (
        '<p><img alt="a wave" class="inline-image" data-animated="true"'
        ' data-original-content-type="image/gif" data-original-dimensions="64x48"'
        f' data-original-src="{url}" src="/user_uploads/thumbnail/{path}/840x560-anim.webp"></p>'
    )
    response = httpx.get(
        f"{server.url}/user_uploads/thumbnail/{path}/840x560-anim.webp",
        auth=(user.email, user.api_key),
    )
    animation = Image.open(io.BytesIO(response.content))
    assert animation.format == "WEBP" and animation.n_frames == 3


def test_hostile_images_are_shown_as_files(
    server: ServerProcess, make_user: Callable[..., Api]
) -> None:
    user = make_user()
    sid = channel(user)
    hostile = {
        "bomb.png": images.decompression_bomb_png(),
        "huge.png": images.png_header_only(10_000, 10_000),
        "vector.svg": images.SVG,
        "drawing.png": images.SVG,
        "notes.png": b"just some text, not an image",
    }
    for name, data in hostile.items():
        started = time.monotonic()
        url = upload(user, name, data)
        assert time.monotonic() - started < 5, name
        message_id = send(user, sid, f"[{name}]({url})")
        assert rendered(user, message_id) == f'<p><a href="{url}">{name}</a></p>', name
    # A truncated animation reads as an image, then fails to decode: the preview goes away.
    url = upload(user, "cut.gif", images.truncated_gif())
    message_id = send(user, sid, f"[cut.gif]({url})")
    assert settled(user, message_id) == f'<p><a href="{url}">cut.gif</a></p>'
    thumb = f"{server.url}/user_uploads/thumbnail/{url.removeprefix('/user_uploads/')}/840x560.webp"
    missing = httpx.get(thumb, auth=(user.email, user.api_key))
    assert missing.status_code == 404 and missing.json()["msg"] == "File not found"
    # The server still serves everyone.
    user.ok("GET", "/users/me")


def test_heic_photos_get_thumbnails_and_broken_ones_are_files(
    server: ServerProcess, make_user: Callable[..., Api]
) -> None:
    user = make_user()
    sid = channel(user)
    url = upload(user, "IMG_0001.heic", images.heic(1200, 900))
    message_id = send(user, sid, f"[IMG_0001.heic]({url})")
    path = url.removeprefix("/user_uploads/")
    assert settled(user, message_id) == (
        f'<p><a href="{url}">IMG_0001.heic</a></p>\n'
        f'<div class="message_inline_image"><a href="{url}" title="IMG_0001.heic">'
        '<img data-original-content-type="image/heic" data-original-dimensions="1200x900" '
        'data-transcoded-image="4032x3024.webp" '
        f'src="/user_uploads/thumbnail/{path}/840x560.webp"></a></div>'
    )
    base, auth = f"{server.url}/user_uploads/thumbnail/{path}", (user.email, user.api_key)
    thumb = httpx.get(f"{base}/840x560.webp", auth=auth)
    assert thumb.status_code == 200 and Image.open(io.BytesIO(thumb.content)).size == (747, 560)
    # The full picture in WebP, for viewers (browsers do not show HEIC).
    full = httpx.get(f"{base}/4032x3024.webp", auth=auth)
    assert full.status_code == 200 and full.headers["content-type"] == "image/webp"
    assert Image.open(io.BytesIO(full.content)).size == (1200, 900)
    for name, data in {
        "cut.heic": images.heic(320, 240)[:300],
        "bomb.heic": images.heic_claiming(10_000, 10_000),
    }.items():
        url = upload(user, name, data)
        message_id = send(user, sid, f"[{name}]({url})")
        assert settled(user, message_id) == f'<p><a href="{url}">{name}</a></p>', name
    user.ok("GET", "/users/me")


def test_inline_image_preview_off_shows_links_only(
    start_server: Callable[..., ServerProcess],
) -> None:
    server = start_server()
    owner = Api(server.url, server.owner_email, server.owner_key)
    url = upload(owner, "pic.png", images.png(40, 30))
    owner.ok("PATCH", "/realm", inline_image_preview="false")
    sid = channel(owner)
    message_id = send(owner, sid, f"{url} and https://example.com/cat.png and ![x]({url})")
    html = rendered(owner, message_id)
    assert "message_inline_image" not in html and "<img" not in html, html


def test_the_loading_spinner_is_served_where_zulip_serves_it(server: ServerProcess) -> None:
    response = httpx.get(server.url + "/static/images/loading/loader-black.svg")
    assert response.status_code == 200 and response.headers["content-type"] == "image/svg+xml"
    assert response.content.startswith(b"<svg") and b"<script" not in response.content


def test_an_edit_that_links_an_image_shows_its_preview(make_user: Callable[..., Api]) -> None:
    user = make_user()
    sid = channel(user)
    url = upload(user, "later.png", images.png(120, 80))
    settled(user, send(user, sid, f"[later.png]({url})"))  # the thumbnail exists now
    message_id = send(user, sid, "no picture yet")
    user.ok("PATCH", f"/messages/{message_id}", content=f"now: [later.png]({url})")
    html = rendered(user, message_id)
    thumb = f"/user_uploads/thumbnail/{url.removeprefix('/user_uploads/')}/840x560.webp"
    assert html.endswith(
        f'<div class="message_inline_image"><a href="{url}" title="later.png"><img'
        ' data-original-content-type="image/png" data-original-dimensions="120x80"'
        f' src="{thumb}"></a></div>'
    ), html


def test_uploads_from_before_thumbnails_get_them_after_a_restart(
    start_server: Callable[..., ServerProcess],
) -> None:
    server = start_server()
    owner = Api(server.url, server.owner_email, server.owner_key)
    url = upload(owner, "old.png", images.png(90, 60))
    notes = upload(owner, "notes.txt", b"not an image")
    sid = channel(owner)
    settled(owner, send(owner, sid, f"[old.png]({url})"))
    server.stop()
    # Make the database look as if both were uploaded before thumbnails existed.
    rawdb.query(server.db, "DELETE FROM image_attachment")
    rawdb.query(server.db, "INSERT INTO image_backfill (attachment_id) SELECT id FROM attachment")
    server.start()
    owner = Api(server.url, server.owner_email, server.owner_key)
    deadline = time.monotonic() + 20
    while "message_inline_image" not in (
        html := rendered(owner, send(owner, sid, f"[old.png]({url})"))
    ):
        assert time.monotonic() < deadline, html
        time.sleep(0.2)
    assert 'data-original-dimensions="90x60"' in html
    # The backfill begins a moment after the start: a send may have thumbnailed it first.
    while (left := rawdb.value(server.db, "SELECT count(*) FROM image_backfill")) != 0:
        assert time.monotonic() < deadline, left
        time.sleep(0.2)
    assert rawdb.value(server.db, "SELECT count(*) FROM image_attachment") == 1
    assert "message_inline_image" not in rendered(owner, send(owner, sid, f"[n]({notes})"))


def test_markdown_image_syntax_links_the_upload_for_its_recipients(
    server: ServerProcess, make_user: Callable[..., Api]
) -> None:
    sender, recipient = make_user(), make_user()
    url = upload(sender, "sketch.png", images.png(200, 100))
    sent = sender.ok(
        "POST", "/messages", type="direct", to=f"[{recipient.user_id}]", content=f"![sketch]({url})"
    )
    html = settled(recipient, int(sent["id"]))
    thumb = f"/user_uploads/thumbnail/{url.removeprefix('/user_uploads/')}/840x560.webp"
    assert html == (
        '<p><img alt="sketch" class="inline-image" data-original-content-type="image/png"'
        f' data-original-dimensions="200x100" data-original-src="{url}" src="{thumb}"></p>'
    )
    # The message links the upload, so its recipient may see both the image and its thumbnail.
    for path in (url, thumb):
        response = httpx.get(server.url + path, auth=(recipient.email, recipient.api_key))
        assert response.status_code == 200, path
    [attachment] = sender.ok("GET", "/attachments")["attachments"]
    assert [m["id"] for m in attachment["messages"]] == [sent["id"]]

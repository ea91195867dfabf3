"""Inline image previews against tests/render/inline_images_cases.json (Zulip's markup), and
the rewrite of stored HTML once a thumbnail is ready or has failed."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from teamchat.render.inline_images import fill_thumbnail
from teamchat.render.markdown import RenderContext, UploadPreview, render_markdown
from teamchat.render.video_links import vimeo_id, youtube_id

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "inline_images_cases.json").read_text()
)
PENDING = UploadPreview(1920, 1080, "image/png", False, None)
READY = UploadPreview(
    1200, 900, "image/jpeg", False, "/user_uploads/thumbnail/2/cd/ready/photo.jpg/840x560.webp"
)
ANIMATED = UploadPreview(
    64, 48, "image/gif", True, "/user_uploads/thumbnail/2/ef/anim/wave.gif/840x560-anim.webp"
)
CONTEXT = dataclasses.replace(
    RenderContext.empty(),
    realm_url="https://chat.example.com",
    image_preview=True,
    camo_key=b"test-camo-key",
    upload_previews={
        "2/ab/pending/shot.png": PENDING,
        "2/cd/ready/photo.jpg": READY,
        "2/ef/anim/wave.gif": ANIMATED,
    },
)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_inline_image_case(case: dict[str, Any]) -> None:
    rendered = render_markdown(case["input"], CONTEXT)
    assert rendered.html == case["expected_html"]
    assert rendered.has_image == case["has_image"]


def test_previews_off_render_links_only() -> None:
    off = dataclasses.replace(CONTEXT, image_preview=False)
    for case in CASES:
        html = render_markdown(case["input"], off).html
        assert "message_inline_image" not in html and "<img" not in html, case["name"]


def test_external_images_need_the_camo_key() -> None:
    keyless = dataclasses.replace(CONTEXT, camo_key=b"")
    html = render_markdown("https://example.com/picture.png", keyless).html
    assert html == (
        '<p><a href="https://example.com/picture.png">https://example.com/picture.png</a></p>'
    )


def test_too_many_links_get_no_previews() -> None:
    content = " ".join(f"https://example.com/{n}.png" for n in range(25))
    assert "message_inline_image" not in render_markdown(content, CONTEXT).html
    content = " ".join(f"https://example.com/{n}.png" for n in range(24))
    assert render_markdown(content, CONTEXT).html.count("message_inline_image") == 24


def test_fill_thumbnail_replaces_spinners_in_both_forms() -> None:
    url = "/user_uploads/2/ab/pending/shot.png"
    content = f"[shot.png]({url})\n\n![s]({url})"
    html = render_markdown(content, CONTEXT).html
    ready = dataclasses.replace(
        PENDING, thumbnail_url="/user_uploads/thumbnail/2/ab/pending/shot.png/840x560.webp"
    )
    upload_ready = dataclasses.replace(
        CONTEXT, upload_previews={**CONTEXT.upload_previews, "2/ab/pending/shot.png": ready}
    )
    # The rewrite gives exactly what rendering after the thumbnail was made gives.
    assert fill_thumbnail(html, "2/ab/pending/shot.png", ready) == (
        render_markdown(content, upload_ready).html
    )
    # Another upload's spinner is left alone; a failed image loses its previews.
    assert fill_thumbnail(html, "2/zz/other.png", ready) == html
    assert fill_thumbnail(html, "2/ab/pending/shot.png", None) == (
        '<p><a href="/user_uploads/2/ab/pending/shot.png">shot.png</a></p>\n<p></p>'
    )


@pytest.mark.parametrize(
    ("url", "video"),
    [
        ("https://www.youtube.com/watch?v=eSJTXC7Ixgg", "eSJTXC7Ixgg"),
        ("http://youtube.com/watch_popup?v=eSJTXC7Ixgg&t=3", "eSJTXC7Ixgg"),
        ("https://YOUTU.BE/eSJTXC7Ixgg?si=x", "eSJTXC7Ixgg"),
        ("https://www.youtube.com/v/eSJTXC7Ixgg", "eSJTXC7Ixgg"),
        ("https://www.youtube.com/embed/", None),
        ("https://www.youtube.com/watch?list=PL1", None),
        ("ftp://youtu.be/eSJTXC7Ixgg", None),
        ("https://notyoutube.com/watch?v=eSJTXC7Ixgg", None),
        ("https://youtu.be/eSJTXC7Ixgg/extra", None),
        ("https://[::1/watch?v=x", None),
    ],
)
def test_youtube_ids(url: str, video: str | None) -> None:
    assert youtube_id(url) == video


@pytest.mark.parametrize(
    ("url", "video"),
    [
        ("https://vimeo.com/123456", "123456"),
        ("http://www.vimeo.com/channels/staffpicks/987", "987"),
        ("https://vimeo.com/groups/shortfilms/videos/42", "42"),
        ("https://vimeo.com/123456/?", "123456"),
        ("https://vimeo.com/123456?share=copy", None),
        ("https://vimeo.com/about", None),
        ("https://player.vimeo.com/video/123456", None),
    ],
)
def test_vimeo_ids(url: str, video: str | None) -> None:
    assert vimeo_id(url) == video


def test_youtube_previews_need_the_camo_key() -> None:
    keyless = dataclasses.replace(CONTEXT, camo_key=b"")
    html = render_markdown("https://youtu.be/eSJTXC7Ixgg", keyless).html
    assert html == '<p><a href="https://youtu.be/eSJTXC7Ixgg">https://youtu.be/eSJTXC7Ixgg</a></p>'


LINK = "[IMG.heic](/user_uploads/2/aa/h/IMG.heic)"


def test_a_heic_preview_names_its_full_picture() -> None:
    heic = UploadPreview(
        4032, 3024, "image/heic", False, "/user_uploads/thumbnail/2/aa/h/IMG.heic/840x560.webp",
        transcoded="4032x3024.webp",
    )  # fmt: skip
    ctx = dataclasses.replace(CONTEXT, upload_previews={"2/aa/h/IMG.heic": heic})
    html = render_markdown(LINK, ctx).html
    assert html == (
        '<p><a href="/user_uploads/2/aa/h/IMG.heic">IMG.heic</a></p>\n'
        '<div class="message_inline_image">'
        '<a href="/user_uploads/2/aa/h/IMG.heic" title="IMG.heic">'
        '<img data-original-content-type="image/heic" data-original-dimensions="4032x3024" '
        'data-transcoded-image="4032x3024.webp" '
        'src="/user_uploads/thumbnail/2/aa/h/IMG.heic/840x560.webp"></a></div>'
    )
    pending = dataclasses.replace(heic, thumbnail_url=None, transcoded=None)
    waiting = fill_thumbnail(
        render_markdown(
            LINK,
            dataclasses.replace(CONTEXT, upload_previews={"2/aa/h/IMG.heic": pending}),
        ).html,
        "2/aa/h/IMG.heic",
        heic,
    )
    assert waiting == html

"""Video links as Zulip previews them: the oEmbed providers (YouTube, Vimeo), what their answers
become under a message (Vimeo's embed-video block, "YouTube - title"), and the markup through
the sanitizer; a YouTube link sent through the API gets its still image through camo."""

from __future__ import annotations

import json
from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

import pytest

from teamchat.actions.integrations.url_previews import LinkData, apply_previews
from teamchat.lib.camo import camo_url, verified_url
from teamchat.lib.oembed import OEmbed, parse_oembed, provider_of
from teamchat.lib.url_preview import Preview
from teamchat.render.sanitize import sanitize_html
from tests.support.api import Api

KEY = b"test-camo-key"
# The shape of Vimeo's answer (https://vimeo.com/api/oembed.json?url=...).
VIMEO_ANSWER = {
    "type": "video",
    "version": "1.0",
    "provider_name": "Vimeo",
    "title": "Sintel <trailer>",
    "thumbnail_url": "https://i.vimeocdn.com/video/452001751-640.jpg",
    "html": '<iframe src="https://player.vimeo.com/video/76979871?h=8272103f6e" width="640"'
    ' height="360" frameborder="0" allowfullscreen title="Sintel"></iframe>',
}
VIMEO = "https://vimeo.com/76979871"
YOUTUBE = "https://www.youtube.com/watch?v=eSJTXC7Ixgg"


@pytest.mark.parametrize(
    ("url", "provider"),
    [
        (YOUTUBE, "YouTube"),
        ("https://youtu.be/eSJTXC7Ixgg", "YouTube"),
        ("HTTPS://YouTube.com/shorts/abc", "YouTube"),
        ("https://m.youtube.com/watch?v=x", "YouTube"),
        (VIMEO, "Vimeo"),
        ("http://vimeo.com/channels/staffpicks/1", "Vimeo"),
        ("https://player.vimeo.com/video/76979871", "Vimeo"),
        ("https://www.vimeo.com/76979871", None),
        ("https://example.com/watch?v=x", None),
        ("https://[::1/x", None),
    ],
)
def test_providers(url: str, provider: str | None) -> None:
    found = provider_of(url)
    assert (found[0] if found else None) == provider
    if found is not None:
        query = parse_qs(urlsplit(found[1]).query)
        assert query == {"url": [url], "maxwidth": ["640"], "maxheight": ["480"]}


def test_parse_oembed_answers() -> None:
    video = parse_oembed(json.dumps(VIMEO_ANSWER).encode())
    assert video == OEmbed(
        kind="video",
        title="Sintel <trailer>",
        image=VIMEO_ANSWER["thumbnail_url"],
        player_html=VIMEO_ANSWER["html"],
    )
    photo = parse_oembed(b'{"type": "photo", "url": "https://e.com/p.jpg", "title": "P"}')
    assert photo == OEmbed(kind="photo", title="P", image="https://e.com/p.jpg")
    # No thumbnail, a javascript: thumbnail, or a giant player: only the title is of use.
    no_thumb = {**VIMEO_ANSWER, "thumbnail_url": None}
    assert parse_oembed(json.dumps(no_thumb).encode()) == OEmbed(
        kind="link", title="Sintel <trailer>"
    )
    bad_thumb = {**VIMEO_ANSWER, "thumbnail_url": "javascript:alert(1)"}
    assert parse_oembed(json.dumps(bad_thumb).encode()).kind == "link"  # type: ignore[union-attr]
    huge = {**VIMEO_ANSWER, "html": "<iframe>" + "x" * 5000}
    assert parse_oembed(json.dumps(huge).encode()).kind == "link"  # type: ignore[union-attr]
    cdata = {**VIMEO_ANSWER, "html": "<![CDATA[<iframe></iframe>]]>"}
    assert parse_oembed(json.dumps(cdata).encode()).player_html == "<iframe></iframe>"  # type: ignore[union-attr]
    for junk in (b"", b"[1]", b"\xff", b'"text"', b"{"):
        assert parse_oembed(junk) is None


def bare_link(url: str) -> str:
    return f'<p><a href="{url}">{url}</a></p>'


def test_vimeo_gets_zulips_embed_video_block_and_title() -> None:
    video = parse_oembed(json.dumps(VIMEO_ANSWER).encode())
    found = [LinkData(url=VIMEO, provider="Vimeo", oembed=video)]
    html = sanitize_html(apply_previews(bare_link(VIMEO), found, KEY, image_preview=True))
    camo = camo_url(KEY, VIMEO_ANSWER["thumbnail_url"])
    assert verified_url(KEY, *camo.split("/")[2:4]) == VIMEO_ANSWER["thumbnail_url"]
    player = (
        "&lt;iframe src=&quot;https://player.vimeo.com/video/76979871?h=8272103f6e&quot; "
        "width=&quot;640&quot; height=&quot;360&quot; frameborder=&quot;0&quot; allowfullscreen "
        "title=&quot;Sintel&quot;&gt;&lt;/iframe&gt;"
    )
    assert html == (
        f'<p><a href="{VIMEO}">Vimeo - Sintel &lt;trailer&gt;</a></p>'
        f'<div class="embed-video message_inline_image"><a data-id="{player}" href="{VIMEO}"'
        f' title="Sintel &lt;trailer&gt;"><img src="{camo}"></a></div>'
    )
    # Named links keep their name; with image previews off the title stays the URL.
    named = f'<p><a href="{VIMEO}">the trailer</a></p>'
    assert apply_previews(named, found, KEY, image_preview=True).startswith(named + "<div")
    plain = apply_previews(bare_link(VIMEO), found, KEY, image_preview=False)
    assert plain.startswith(bare_link(VIMEO) + '<div class="embed-video')


def test_youtube_gains_a_title_and_no_embed() -> None:
    video = OEmbed(kind="video", title="Clearer Code", image="https://i.ytimg.com/x.jpg")
    found = [LinkData(url=YOUTUBE, provider="YouTube", oembed=video)]
    rendered = bare_link(YOUTUBE.replace("&", "&amp;")) + '\n<div class="youtube-video">…</div>'
    html = apply_previews(rendered, found, KEY, image_preview=True)
    assert html == rendered.replace(f">{YOUTUBE}<", ">YouTube - Clearer Code<")
    # Without an oEmbed answer the page's own title serves.
    page = Preview(url=YOUTUBE, title="From the page", image="https://e.com/i.png")
    html = apply_previews(rendered, [LinkData(url=YOUTUBE, page=page)], KEY, True)
    assert ">YouTube - From the page<" in html and "message_embed" not in html


def test_pages_and_photos_keep_zulips_forms() -> None:
    page = Preview(url="https://e.com/", title="E", image="https://e.com/i.png")
    html = apply_previews("<p>x</p>", [LinkData(url="https://e.com/", page=page)], KEY, True)
    assert html.startswith('<p>x</p><div class="message_embed">')
    no_image = Preview(url="https://e.com/", title="E")
    assert apply_previews(
        "<p>x</p>", [LinkData(url="https://e.com/", page=no_image)], KEY, True
    ) == ("<p>x</p>")
    photo = OEmbed(kind="photo", title="A photo", image="https://e.com/p.jpg")
    html = apply_previews("<p>x</p>", [LinkData(url="https://e.com/p", oembed=photo)], KEY, True)
    assert sanitize_html(html) == (
        '<p>x</p><div class="message_inline_image"><a href="https://e.com/p" title="A photo">'
        f'<img src="{camo_url(KEY, "https://e.com/p.jpg")}"></a></div>'
    )


MakeUser = Callable[..., Api]


def test_youtube_link_sent_through_the_api(make_user: MakeUser) -> None:
    writer = make_user("Video Writer")
    html = str(writer.ok("POST", "/messages/render", content=f"see {YOUTUBE}")["rendered"])
    head = f'<p>see <a href="{YOUTUBE}">{YOUTUBE}</a></p>\n'
    assert html.startswith(
        head
        + '<div class="youtube-video message_inline_image"><a data-id="eSJTXC7Ixgg"'
        + f' href="{YOUTUBE}"><img src="/external_content/'
    )
    still = html.split('<img src="')[1].split('"')[0]
    assert bytes.fromhex(still.split("/")[3]).decode() == (
        "https://i.ytimg.com/vi/eSJTXC7Ixgg/mqdefault.jpg"
    )

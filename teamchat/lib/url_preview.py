"""URL previews (Zulip's `inline_url_embed_preview`): what a fetched page says about itself
(Open Graph, else its <title> and description) and the embed block shown under a message.
Pure functions; fetching is the action's job (through `lib.outbound`, which decides which
addresses may be fetched).
"""

from __future__ import annotations

from html import escape
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import msgspec

MAX_TITLE_CHARS = 300
MAX_DESCRIPTION_CHARS = 1000
MAX_IMAGE_URL_CHARS = 2000


class Preview(msgspec.Struct, frozen=True, kw_only=True):
    url: str
    title: str
    description: str = ""
    image: str = ""  # absolute URL of the page's og:image (or twitter:image)


class _MetaParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, str] = {}
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k.lower(): v or "" for k, v in attrs}
        if tag == "meta":
            key = (values.get("property") or values.get("name") or "").lower()
            if key and "content" in values:
                self.meta.setdefault(key, values["content"])
        elif tag == "title":
            self._in_title = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data


def _clean(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def parse_preview(url: str, page: str) -> Preview | None:
    """The preview of a page, or None when it names no title."""
    parser = _MetaParser()
    try:
        parser.feed(page)
    except (ValueError, AssertionError):
        return None
    meta = parser.meta
    title = meta.get("og:title") or meta.get("twitter:title") or parser.title
    description = (
        meta.get("og:description") or meta.get("twitter:description") or meta.get("description")
    )
    if not title.strip():
        return None
    image = (meta.get("og:image") or meta.get("twitter:image") or "").strip()
    if image:
        image = urljoin(url, image)
        if urlsplit(image).scheme not in ("http", "https"):
            image = ""
    return Preview(
        url=url,
        title=_clean(title, MAX_TITLE_CHARS),
        description=_clean(description or "", MAX_DESCRIPTION_CHARS),
        image=image[:MAX_IMAGE_URL_CHARS],
    )


def embed_html(preview: Preview, image_src: str) -> str:
    """Zulip's message_embed block: the page's image (shown from `image_src`, our camo URL of
    `preview.image`) as the link's background, then the title linked and the description;
    every value escaped."""
    url, title = escape(preview.url, quote=True), escape(preview.title, quote=True)
    # zulip-compat: add_embed escapes the image URL for a CSS string, then for the attribute.
    css_url = image_src.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ")
    style = escape(f'background-image: url("{css_url}")', quote=True)
    description = ""
    if preview.description:
        description = f'<div class="message_embed_description">{escape(preview.description)}</div>'
    return (
        f'<div class="message_embed"><a class="message_embed_image" href="{url}" style="{style}">'
        '</a><div class="data-container">'
        f'<div class="message_embed_title"><a href="{url}" title="{title}">{title}</a></div>'
        f"{description}</div></div>"
    )


def retitle_link(html: str, url: str, title: str) -> str:
    """`html` (the renderer's sanitized output) with the first link that shows its own URL
    `url` showing `title` instead; named links keep their text (Zulip's youtube_title and
    vimeo_title rule)."""
    shown = escape(url, quote=False)
    bare = f'<a href="{escape(url, quote=True)}">{shown}</a>'
    return html.replace(bare, f'<a href="{escape(url, quote=True)}">{escape(title)}</a>', 1)


def photo_html(url: str, image_src: str, title: str | None) -> str:
    """Zulip's oEmbed photo: an inline image preview linked to the page."""
    link = f'href="{escape(url, quote=True)}"'
    if title is not None:
        link += f' title="{escape(title, quote=True)}"'
    return (
        f'<div class="message_inline_image"><a {link}>'
        f'<img src="{escape(image_src, quote=True)}"></a></div>'
    )

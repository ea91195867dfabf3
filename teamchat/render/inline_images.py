"""Inline image previews as Zulip renders them (its InlineInterestingLinkProcessor, for images).

A link to an uploaded image or to an image on another site gets a preview block after its
paragraph: `<div class="message_inline_image"><a href=…><img …></a></div>`. Uploads point at
their thumbnail (or Zulip's loading spinner while it is being made); other sites' images point
at our camo proxy, never at the other site. `![alt](url)` becomes an `<img class="inline-image">`
in place. Pure: everything comes from the RenderContext.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from html import escape
from typing import Any, Final
from urllib.parse import urljoin, urlsplit
from xml.etree.ElementTree import Element

from teamchat.lib.camo import camo_url
from teamchat.render.context import CurrentRender, UploadPreview
from teamchat.render.link_flags import is_image_url
from teamchat.render.links import LinkProcessor, make_relative, sanitize_url
from teamchat.render.md import MatchResult, Treeprocessor
from teamchat.render.video_links import YOUTUBE_PREVIEW_CLASS, youtube_id, youtube_thumbnail

# zulip-compat: the spinner Zulip's server writes while a thumbnail is being made.
SPINNER_URL: Final = "/static/images/loading/loader-black.svg"
# zulip-compat: InlineInterestingLinkProcessor.INLINE_PREVIEW_LIMIT_PER_MESSAGE.
PREVIEW_LIMIT_PER_MESSAGE: Final = 24
UPLOADS_PREFIX: Final = "/user_uploads/"
IMAGE_LINK_RE: Final = r"\!\["
_PREVIEW_CLASSES: Final = frozenset({"message_inline_image", "message_inline_ref"})


def upload_image_attrs(preview: UploadPreview) -> dict[str, str]:
    """The <img> attributes of an uploaded image: its thumbnail, or the loading spinner."""
    attrs = {
        "data-original-content-type": preview.content_type,
        "data-original-dimensions": f"{preview.width}x{preview.height}",
    }
    if preview.thumbnail_url is None:
        return {"class": "image-loading-placeholder", **attrs, "src": SPINNER_URL}
    if preview.animated:
        attrs = {"data-animated": "true", **attrs}
    if preview.transcoded is not None:
        # zulip-compat: rewrite_thumbnailed_images names the full picture of a HEIC.
        attrs = {**attrs, "data-transcoded-image": preview.transcoded}
    return {**attrs, "src": preview.thumbnail_url}


def _img(attrs: dict[str, str]) -> Element:
    # zulip-compat: Zulip's HTML lists each element's attributes in alphabetical order.
    return Element("img", dict(sorted(attrs.items())))


@dataclass
class _Found:
    grandparent: Element | None
    parent: Element
    link: Element
    in_blockquote: bool


def _walk(root: Element) -> Iterator[_Found]:
    """Every <a href> under `root`, breadth first (Zulip's walk_tree_with_family)."""
    queue: deque[tuple[Element | None, Element, bool]] = deque([(None, root, False)])
    while queue:
        grandparent, parent, quoted = queue.popleft()
        for child in parent:
            queue.append((parent, child, quoted or child.tag == "blockquote"))
            if child.tag == "a" and child.get("href"):
                yield _Found(grandparent, parent, child, quoted)


class InlineImagesTreeprocessor(CurrentRender, Treeprocessor):
    """Add a preview block for each link to an image (not in quotes; at most 24 links)."""

    def run(self, root: Element) -> Element | None:
        if not self.ctx.image_preview:
            return None
        found = list(_walk(root))
        previewable = {f.link.get("href", "") for f in found if not f.in_blockquote}
        if len(previewable) > PREVIEW_LIMIT_PER_MESSAGE:
            return None
        done: set[str] = set()
        for item in found:
            url = item.link.get("href", "")
            if url not in previewable or url in done:
                continue
            done.add(url)
            attrs = self._image_attrs(url)
            if attrs is not None:
                self._add_preview(root, item, attrs)
                continue
            video = youtube_id(url)
            source = None if video is None else self._external(youtube_thumbnail(video))
            if video is not None and source is not None:
                # zulip-compat: handle_youtube_url_inlining keeps the link and its paragraph.
                self._add_preview(
                    root, item, {"src": source}, YOUTUBE_PREVIEW_CLASS, {"data-id": video}
                )
        return None

    def _external(self, url: str) -> str | None:
        return external_image_source(url, self.ctx.camo_key)

    def _image_attrs(self, url: str) -> dict[str, str] | None:
        if url.startswith(UPLOADS_PREFIX):
            # zulip-compat: an upload is previewed only when its bytes are a decodable image.
            preview = self.ctx.upload_previews.get(url.removeprefix(UPLOADS_PREFIX))
            return upload_image_attrs(preview) if preview is not None else None
        if not is_image_url(url) or urlsplit(url).netloc == "pasteboard.co":
            return None
        source = external_image_source(actual_image_url(url), self.ctx.camo_key)
        return None if source is None else {"src": source}

    def _add_preview(
        self,
        root: Element,
        item: _Found,
        attrs: dict[str, str],
        div_class: str = "message_inline_image",
        video: dict[str, str] | None = None,
    ) -> None:
        url, text = item.link.get("href", ""), item.link.text
        url_is_text = text is None or text == url
        parent, index, remove = root, None, None
        if item.parent.tag == "li":
            parent = item.parent
            if not item.parent.text and not item.link.tail and url_is_text:
                remove = item.link
        elif item.parent.tag == "p" and item.grandparent is not None:
            parent = item.grandparent
            paragraph = item.parent
            lone = len(paragraph) == 1 and paragraph.text in (None, "", "\n")
            if lone and not item.link.tail and url_is_text:
                remove = paragraph
            index = _insertion_index(parent, paragraph)
        div = Element("div", {"class": div_class})
        if video is not None:
            link, remove = Element("a", {**video, "href": url}), None
        else:
            link = Element("a", {"href": url} if url_is_text else {"href": url, "title": str(text)})
        link.append(_img(attrs))
        div.append(link)
        if index is None:
            parent.append(div)
        else:
            parent.insert(index, div)
        if remove is not None:
            parent.remove(remove)
        self.state.has_image = True


def _insertion_index(grandparent: Element, paragraph: Element) -> int:
    """After `paragraph` and the previews already added for its links (Zulip's order)."""
    index = next(i for i, child in enumerate(grandparent) if child is paragraph)
    links = {a.get("href") for a in paragraph.iter("a")}
    while True:
        index += 1
        if index >= len(grandparent):
            return index
        after = grandparent[index]
        classes = set((after.get("class") or "").split())
        if after.tag != "div" or not classes & _PREVIEW_CLASSES:
            return index
        preview_link = after.find("a")
        if preview_link is None or preview_link.get("href") not in links:
            return index


def actual_image_url(url: str) -> str:
    """The image behind a page that shows one (GitHub's blob pages), else `url`."""
    parts = urlsplit(url)
    if parts.netloc == "github.com" or parts.netloc.endswith(".github.com"):
        path = parts.path.split("/")
        if len(path) > 3 and path[3] == "blob":
            return urljoin("https://raw.githubusercontent.com", "/".join(path[0:3] + path[4:]))
    return url


def external_image_source(url: str, camo_key: bytes) -> str | None:
    """Where an <img> shows an image of another site: our camo proxy (None without a key)."""
    if not camo_key or urlsplit(url).scheme not in ("http", "https"):
        return None
    return camo_url(camo_key, url)


class ImageLinkProcessor(CurrentRender, LinkProcessor):
    """`![alt](url)` (Zulip 12's Markdown image syntax): an <img class="inline-image"> for an
    uploaded image, an <img> through the camo proxy for another site's; with previews off or
    for anything else the syntax is left alone (the URL is then linked as usual)."""

    def handleMatch(self, m: Any, data: str) -> MatchResult:
        if not self.ctx.image_preview:
            return None, None, None
        text, index, handled = self.getText(data, m.end(0))
        if not handled:
            return None, None, None
        href, _title, index, handled = self.getLink(data, index)
        if not handled:
            return None, None, None
        url = sanitize_url(self.unescape(href.strip()))
        if url is None:
            return None, None, None
        url = make_relative(url, self.ctx.realm_url)
        attrs = self._attrs(url)
        if attrs is None:
            return None, None, None
        self.state.has_image = True
        return _img({"alt": text, **attrs}), m.start(0), index

    def _attrs(self, url: str) -> dict[str, str] | None:
        if url.startswith(UPLOADS_PREFIX):
            path_id = url.removeprefix(UPLOADS_PREFIX)
            preview = self.ctx.upload_previews.get(path_id)
            if preview is None:
                return None
            # The message uses the upload like a link to it would (attachments, access).
            if path_id not in self.state.attachment_path_ids:
                self.state.attachment_path_ids.append(path_id)
            attrs = upload_image_attrs(preview)
            placeholder = "class" in attrs
            attrs["class"] = (
                "inline-image image-loading-placeholder" if placeholder else ("inline-image")
            )
            return {**attrs, "data-original-src": url}
        source = external_image_source(url, self.ctx.camo_key)
        return None if source is None else {"data-original-src": url, "src": source}


# Rewriting stored HTML once a thumbnail is ready (Zulip's rewrite_thumbnailed_images). The
# HTML is our own sanitized output, so each form has exactly one shape.
def _placeholder_res(path_id: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    href = re.escape(escape(UPLOADS_PREFIX + path_id, quote=True))
    in_link = re.compile(
        rf'(?P<div><div class="message_inline_image"><a href="{href}"(?: title="[^"]*")?>)'
        r'(?P<img><img class="image-loading-placeholder"[^>]*>)(?P<end></a></div>)'
    )
    inline = re.compile(
        r'<img alt="(?P<alt>[^"]*)" class="inline-image image-loading-placeholder"'
        rf'[^>]*data-original-src="{href}"[^>]*>'
    )
    return in_link, inline


def fill_thumbnail(html: str, path_id: str, preview: UploadPreview | None) -> str:
    """Replace the loading spinners of upload `path_id` in rendered `html` by its thumbnail;
    with `preview` None (no thumbnail could be made) remove the previews instead."""
    in_link, inline = _placeholder_res(path_id)
    if preview is None:
        # zulip-compat: rewrite_thumbnailed_images strips the rewritten HTML.
        return inline.sub("", in_link.sub("", html)).strip()
    attrs = upload_image_attrs(preview)
    img = _serialize(attrs)
    html = in_link.sub(lambda m: m["div"] + img + m["end"], html)
    url = UPLOADS_PREFIX + path_id
    return inline.sub(
        lambda m: _serialize(
            {"alt": m["alt"], "class": "inline-image", **attrs, "data-original-src": url},
            escaped=("alt",),
        ),
        html,
    )


def _serialize(attrs: dict[str, str], escaped: tuple[str, ...] = ()) -> str:
    parts = [
        f'{name}="{value if name in escaped else escape(value, quote=True)}"'
        for name, value in sorted(attrs.items())
    ]
    return f"<img {' '.join(parts)}>"


def has_placeholders(html: str) -> bool:
    """Whether rendered `html` still shows a loading spinner for an upload."""
    return "image-loading-placeholder" in html


__all__ = [
    "IMAGE_LINK_RE",
    "SPINNER_URL",
    "ImageLinkProcessor",
    "InlineImagesTreeprocessor",
    "actual_image_url",
    "external_image_source",
    "fill_thumbnail",
    "has_placeholders",
    "upload_image_attrs",
]

"""After inline parsing, list the message's links and derive has_link, has_image and
has_attachment the way Zulip does (its InlineInterestingLinkProcessor, without previews)."""

from __future__ import annotations

from urllib.parse import urlsplit
from xml.etree.ElementTree import Element

from teamchat.render.context import CurrentRender
from teamchat.render.links import is_own_upload
from teamchat.render.md import Treeprocessor

IMAGE_EXTENSIONS = (".bmp", ".gif", ".jpe", ".jpeg", ".jpg", ".png", ".webp")


def is_image_url(url: str) -> bool:
    """Tell whether a link points at an image file, judging by its extension."""
    return urlsplit(url).path.lower().endswith(IMAGE_EXTENSIONS)


class LinkFlagsTreeprocessor(CurrentRender, Treeprocessor):
    """Record every `<a href>` in the state, in order, plus image and upload links."""

    def run(self, root: Element) -> Element | None:
        self._walk(root, in_blockquote=False)
        return None

    def _walk(self, element: Element, *, in_blockquote: bool) -> None:
        for child in element:
            if child.tag == "a" and child.get("href"):
                self._record(child.get("href", ""), in_blockquote=in_blockquote)
            self._walk(child, in_blockquote=in_blockquote or child.tag == "blockquote")

    def _record(self, href: str, *, in_blockquote: bool) -> None:
        # zulip-compat: every <a href> counts for has_link, channel and topic links included.
        if href not in self.state.links:
            self.state.links.append(href)
        # zulip-compat: Zulip sets has_image only for images it previews; links in quotes
        # are not previewed.
        # With previews on, has_image is set by the previews themselves (inline_images.py).
        if not in_blockquote and not self.ctx.image_preview and is_image_url(href):
            self.state.has_image = True
        path_id = is_own_upload(href, self.ctx.realm_url)
        if path_id is not None and path_id not in self.state.attachment_path_ids:
            self.state.attachment_path_ids.append(path_id)

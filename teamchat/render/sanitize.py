"""The last line of defence: an nh3 (ammonia) allow-list of exactly the tags, attributes and
classes the renderer produces. Anything else in the HTML is dropped."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from pygments.token import STANDARD_TYPES

from teamchat.lib.lazy import lazy_module
from teamchat.render.timestamps import DATETIME_ATTRIBUTE_RE

if TYPE_CHECKING:
    import nh3
else:  # the sanitizer's Rust library: imported by the first message rendered
    nh3 = lazy_module("nh3")

# The classes Pygments gives highlighted code ("k", "nf", "s1"...), and "hll" for hl_lines.
PYGMENTS_CLASSES = frozenset({*filter(None, STANDARD_TYPES.values()), "hll"})

ALLOWED_TAGS = frozenset(
    {
        *("a", "blockquote", "br", "code", "del", "div", "em", "hr", "img", "li", "ol"),
        *("p", "pre", "span", "strong", "table", "tbody", "td", "th", "thead", "tr", "ul"),
        *("h1", "h2", "h3", "h4", "h5", "h6", "time"),
    }
)
ALLOWED_ATTRIBUTES = {
    # data-id: a video preview's YouTube id, or an oEmbed player's markup (kept as text).
    "a": {"href", "class", "data-id", "data-stream-id", "title", "style"},
    "span": {"class", "data-user-id", "data-user-group-id", "aria-label", "role", "title"},
    "img": {
        *("alt", "class", "src", "title", "data-animated", "data-original-content-type"),
        *("data-original-dimensions", "data-original-src", "data-transcoded-image"),
    },
    "div": {"class", "data-code-language", "aria-hidden"},
    "ol": {"start"},
    "time": {"datetime"},
    "th": {"style"},
    "td": {"style"},
}
ALLOWED_CLASSES = {
    "a": frozenset({"stream", "stream-topic", "message-link", "message_embed_image"}),
    "span": frozenset(
        {
            *("user-mention", "channel-wildcard-mention", "topic-mention", "silent"),
            *("user-group-mention", "emoji", "timestamp-error", "tex-error"),
            *PYGMENTS_CLASSES,
        }
    ),
    "img": frozenset({"emoji", "inline-image", "image-loading-placeholder"}),
    "div": frozenset(
        {
            *("codehilite", "spoiler-block", "spoiler-header", "spoiler-content"),
            *("message_embed", "data-container", "message_embed_title"),
            "message_embed_description",
            *("message_inline_image", "youtube-video", "embed-video"),
        }
    ),
}
URL_SCHEMES = frozenset({"http", "https", "mailto", "tel", "sms"})

_EMOJI_CLASS_RE = re.compile(r"emoji-[0-9a-f]{4,5}(?:-[0-9a-f]{4,5})*")
_DIGITS_RE = re.compile(r"[0-9]+")
_FIXED_VALUES = {"aria-hidden": "true", "role": "img", "data-animated": "true"}
_DIMENSIONS_RE = re.compile(r"[0-9]{1,6}x[0-9]{1,6}")
_CONTENT_TYPE_RE = re.compile(r"image/[a-z0-9.+-]{1,40}")
_FORMAT_NAME_RE = re.compile(r"[0-9]{1,5}x[0-9]{1,5}(?:-anim)?\.webp")
# zulip-compat: the preview image of a message_embed is a CSS background (through camo).
_EMBED_STYLE_RE = re.compile(r'background-image: url\("/external_content/[0-9a-f]+/[0-9a-f]+"\)')


def _allowed_class(tag: str, name: str) -> bool:
    if name in ALLOWED_CLASSES.get(tag, ()):
        return True
    return tag == "span" and _EMOJI_CLASS_RE.fullmatch(name) is not None


def _filter_attribute(tag: str, attribute: str, value: str) -> str | None:
    """Keep an allowed attribute only if its value is one the renderer would produce."""
    if attribute == "class":
        names = [name for name in value.split() if _allowed_class(tag, name)]
        return " ".join(names) or None
    if attribute in ("data-stream-id", "data-user-group-id", "start"):
        return value if _DIGITS_RE.fullmatch(value) else None
    if attribute == "data-user-id":
        return value if value == "*" or _DIGITS_RE.fullmatch(value) else None
    if attribute == "datetime":
        return value if DATETIME_ATTRIBUTE_RE.fullmatch(value) else None
    if attribute == "style":
        return _filter_style(tag, value)
    if attribute == "data-original-dimensions":
        return value if _DIMENSIONS_RE.fullmatch(value) else None
    if attribute == "data-transcoded-image":
        return value if _FORMAT_NAME_RE.fullmatch(value) else None
    if attribute == "data-original-content-type":
        return value if _CONTENT_TYPE_RE.fullmatch(value) else None
    if attribute in _FIXED_VALUES:
        return value if value == _FIXED_VALUES[attribute] else None
    return value


_EMBED_STYLE_NH3 = 'style="background-image:url(&quot;/external_content/'
_EMBED_STYLE_ZULIP = 'style="background-image: url(&quot;/external_content/'


def _filter_style(tag: str, value: str) -> str | None:
    """Only table alignment on cells, and only a camo background image on embed links."""
    if tag == "a":
        return value if _EMBED_STYLE_RE.fullmatch(value) else None
    return None if "url" in value.lower() or "background" in value.lower() else value


@functools.cache
def _cleaner() -> nh3.Cleaner:
    return nh3.Cleaner(
        tags=ALLOWED_TAGS,
        clean_content_tags={"script", "style"},
        attributes=ALLOWED_ATTRIBUTES,
        attribute_filter=_filter_attribute,
        link_rel=None,
        url_schemes=URL_SCHEMES,
        filter_style_properties={"text-align", "background-image"},
    )


def sanitize_html(html: str) -> str:
    """Drop every tag, attribute, class and URL scheme the renderer does not produce."""
    # zulip-compat: Zulip writes the embed's style as `background-image: url("…")`; nh3
    # re-serializes the declaration without the space.
    return _cleaner().clean(html).replace(_EMBED_STYLE_NH3, _EMBED_STYLE_ZULIP)

"""The last line of defence: an nh3 (ammonia) allow-list of exactly the tags, attributes and
classes the renderer produces. Anything else in the HTML is dropped."""

from __future__ import annotations

import re

import nh3
from pygments.token import STANDARD_TYPES

from teamchat.render.timestamps import DATETIME_ATTRIBUTE_RE

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
    "a": {"href", "class", "data-stream-id", "title"},
    "span": {"class", "data-user-id", "data-user-group-id", "aria-label", "role", "title"},
    "img": {"alt", "class", "src", "title"},
    "div": {"class", "data-code-language", "aria-hidden"},
    "ol": {"start"},
    "time": {"datetime"},
    "th": {"style"},
    "td": {"style"},
}
ALLOWED_CLASSES = {
    "a": frozenset({"stream", "stream-topic", "message-link"}),
    "span": frozenset(
        {
            *("user-mention", "channel-wildcard-mention", "topic-mention", "silent"),
            *("user-group-mention", "emoji", "timestamp-error", "tex-error"),
            *PYGMENTS_CLASSES,
        }
    ),
    "img": frozenset({"emoji"}),
    "div": frozenset(
        {
            *("codehilite", "spoiler-block", "spoiler-header", "spoiler-content"),
            *("message_embed", "data-container", "message_embed_title"),
            "message_embed_description",
        }
    ),
}
URL_SCHEMES = frozenset({"http", "https", "mailto", "tel", "sms"})

_EMOJI_CLASS_RE = re.compile(r"emoji-[0-9a-f]{4,5}(?:-[0-9a-f]{4,5})*")
_DIGITS_RE = re.compile(r"[0-9]+")
_FIXED_VALUES = {"aria-hidden": "true", "role": "img"}


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
    if attribute in _FIXED_VALUES:
        return value if value == _FIXED_VALUES[attribute] else None
    return value


_CLEANER = nh3.Cleaner(
    tags=ALLOWED_TAGS,
    clean_content_tags={"script", "style"},
    attributes=ALLOWED_ATTRIBUTES,
    attribute_filter=_filter_attribute,
    link_rel=None,
    url_schemes=URL_SCHEMES,
    filter_style_properties={"text-align"},
)


def sanitize_html(html: str) -> str:
    """Drop every tag, attribute, class and URL scheme the renderer does not produce."""
    return _CLEANER.clean(html)

"""Links: `[text](url)`, bare URLs and e-mail addresses, and the URL checks every link passes.

Every `<a href>` the renderer makes goes through `url_to_a`, which rejects schemes outside
ALLOWED_SCHEMES (so `javascript:` never becomes a link) and makes links to this realm relative.
"""

from __future__ import annotations

import html
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from xml.etree.ElementTree import Element

from teamchat.render.linkify import BEFORE_LINK_RE, web_link_re
from teamchat.render.md import (
    AtomicString,
    CompiledInlineProcessor,
    LinkInlineProcessor,
    MatchResult,
)

# zulip-compat: Zulip also lets tel: and sms: through (markdown_test_cases "telephone_sms_link").
ALLOWED_SCHEMES = frozenset({"http", "https", "mailto", "tel", "sms"})

# Where a link, mention or channel link may start: start of text, whitespace or an opener.
BEFORE_ALLOWED_RE = BEFORE_LINK_RE


def sanitize_url(url: str) -> str | None:
    """Return `url` if it is safe to link to, a repaired version, or None to refuse it."""
    try:
        parts = urlsplit(url.replace(" ", "%20"))
        parts.port  # noqa: B018 -- raises ValueError for a port that is not a number
    except ValueError:
        return None
    scheme, netloc, path, query, fragment = parts
    if not scheme and not netloc:
        if "@" in path:
            scheme = "mailto"
        elif path.startswith("/"):
            return urlunsplit(("", "", path, query, fragment))
        elif not path and not query and fragment:
            return urlunsplit(("", "", "", "", fragment))
    if not scheme:
        # zulip-compat: a link without a scheme is taken to be http://.
        return sanitize_url("http://" + url)
    if scheme.lower() not in ALLOWED_SCHEMES:
        return None
    if scheme.lower() in ("http", "https") and not netloc:
        return None
    return urlunsplit((scheme, netloc, path, query, fragment))


def make_relative(url: str, realm_url: str) -> str:
    """Turn a link to this realm's narrows or uploads into a relative one, as Zulip does."""
    if realm_url:
        prefix = realm_url.rstrip("/") + "/"
        if url.startswith((prefix + "#", prefix + "user_uploads/")):
            return url.removeprefix(prefix)
    return url


def url_to_a(url: str, text: str | None, realm_url: str) -> Element | None:
    """Build `<a href>` for `url` showing `text` (default: the URL), or None if refused."""
    href = sanitize_url(url)
    if href is None:
        return None
    href = make_relative(href, realm_url)
    element = Element("a")
    element.set("href", href)
    element.text = AtomicString(text if text is not None else url)
    return element


# python-markdown scans for the closing bracket from every `[`, which is quadratic on input like
# "[[[[..."; these bounds keep a 10,000-character message to milliseconds. No real link comes
# near them.
LINK_TEXT_MAX_CHARS = 1000
LINK_URL_MAX_CHARS = 2000
LINK_MAX_NESTING = 8


class LinkProcessor(LinkInlineProcessor):
    """`[text](url)`: the URL is checked, and an empty text shows the URL."""

    def __init__(self, pattern: str, realm_url: str) -> None:
        super().__init__(pattern)
        self.realm_url = realm_url

    def handleMatch(self, m: Any, data: str) -> MatchResult:
        element, start, end = super().handleMatch(m, data)
        if not isinstance(element, Element):
            return None, None, None
        # Check the URL a browser would see: with character references like &#106; decoded.
        href = sanitize_url(html.unescape(self.unescape(element.get("href", "").strip())))
        if href is None:
            return None, None, None
        href = make_relative(href, self.realm_url)
        element.set("href", href)
        if not element.text or not element.text.strip():
            element.text = href
        # The link text is final: no linkifier or other pattern may split it up.
        element.text = AtomicString(element.text)
        return element, start, end

    def getText(self, data: str, index: int) -> tuple[str, int, bool]:
        """Return the text up to the matching `]`, within the nesting and length bounds."""
        depth = 1
        for pos in range(index, min(len(data), index + LINK_TEXT_MAX_CHARS)):
            if data[pos] == "]":
                depth -= 1
                if depth == 0:
                    return data[index:pos], pos + 1, True
            elif data[pos] == "[":
                depth += 1
                if depth > LINK_MAX_NESTING:
                    break
        return "", index, False

    def getLink(self, data: str, index: int) -> tuple[str, str | None, int, bool]:
        """Parse `(url "title")` like python-markdown, but give up early on hopeless input."""
        close = data.find(")", index)
        if close == -1 or data.count("(", index, close) > LINK_MAX_NESTING + 1:
            return "", None, index, False
        href, title, end, handled = super().getLink(data[: index + LINK_URL_MAX_CHARS], index)
        return href, title, end, handled


class AutoLinkProcessor(CompiledInlineProcessor):
    """Bare URLs, domains (`example.com`, linked as `http://`) and e-mail addresses become
    links; the text stays as typed."""

    def __init__(self, realm_url: str) -> None:
        super().__init__(web_link_re())
        self.realm_url = realm_url

    def handleMatch(self, m: Any, data: str) -> MatchResult:
        url = m.group("url")
        element = url_to_a(url, url, self.realm_url)
        if element is None:
            return None, None, None
        return element, m.start("url"), m.end("url")


def is_own_upload(url: str, realm_url: str) -> str | None:
    """Return the path id of a link to this realm's /user_uploads/, or None."""
    parts = urlsplit(url if url.startswith(("/", "#")) or "://" in url else "/" + url)
    if parts.netloc and parts.netloc != urlsplit(realm_url).netloc:
        return None
    if not parts.path.startswith("/user_uploads/"):
        return None
    return parts.path.removeprefix("/user_uploads/") or None


__all__ = [
    "ALLOWED_SCHEMES",
    "BEFORE_ALLOWED_RE",
    "AutoLinkProcessor",
    "LinkProcessor",
    "is_own_upload",
    "make_relative",
    "sanitize_url",
    "url_to_a",
    "web_link_re",
]

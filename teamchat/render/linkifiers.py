"""Linkifiers (realm "filters"): RE2 patterns whose matches become links built from an RFC 6570
URL template, in messages and in topics; plus validation of linkifiers and code playgrounds.

Error texts are Zulip's, since organization administrators see them as API errors.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import uritemplate

from teamchat.lib.lazy import lazy_module
from teamchat.render.context import Linkifier
from teamchat.render.links import sanitize_url, url_to_a, web_link_re
from teamchat.render.md import CompiledInlineProcessor, MatchResult

if TYPE_CHECKING:
    import re2  # type: ignore[import-untyped]
else:  # RE2 (and the C++ runtime under it): imported by the first linkifier a realm has
    re2 = lazy_module("re2")

BEFORE_GROUP = "linkifier_before_match"
OUTER_GROUP = "linkifier_actual_match"
AFTER_GROUP = "linkifier_after_match"

# RFC 6570: literals, and expressions `{[op]var[:len|*],...}`.
_LITERAL = r"""(?:[^\x00-\x20"'%<>\\^`{|}\x7f]|%[0-9A-Fa-f]{2})"""
_VARNAME = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*"
_VARSPEC = rf"{_VARNAME}(?::[1-9][0-9]{{0,3}}|\*)?"
_EXPRESSION = rf"\{{[+#./;?&]?{_VARSPEC}(?:,{_VARSPEC})*\}}"
URL_TEMPLATE_RE = re.compile(rf"(?:{_LITERAL}|{_EXPRESSION})*")


class BadLinkifierError(ValueError):
    """A linkifier pattern or URL template that cannot be used; str() is the message."""


class BadPlaygroundTemplateError(ValueError):
    """A code playground URL template that cannot be used; str() is the message."""


@dataclass(frozen=True)
class CompiledLinkifier:
    """A validated linkifier, ready to match text and expand URLs."""

    regex: Any  # an re2 pattern built around the realm's pattern
    template: uritemplate.URITemplate

    def url_for(self, match: Any) -> str:
        """Expand the URL template with the named groups of a match."""
        values = {name: value for name, value in match.groupdict().items() if value is not None}
        return str(self.template.expand(values))


# What a linkifier or playground URL template may start with: a web URL, or a path or fragment
# on this server (Zulip's relative forms, e.g. "/#narrow/..."). Never a scheme taken from the
# matched text (`{url}`), nor javascript:, data: and their kind.
_SAFE_TEMPLATE_START = re.compile(r"(?i:https?://)|/|#")
UNSAFE_URL_TEMPLATE = "URL template must start with http://, https://, / or #."


def url_template_variables(url_template: str) -> list[str]:
    """Return the variables of an RFC 6570 template, or raise ValueError if it is invalid."""
    if not url_template or not URL_TEMPLATE_RE.fullmatch(url_template):
        raise ValueError("Invalid URL template.")
    return list(uritemplate.URITemplate(url_template).variable_names)


def prepare_linkifier_pattern(pattern: str) -> str:
    """Wrap a realm pattern so it only matches whole words and records the matched text."""
    # zulip-compat: a match must start after whitespace (including U+0085 and \pZ, as RE2's
    # \s is ASCII only), an opening bracket or quote, and must not run into a letter or digit.
    return (
        rf"""(?P<{BEFORE_GROUP}>^|\s|\x{{85}}|\pZ|['"\(,:<])"""
        rf"(?P<{OUTER_GROUP}>{pattern})(?P<{AFTER_GROUP}>$|[^\pL\pN])"
    )


@functools.lru_cache(maxsize=1024)
def compile_linkifier(pattern: str, url_template: str) -> CompiledLinkifier:
    """Validate a linkifier and compile it, raising BadLinkifierError with Zulip's message."""
    options = re2.Options()
    options.log_errors = False
    try:
        groups = set(re2.compile(pattern, options=options).groupindex)
        regex = re2.compile(prepare_linkifier_pattern(pattern), options=options)
    except re2.error as error:
        detail = error.args[0] if error.args else "unknown error"
        detail = detail.decode() if isinstance(detail, bytes) else str(detail)
        raise BadLinkifierError(f"Bad regular expression: {detail}") from None
    try:
        variables = set(url_template_variables(url_template))
    except ValueError as error:
        raise BadLinkifierError(str(error)) from None
    if variables - groups:
        name = min(variables - groups)
        raise BadLinkifierError(
            f"Group {name!r} in URL template is not present in linkifier pattern."
        )
    if groups - variables:
        name = min(groups - variables)
        raise BadLinkifierError(
            f"Group {name!r} in linkifier pattern is not present in URL template."
        )
    if not _SAFE_TEMPLATE_START.match(url_template):
        raise BadLinkifierError(UNSAFE_URL_TEMPLATE)
    return CompiledLinkifier(regex=regex, template=uritemplate.URITemplate(url_template))


def validate_playground_template(url_template: str) -> None:
    """Check a code playground URL template: valid, with `code` as its only variable."""
    try:
        variables = set(url_template_variables(url_template))
    except ValueError as error:
        raise BadPlaygroundTemplateError(str(error)) from None
    if "code" not in variables:
        raise BadPlaygroundTemplateError('Missing the required variable "code" in the URL template')
    if len(variables) != 1:
        raise BadPlaygroundTemplateError(
            '"code" should be the only variable present in the URL template'
        )
    if not _SAFE_TEMPLATE_START.match(url_template):
        raise BadPlaygroundTemplateError(UNSAFE_URL_TEMPLATE)


def compiled_linkifiers(linkifiers: Sequence[Linkifier]) -> list[CompiledLinkifier]:
    """Compile the realm's linkifiers in order, skipping any that are invalid."""
    compiled = []
    for linkifier in linkifiers:
        try:
            compiled.append(compile_linkifier(linkifier.pattern, linkifier.url_template))
        except BadLinkifierError:
            continue
    return compiled


class LinkifierProcessor(CompiledInlineProcessor):
    """Turn each match of one linkifier into `<a href="expanded URL">matched text</a>`."""

    def __init__(self, linkifier: CompiledLinkifier, realm_url: str) -> None:
        super().__init__(linkifier.regex)
        self.linkifier = linkifier
        self.realm_url = realm_url

    def handleMatch(self, m: Any, data: str) -> MatchResult:
        element = url_to_a(self.linkifier.url_for(m), m.group(2), self.realm_url)
        if element is None:
            return None, None, None
        return element, m.start(2), m.end(2)


@dataclass(frozen=True)
class _TopicLink:
    url: str
    text: str
    index: int
    precedence: int


def _linkifier_topic_links(topic: str, linkifiers: Sequence[Linkifier]) -> list[_TopicLink]:
    found = []
    for precedence, linkifier in enumerate(compiled_linkifiers(linkifiers)):
        pos = 0
        while pos < len(topic):
            m = linkifier.regex.search(topic, pos)
            if m is None:
                break
            # Step back over the character after the match: it may start the next one.
            pos = m.end() - len(m.groups()[-1] or "")
            pos = max(pos, m.start() + 1)
            url = sanitize_url(linkifier.url_for(m))
            if url is not None:  # the expanded URL is checked like every link we make
                found.append(_TopicLink(url, m.group(2), m.start(2), precedence))
    return found


# zulip-compat: Zulip finds raw URLs in topics between these characters.
_TOPIC_SPLIT_RE = re.compile(r"""[ !;),'"]""")


def _topic_url(text: str) -> str | None:
    """The URL of a raw link in a topic; a bare domain (`example.com/x`) gets https://."""
    parts = urlsplit(text)
    if not parts.scheme:
        # zulip-compat: Zulip links a bare domain in a topic as https, not http.
        host, slash, path = text.partition("/")
        parts = urlsplit(f"https://{host}{slash}{path}")
    return parts.geturl() if parts.scheme in ("http", "https") and parts.netloc else None


def _raw_url_topic_links(topic: str, precedence: int) -> list[_TopicLink]:
    found = []
    pos = 0
    while pos < len(topic):
        split = _TOPIC_SPLIT_RE.search(topic, pos)
        end = split.start() if split else len(topic)
        m = web_link_re().search(topic[pos:end])
        url = _topic_url(m.group("url")) if m else None
        if m and url is not None:
            found.append(_TopicLink(url, m.group("url"), pos + m.start("url"), precedence))
        pos = end + 1
    return found


def topic_links(topic: str, linkifiers: Sequence[Linkifier]) -> list[dict[str, str]]:
    """Return Zulip's `topic_links`: [{"text", "url"}] for linkifier matches and raw URLs."""
    candidates = _linkifier_topic_links(topic, linkifiers)
    candidates.sort(key=lambda link: (link.precedence, link.index))
    candidates += _raw_url_topic_links(topic, precedence=len(linkifiers))
    # Earlier linkifiers win over later ones, and all of them over raw URLs, when they overlap.
    applied: list[_TopicLink] = []
    for link in candidates:
        if all(_disjoint(link, other) for other in applied):
            applied.append(link)
    applied.sort(key=lambda link: link.index)
    return [{"text": link.text, "url": link.url} for link in applied]


def _disjoint(a: _TopicLink, b: _TopicLink) -> bool:
    return a.index + len(a.text) <= b.index or b.index + len(b.text) <= a.index

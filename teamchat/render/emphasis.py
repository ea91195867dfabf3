"""Bold `**x**`, italic `*x*`, both `***x***` and strikethrough `~~x~~`.

zulip-compat: underscores never make emphasis (`_x_` and `__x__` stay literal), and
emphasis does not span lines.
"""

from __future__ import annotations

import re
from typing import Any
from xml.etree.ElementTree import Element, SubElement

from teamchat.render.md import CompiledInlineProcessor, MatchResult

STRONG_EM_RE = re.compile(r"\*\*\*(?!\s)(?P<body>[^*\n]+)(?<!\s)\*\*\*")
STRONG_RE = re.compile(r"\*\*(?P<body>[^\n]+?)\*\*")
# The body must not start or end with a space, so `char *x = (char *)y` stays text.
EMPHASIS_RE = re.compile(r"\*(?!\s)(?P<body>[^*\n]+)(?<!\s)\*")
DEL_RE = re.compile(r"(?<!~)~~(?P<body>[^~\n]+?)~~(?!~)")


class TagProcessor(CompiledInlineProcessor):
    """Wrap the `body` group of a regex in the given tags, outermost first."""

    def __init__(self, regex: re.Pattern[str], *tags: str) -> None:
        super().__init__(regex)
        self.tags = tags

    def handleMatch(self, m: Any, data: str) -> MatchResult:
        outer = Element(self.tags[0])
        inner = outer
        for tag in self.tags[1:]:
            inner = SubElement(inner, tag)
        inner.text = m.group("body")
        return outer, m.start(), m.end()


def strong_em() -> TagProcessor:
    """Return the processor for `***bold italic***`."""
    return TagProcessor(STRONG_EM_RE, "strong", "em")


def strong() -> TagProcessor:
    """Return the processor for `**bold**`."""
    return TagProcessor(STRONG_RE, "strong")


def emphasis() -> TagProcessor:
    """Return the processor for `*italic*`."""
    return TagProcessor(EMPHASIS_RE, "em")


def strikethrough() -> TagProcessor:
    """Return the processor for `~~struck~~`."""
    return TagProcessor(DEL_RE, "del")

"""Inline code: `` `code` `` with any number of backticks, spaces inside kept.

zulip-compat: unlike python-markdown, Zulip does not strip the spaces around the code, so
`` ` x ` `` renders as `<code> x </code>`.
"""

from __future__ import annotations

import re
from typing import Any
from xml.etree.ElementTree import Element

from teamchat.render.md import AtomicString, CompiledInlineProcessor, MatchResult, code_escape

CODE_SPAN_RE = re.compile(r"(?<!`)(?P<ticks>`+)(?!`)(?P<body>.+?)(?<!`)(?P=ticks)(?!`)", re.DOTALL)


class CodeSpanProcessor(CompiledInlineProcessor):
    """Turn a backtick span into `<code>` whose text no other pattern touches."""

    def __init__(self) -> None:
        super().__init__(CODE_SPAN_RE)

    def handleMatch(self, m: Any, data: str) -> MatchResult:
        element = Element("code")
        element.text = AtomicString(code_escape(m.group("body")))
        return element, m.start(), m.end()

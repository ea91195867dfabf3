"""Bulleted and numbered lists: two-space nesting, and lists that follow a line of text directly.

zulip-compat: Zulip nests list items by two spaces (python-markdown wants four) and starts a
list right after a paragraph line without the blank line Markdown requires.
"""

from __future__ import annotations

import re

from teamchat.render.fenced_blocks import FENCE_RE, QUOTE_LANGUAGES, SPOILER_FENCE_RE
from teamchat.render.md import (
    BlockParser,
    ListIndentProcessor,
    Preprocessor,
    SaneOListProcessor,
    SaneUListProcessor,
)

LIST_ITEM_RE = re.compile(r"^[ ]*(?P<marker>[*+-]|\d+\.)[ ]+\S")
LIST_TAB_LENGTH = 2


def _is_list_item(line: str) -> re.Match[str] | None:
    return LIST_ITEM_RE.match(line)


def _needs_blank_line(line: str, following: str) -> bool:
    """Tell whether a blank line must go between `line` and a list item `following` it."""
    item, next_item = _is_list_item(line), _is_list_item(following)
    if next_item is None or not line.strip():
        return False
    if item is None:
        return True
    # A bulleted list right after a numbered one (or the reverse) starts a new list.
    return (len(item.group("marker")) == 1) != (len(next_item.group("marker")) == 1)


class HangingListPreprocessor(Preprocessor):
    """Insert the blank line Markdown needs before a list that hangs off a paragraph."""

    def run(self, lines: list[str]) -> list[str]:
        output: list[str] = []
        fences: list[tuple[str, bool]] = []  # (fence, is code)
        for index, line in enumerate(lines):
            output.append(line)
            fences = _track_fences(fences, line)
            in_code = any(is_code for _, is_code in fences)
            if not in_code and index + 1 < len(lines) and _needs_blank_line(line, lines[index + 1]):
                output.append("")
        return output


def _track_fences(fences: list[tuple[str, bool]], line: str) -> list[tuple[str, bool]]:
    """Follow which fenced blocks are open after `line`; lists in code are left alone."""
    if fences and line.strip() == fences[-1][0]:
        return fences[:-1]
    if any(is_code for _, is_code in fences):
        return fences
    spoiler = SPOILER_FENCE_RE.match(line)
    if spoiler:
        return [*fences, (spoiler.group("fence"), False)]
    fence = FENCE_RE.match(line)
    if fence:
        lang = (fence.group("lang") or "").lower()
        return [*fences, (fence.group("fence"), lang not in QUOTE_LANGUAGES)]
    return fences


def _with_tab_length(parser: BlockParser, length: int) -> int:
    saved = parser.md.tab_length
    parser.md.tab_length = length
    return saved


class TwoSpaceOListProcessor(SaneOListProcessor):
    """Numbered lists nested by two spaces."""

    def __init__(self, parser: BlockParser) -> None:
        saved = _with_tab_length(parser, LIST_TAB_LENGTH)
        try:
            super().__init__(parser)
        finally:
            parser.md.tab_length = saved


class TwoSpaceUListProcessor(SaneUListProcessor):
    """Bulleted lists nested by two spaces."""

    def __init__(self, parser: BlockParser) -> None:
        saved = _with_tab_length(parser, LIST_TAB_LENGTH)
        try:
            super().__init__(parser)
        finally:
            parser.md.tab_length = saved


class TwoSpaceListIndentProcessor(ListIndentProcessor):
    """Continuation and nested blocks of list items, indented by two spaces."""

    def __init__(self, parser: BlockParser) -> None:
        saved = _with_tab_length(parser, LIST_TAB_LENGTH)
        try:
            super().__init__(parser)
        finally:
            parser.md.tab_length = saved

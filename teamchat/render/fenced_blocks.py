"""Fenced blocks opened by ``` or ~~~: code (with a language), ```quote, ```spoiler Header
and ```math, handled before block parsing like Zulip's fenced_code preprocessor.

Code and math become stashed HTML; a quote becomes `> ` lines for the blockquote processor; a
spoiler wraps its header and content, which are still parsed as Markdown, in stashed HTML. A
fence that names no language takes the realm's default_code_block_language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from teamchat.render.code_blocks import code_block_html
from teamchat.render.context import CurrentRender
from teamchat.render.math import math_block_html
from teamchat.render.md import Preprocessor

# zulip-compat: words after the language (a header, used by spoilers) do not stop a fence.
FENCE_RE = re.compile(
    r"^[ ]{0,3}(?P<fence>~{3,}|`{3,})[ ]*"
    r"(?:\{?\.?(?P<lang>[\w+\-./#]+)(?:[ ]+[^ ~`][^~`]*?)?\}?)?[ ]*$"
)
SPOILER_FENCE_RE = re.compile(
    r"^[ ]{0,3}(?P<fence>~{3,}|`{3,})[ ]*spoiler(?:[ ]+(?P<header>.*?))?[ ]*$"
)
QUOTE_LANGUAGES = frozenset({"quote", "quoted"})

SPOILER_OPEN_HTML = '<div class="spoiler-block"><div class="spoiler-header">'
SPOILER_MIDDLE_HTML = '</div><div class="spoiler-content" aria-hidden="true">'
SPOILER_CLOSE_HTML = "</div></div>"


@dataclass
class _Block:
    fence: str
    kind: str  # "code", "math", "quote" or "spoiler"
    lang: str | None = None
    header: str = ""
    lines: list[str] = field(default_factory=list)

    @property
    def is_code(self) -> bool:
        return self.kind in ("code", "math")


def _open_block(line: str, default_language: str) -> _Block | None:
    spoiler = SPOILER_FENCE_RE.match(line)
    if spoiler:
        return _Block(spoiler.group("fence"), "spoiler", header=spoiler.group("header") or "")
    fence = FENCE_RE.match(line)
    if not fence:
        return None
    # zulip-compat: languages are lowercased, and a fence without one takes the realm's.
    lang = (fence.group("lang") or default_language).lower() or None
    if lang in QUOTE_LANGUAGES:
        return _Block(fence.group("fence"), "quote")
    if lang == "math":
        return _Block(fence.group("fence"), "math")
    return _Block(fence.group("fence"), "code", lang=lang)


class FencedBlockPreprocessor(CurrentRender, Preprocessor):
    """Replace fenced blocks by stashed HTML or quote lines; unclosed blocks end the message."""

    def run(self, lines: list[str]) -> list[str]:
        output: list[str] = []
        stack: list[_Block] = []
        for line in lines:
            top = stack[-1] if stack else None
            if top is not None and line.strip() == top.fence:
                stack.pop()
                (stack[-1].lines if stack else output).extend(self._emit(top))
                continue
            if top is None or not top.is_code:
                block = _open_block(line, self.ctx.default_code_block_language)
                if block is not None:
                    stack.append(block)
                    continue
            (top.lines if top is not None else output).append(line)
        while stack:
            block = stack.pop()
            (stack[-1].lines if stack else output).extend(self._emit(block))
        return output

    def _emit(self, block: _Block) -> list[str]:
        # Blank lines around the result keep it a block of its own, even at the very end.
        return ["", *self._block_lines(block), "", ""]

    def _block_lines(self, block: _Block) -> list[str]:
        stash = self.md.htmlStash.store
        if block.kind == "quote":
            return [f"> {line}" for line in block.lines]
        if block.kind == "spoiler":
            header = ["", block.header] if block.header.strip() else []
            return [
                stash(SPOILER_OPEN_HTML),
                *header,
                "",
                stash(SPOILER_MIDDLE_HTML),
                "",
                *block.lines,
                "",
                stash(SPOILER_CLOSE_HTML),
            ]
        if block.kind in ("code", "math") and not block.lines:
            return []  # zulip-compat: an empty code or math block renders as nothing
        if block.kind == "math":
            text = "\n".join(line.rstrip() for line in block.lines)
            return [stash(math_block_html(self.state, text))]
        return [stash(code_block_html("\n".join(block.lines), block.lang))]

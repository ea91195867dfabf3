"""Quotes: lines starting with `>` (and ```quote blocks, which fenced_blocks.py turns into
such lines).

zulip-compat: as in CommonMark, a blank line ends a quote instead of merging the next one
into it; a quote of only empty `>` lines is text; mentions inside quotes are made silent so
quoting a message does not notify people again.
"""

from __future__ import annotations

import re
from xml.etree.ElementTree import Element, SubElement

from teamchat.render.md import BlockQuoteProcessor
from teamchat.render.mentions import silence_mentions

# A line opening a quote, unless it and every line after it are empty `>` lines.
QUOTE_RE = re.compile(r"(^|\n)(?!(?:[ ]{0,3}>\s*(?:\n|$))*(?:\n|$))[ ]{0,3}>[ ]?(.*)")


class QuoteProcessor(BlockQuoteProcessor):
    """python-markdown's block quotes with Zulip's rules."""

    RE = QUOTE_RE

    def run(self, parent: Element, blocks: list[str]) -> bool | None:
        block = blocks.pop(0)
        m = self.RE.search(block)
        if m:
            # Lines before the quote are parsed first, as paragraphs or whatever they are.
            self.parser.parseBlocks(parent, [block[: m.start()]])
            block = "\n".join(self.clean(line) for line in block[m.start() :].split("\n"))
        quote = SubElement(parent, "blockquote")
        self.parser.state.set("blockquote")
        self.parser.parseChunk(quote, block)
        self.parser.state.reset()
        return None

    def clean(self, line: str) -> str:
        """Strip the leading `>` and silence mentions."""
        return super().clean(silence_mentions(line))

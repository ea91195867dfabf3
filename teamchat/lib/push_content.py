"""The plain text of a rendered message for a mobile notification (Zulip's
`get_mobile_push_content`, simplified): text only, whitespace collapsed, at most 200
characters. Pure; no I/O.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

MAX_PUSH_CONTENT_CHARS = 200
ELLIPSIS = "…"
_BLOCKS = frozenset({"p", "br", "li", "div", "blockquote", "pre", "tr", "h1", "h2", "h3"})
_SKIPPED = frozenset({"script", "style"})


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0
        # Inside KaTeX's output: the depth of open tags there, and the TeX source seen so far.
        self._math_depth = 0
        self._in_annotation = False
        self._tex: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._math_depth:
            self._math_depth += 1
            self._in_annotation = tag == "annotation"
        elif tag == "span" and "katex" in (dict(attrs).get("class") or "").split():
            # A formula is shown by KaTeX three times over (MathML, layout, source): the
            # notification gets its TeX source once, as written.
            self._math_depth, self._tex = 1, []
        elif tag in _SKIPPED:
            self._skip += 1
        elif tag in _BLOCKS:
            self.parts.append("\n")
        elif tag == "img":
            # zulip-compat: an inline image is named, not dropped.
            self.parts.append(dict(attrs).get("alt") or "")

    def handle_endtag(self, tag: str) -> None:
        if self._math_depth:
            self._math_depth -= 1
            self._in_annotation = False
            if not self._math_depth:
                self.parts.append("$$" + "".join(self._tex) + "$$")
        elif tag in _SKIPPED:
            self._skip = max(0, self._skip - 1)
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._math_depth:
            if self._in_annotation:
                self._tex.append(data)
        elif not self._skip:
            self.parts.append(data)


def mobile_push_content(rendered_html: str) -> str:
    """Plain text of `rendered_html`, truncated with an ellipsis after 200 characters."""
    parser = _Text()
    parser.feed(rendered_html)
    parser.close()
    raw_lines = "".join(parser.parts).split("\n")
    lines = (re.sub(r"[ \t\r\f\v]+", " ", line).strip() for line in raw_lines)
    text = "\n".join(line for line in lines if line)
    if len(text) > MAX_PUSH_CONTENT_CHARS:
        text = text[: MAX_PUSH_CONTENT_CHARS - len(ELLIPSIS)] + ELLIPSIS
    return text

"""Code blocks in Zulip's markup, highlighted by Pygments as Zulip's server does:
`<div class="codehilite" data-code-language="Python"><pre><span></span><code>...`.

Fenced blocks (see fenced_blocks.py) name their language, or take the realm's default; a block
without one may name it on its first line (`#!python`, `:::python`), which stays in the code.
Blocks indented by four spaces are highlighted only when their first line names a language,
and that line is removed (python-markdown's CodeHilite, which Zulip uses for them).
"""

from __future__ import annotations

import functools
import html
import re
from typing import TYPE_CHECKING
from xml.etree.ElementTree import Element, SubElement

from teamchat.lib.lazy import lazy_module
from teamchat.render.md import Treeprocessor

if TYPE_CHECKING:
    import pygments
    from pygments import formatters, lexers
    from pygments import util as pygments_util
    from pygments.formatters import HtmlFormatter
    from pygments.lexer import Lexer
else:  # Pygments' highlighter and its table of lexers: imported by the first code block
    pygments = lazy_module("pygments")
    formatters = lazy_module("pygments.formatters")
    lexers = lazy_module("pygments.lexers")
    pygments_util = lazy_module("pygments.util")

# zulip-compat: python-markdown's CodeHilite header: `#!lang` or `:::lang` (two or more
# colons), an optional path, and optional `hl_lines="1 3"`.
HEADER_RE = re.compile(
    r"""(?:(?:^::+)|(?P<shebang>^[#]!))
    (?P<path>(?:/\w+)*[/ ])?
    (?P<lang>[\w#.+-]*)
    \s*
    (hl_lines=(?P<quot>"|')(?P<hl_lines>.*?)(?P=quot))?""",
    re.VERBOSE,
)
_OPEN_DIV = '<div class="codehilite">'


@functools.lru_cache(maxsize=256)
def _lexer(lang: str) -> Lexer:
    # zulip-compat: startinline lets PHP snippets highlight without `<?php`.
    try:
        return lexers.get_lexer_by_name(lang, startinline=True)
    except pygments_util.ClassNotFound:
        return lexers.get_lexer_by_name("text")


@functools.lru_cache(maxsize=256)
def language_display_name(lang: str) -> str:
    """Return the name Zulip puts in data-code-language: Pygments' name for the lexer
    ("py" -> "Python"), or the language as written if Pygments has no lexer for it."""
    try:
        return str(lexers.find_lexer_class_by_name(lang).name)
    except pygments_util.ClassNotFound:
        return lang


def _hl_lines(spec: str | None) -> list[int]:
    if not spec:
        return []
    try:
        return [int(number) for number in spec.split()]
    except ValueError:
        return []


@functools.lru_cache(maxsize=64)
def _formatter(hl_lines: tuple[int, ...]) -> HtmlFormatter[str]:
    # Building a formatter costs about a millisecond (it prepares its style table); a built
    # one keeps no state between calls, so one per hl_lines serves every block.
    return formatters.HtmlFormatter(cssclass="codehilite", wrapcode=True, hl_lines=list(hl_lines))


def highlight_html(code: str, lang: str | None, hl_lines: list[int] | None = None) -> str:
    """Return Pygments' `<div class="codehilite">` for `code` in `lang` (plain text if None)."""
    formatter = _formatter(tuple(hl_lines or ()))
    return str(pygments.highlight(code, _lexer(lang or "text"), formatter)).rstrip("\n")


def code_block_html(code: str, lang: str | None) -> str:
    """Return the HTML of a fenced code block holding `code`, in language `lang` if given
    (lowercase, as Zulip's fence parser leaves it)."""
    # zulip-compat: the fence parser drops trailing spaces; blank lines around go too.
    text = "\n".join(line.rstrip() for line in code.split("\n")).strip("\n")
    if lang:
        block = highlight_html(text, lang)
        language = html.escape(language_display_name(lang))
        return block.replace(
            _OPEN_DIV, f'<div class="codehilite" data-code-language="{language}">', 1
        )
    header = HEADER_RE.search(text.split("\n", 1)[0])
    if header is None:
        return highlight_html(text, None)
    # zulip-compat: Zulip keeps the header line in a fenced block, and adds no
    # data-code-language for a language named this way.
    return highlight_html(
        text, header.group("lang").lower() or None, _hl_lines(header.group("hl_lines"))
    )


class IndentedCodeTreeprocessor(Treeprocessor):
    """Give blocks indented by four spaces (`<pre><code>`) the same markup as fenced ones.

    Runs after python-markdown's prettify step, which trims the code's trailing newlines.
    """

    def run(self, root: Element) -> Element | None:
        for parent in list(root.iter()):
            for index, child in enumerate(list(parent)):
                if child.tag == "pre" and len(child) == 1 and child[0].tag == "code":
                    highlighted = self._highlighted(child[0])
                    parent[index] = _wrap(child[0]) if highlighted is None else highlighted
                    parent[index].tail = child.tail
        return None

    def _highlighted(self, code: Element) -> Element | None:
        """A block whose first line names its language: highlighted, without that line."""
        text = html.unescape(code.text or "")
        first, _, rest = text.partition("\n")
        header = HEADER_RE.search(first)
        if header is None:
            return None
        if header.group("path"):
            rest = text  # zulip-compat: a `#!/usr/bin/python` line is code, kept.
        lang = header.group("lang").lower() or None
        block = highlight_html(rest.strip("\n"), lang, _hl_lines(header.group("hl_lines")))
        placeholder = Element("p")
        placeholder.text = self.md.htmlStash.store(block)
        return placeholder


def _wrap(code: Element) -> Element:
    div = Element("div")
    div.set("class", "codehilite")
    pre = SubElement(div, "pre")
    SubElement(pre, "span")
    pre.append(code)
    return div

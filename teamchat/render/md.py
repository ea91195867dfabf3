"""A typed facade over python-markdown: the only module that imports `markdown` itself.

python-markdown ships no type information, so for mypy this module declares the small part of
its API the renderer uses; at run time the names are the library's own classes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from xml.etree.ElementTree import Element

# What an inline processor's handleMatch returns: (element or text, start, end).
MatchResult = tuple[Element | str | None, int | None, int | None]

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Generic, TypeVar

    _T = TypeVar("_T")

    class AtomicString(str): ...

    def code_escape(text: str) -> str: ...

    class Registry(Generic[_T]):
        def register(self, item: _T, name: str, priority: float) -> None: ...
        def deregister(self, name: str, strict: bool = ...) -> None: ...
        def __iter__(self) -> Iterator[_T]: ...
        def __len__(self) -> int: ...

    class HtmlStash:
        def store(self, html: str) -> str: ...

    class State(list[str]):
        def set(self, state: str) -> None: ...
        def reset(self) -> None: ...
        def isstate(self, state: str) -> bool: ...

    class BlockParser:
        md: Markdown
        state: State
        blockprocessors: Registry[BlockProcessor]

        def __init__(self, md: Markdown) -> None: ...
        def parseBlocks(self, parent: Element, blocks: list[str]) -> None: ...
        def parseChunk(self, parent: Element, text: str) -> None: ...

    class Markdown:
        preprocessors: Registry[Preprocessor]
        parser: BlockParser
        inlinePatterns: Registry[InlineProcessor]
        treeprocessors: Registry[Treeprocessor]
        postprocessors: Registry[Postprocessor]
        htmlStash: HtmlStash
        tab_length: int

        def __init__(self, *, output_format: str = ..., tab_length: int = ...) -> None: ...
        def build_parser(self) -> Markdown: ...
        def convert(self, source: str) -> str: ...
        def reset(self) -> Markdown: ...

    class Preprocessor:
        md: Markdown

        def __init__(self, md: Markdown | None = None) -> None: ...
        def run(self, lines: list[str]) -> list[str]: ...

    class NormalizeWhitespace(Preprocessor): ...

    class BlockProcessor:
        parser: BlockParser
        tab_length: int

        def __init__(self, parser: BlockParser) -> None: ...
        def lastChild(self, parent: Element) -> Element | None: ...
        def test(self, parent: Element, block: str) -> bool: ...
        def run(self, parent: Element, blocks: list[str]) -> bool | None: ...

    class EmptyBlockProcessor(BlockProcessor): ...

    class ListIndentProcessor(BlockProcessor): ...

    class CodeBlockProcessor(BlockProcessor): ...

    class HRProcessor(BlockProcessor): ...

    class ParagraphProcessor(BlockProcessor): ...

    class OListProcessor(BlockProcessor): ...

    class UListProcessor(BlockProcessor): ...

    class SaneOListProcessor(OListProcessor): ...

    class SaneUListProcessor(UListProcessor): ...

    class HashHeaderProcessor(BlockProcessor):
        RE: Any

    class BlockQuoteProcessor(BlockProcessor):
        RE: Any

        def clean(self, line: str) -> str: ...

    class TableProcessor(BlockProcessor):
        def __init__(self, parser: BlockParser, config: dict[str, Any]) -> None: ...

    class InlineProcessor:
        md: Markdown | None
        pattern: str
        safe_mode: bool
        compiled_re: Any

        def __init__(self, pattern: str, md: Markdown | None = None) -> None: ...
        def handleMatch(self, m: Any, data: str) -> MatchResult: ...
        def unescape(self, text: str) -> str: ...

    class LinkInlineProcessor(InlineProcessor):
        def getText(self, data: str, index: int) -> tuple[str, int, bool]: ...
        def getLink(self, data: str, index: int) -> tuple[str, str | None, int, bool]: ...

    class HtmlInlineProcessor(InlineProcessor): ...

    class SubstituteTagInlineProcessor(InlineProcessor):
        def __init__(self, pattern: str, tag: str) -> None: ...

    class Treeprocessor:
        md: Markdown

        def __init__(self, md: Markdown | None = None) -> None: ...
        def run(self, root: Element) -> Element | None: ...

    class InlineTreeprocessor(Treeprocessor): ...

    class PrettifyTreeprocessor(Treeprocessor): ...

    class UnescapeTreeprocessor(Treeprocessor): ...

    class Postprocessor:
        md: Markdown

        def __init__(self, md: Markdown | None = None) -> None: ...
        def run(self, text: str) -> str: ...

    class RawHtmlPostprocessor(Postprocessor): ...

    class AndSubstitutePostprocessor(Postprocessor): ...

    ENTITY_RE: str
    LINK_RE: str
else:
    from markdown import Markdown
    from markdown.blockparser import BlockParser
    from markdown.blockprocessors import (
        BlockProcessor,
        BlockQuoteProcessor,
        CodeBlockProcessor,
        EmptyBlockProcessor,
        HashHeaderProcessor,
        HRProcessor,
        ListIndentProcessor,
        OListProcessor,
        ParagraphProcessor,
        UListProcessor,
    )
    from markdown.extensions.sane_lists import SaneOListProcessor, SaneUListProcessor
    from markdown.extensions.tables import TableProcessor
    from markdown.inlinepatterns import (
        ENTITY_RE,
        LINK_RE,
        HtmlInlineProcessor,
        InlineProcessor,
        LinkInlineProcessor,
        SubstituteTagInlineProcessor,
    )
    from markdown.postprocessors import (
        AndSubstitutePostprocessor,
        Postprocessor,
        RawHtmlPostprocessor,
    )
    from markdown.preprocessors import NormalizeWhitespace, Preprocessor
    from markdown.treeprocessors import InlineProcessor as InlineTreeprocessor
    from markdown.treeprocessors import (
        PrettifyTreeprocessor,
        Treeprocessor,
        UnescapeTreeprocessor,
    )
    from markdown.util import AtomicString, Registry, code_escape


class CompiledInlineProcessor(InlineProcessor):
    """An inline processor built from an already compiled regex (`re` or `re2`).

    python-markdown's constructor compiles a pattern string on every call; the renderer builds
    a fresh Markdown per message, so its processors take module-level compiled patterns.
    """

    def __init__(self, compiled_re: Any) -> None:
        # Deliberately not calling super().__init__, which would compile a pattern string.
        self.pattern = getattr(compiled_re, "pattern", "")
        self.compiled_re = compiled_re
        self.safe_mode = False
        self.md = None


__all__ = [
    "ENTITY_RE",
    "LINK_RE",
    "AndSubstitutePostprocessor",
    "AtomicString",
    "BlockParser",
    "BlockProcessor",
    "BlockQuoteProcessor",
    "CodeBlockProcessor",
    "CompiledInlineProcessor",
    "EmptyBlockProcessor",
    "HRProcessor",
    "HashHeaderProcessor",
    "HtmlInlineProcessor",
    "InlineProcessor",
    "InlineTreeprocessor",
    "LinkInlineProcessor",
    "ListIndentProcessor",
    "Markdown",
    "MatchResult",
    "NormalizeWhitespace",
    "OListProcessor",
    "ParagraphProcessor",
    "Postprocessor",
    "Preprocessor",
    "PrettifyTreeprocessor",
    "RawHtmlPostprocessor",
    "Registry",
    "SaneOListProcessor",
    "SaneUListProcessor",
    "SubstituteTagInlineProcessor",
    "TableProcessor",
    "Treeprocessor",
    "UListProcessor",
    "UnescapeTreeprocessor",
    "code_escape",
]

"""Search highlighting: Zulip's `match_content` and `match_subject`.

A word of a message matches a search word when both stem to the same term under the Porter
algorithm with case and diacritics folded: exactly how the full-text index (FTS5's `porter
unicode61 remove_diacritics 2` tokenizer) decided the message matched. Matches are wrapped in
`<span class="highlight">`, in the text of the rendered HTML only (never inside a tag or an
entity), and in the HTML-escaped topic.
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from teamchat.lib.lazy import lazy_module
from teamchat.lib.narrow import NarrowTerm
from teamchat.records import MessageRow

if TYPE_CHECKING:
    import snowballstemmer  # type: ignore[import-untyped]
else:  # every language's stemmer: imported by the first search that highlights
    snowballstemmer = lazy_module("snowballstemmer")
# unicode61's tokens: runs of letters and digits (underscores separate words).
_WORD = re.compile(r"[^\W_]+")
_MARKUP = re.compile(r"(<[^>]*>|&#?\w+;)")
OPEN, CLOSE = '<span class="highlight">', "</span>"


def fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


# Words repeat (Zipf): a page of results stems a few hundred distinct words, not thousands.
@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return str(_porter_stemmer().stemWord(fold(word)))


@functools.cache
def _porter_stemmer() -> Any:
    """The original Porter algorithm: the one SQLite's porter tokenizer implements."""
    return snowballstemmer.stemmer("porter")


def search_stems(operands: Iterable[str]) -> frozenset[str]:
    """The stems of every word of the search operands (quoted phrases included)."""
    return frozenset(stem(word) for text in operands for word in _WORD.findall(text))


# unicode61 tokens kept as the odd items of a split.
_WORD_SPLIT = re.compile(r"([^\W_]+)")


def _mark(text: str, matching: set[str]) -> str:
    parts = _WORD_SPLIT.split(text)
    for index in range(1, len(parts), 2):
        if parts[index] in matching:
            parts[index] = f"{OPEN}{parts[index]}{CLOSE}"
    return "".join(parts)


def highlight_html(rendered: str, stems: frozenset[str]) -> str:
    """Rendered message HTML with the matching words of its text highlighted."""
    if not stems:
        return rendered
    # The words (tags included: cheaper than splitting first) that match, each stemmed once.
    matching = {word for word in set(_WORD.findall(rendered)) if stem(word) in stems}
    if not matching:
        return rendered
    pieces = _MARKUP.split(rendered)
    for index in range(0, len(pieces), 2):
        pieces[index] = _mark(pieces[index], matching)
    return "".join(pieces)


# A page of results repeats its topics.
@functools.lru_cache(maxsize=4096)
def highlight_topic(topic: str, stems: frozenset[str]) -> str:
    """The topic, HTML-escaped, with its matching words highlighted."""
    return highlight_html(html.escape(topic), stems)


def search_terms(narrow: list[NarrowTerm]) -> frozenset[str] | None:
    """The stems a search narrow looks for (None: not a search, so no match_* fields)."""
    operands = [str(t.operand) for t in narrow if t.operator == "search" and not t.negated]
    return search_stems(operands) if operands else None


def search_matches(message: MessageRow, stems: frozenset[str]) -> dict[str, str]:
    """Zulip's match_content and match_subject: the message with the search words marked."""
    return {
        "match_content": highlight_html(message.rendered_content, stems),
        "match_subject": highlight_topic(message.topic, stems),
    }

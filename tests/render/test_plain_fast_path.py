"""The plain-text path of the renderer (teamchat.render.plain) against the full parser: the
same result for every input it takes, over a large generated corpus, and every input with a
character some rule reacts to goes to the parser."""

from __future__ import annotations

import dataclasses
import random

import pytest

from teamchat.render.markdown import Linkifier, RenderContext, render_full, render_markdown
from teamchat.render.plain import is_plain

# Words that look like the start of something: TLDs, list markers, emoticon halves, numbers.
WORDS = [
    "hello", "world", "a", "I", "com", "org", "io", "example", "py", "me", "all", "topic",
    "E", "x", "OK", "it's", "don't", "1", "42", "3rd", "2024", "v2", "D", "P", "o", "O",
    "http", "https", "www", "mailto", "the", "end", "and", "or", "not", "pie", "Coffee",
]  # fmt: skip
PUNCTUATION = [
    ".", ",", ";", "!", "?", "'", '"', "(", ")", "%", "+", "=", "-", "...", "..", ";)",
    "(:", "--", "++", "==", "?!", "),", "\"'",
]  # fmt: skip
SPECIAL = [*":@#*_`~$<>&[]{}|\\/\t^", "\u00e9", "\U0001f600", "\u200b", "\r"]
ALERTS = dataclasses.replace(
    RenderContext.empty(),
    alert_words={7: ("hello",), 8: ("coffee", "end"), 9: ("it's",), 10: ("x y",)},
)


def _line(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(1, 12)):
        pick = rng.random()
        if pick < 0.6:
            parts.append(rng.choice(WORDS))
        elif pick < 0.9:
            parts.append(rng.choice(PUNCTUATION))
        else:
            parts.append(" " * rng.randint(1, 3))
        parts.append(rng.choice(["", " ", " ", "  "]) if rng.random() < 0.8 else "")
    return "".join(parts).strip() if rng.random() < 0.9 else "".join(parts)


def _message(rng: random.Random) -> str:
    lines = [_line(rng) for _ in range(rng.randint(1, 5))]
    text = lines[0]
    for line in lines[1:]:
        text += rng.choice(["\n", "\n", "\n\n", "\n\n\n", " "]) + line
    return text


def _corpus(seed: int, size: int) -> list[str]:
    rng = random.Random(seed)
    return [_message(rng) for _ in range(size)]


@pytest.mark.parametrize("ctx", [RenderContext.empty(), ALERTS], ids=["plain", "alert words"])
def test_the_plain_path_renders_as_the_parser_over_a_generated_corpus(ctx: RenderContext) -> None:
    corpus = _corpus(2026, 6000)
    taken = 0
    for content in corpus:
        assert render_markdown(content, ctx) == render_full(content, ctx), repr(content)
        taken += is_plain(content)
    # The corpus exercises the plain path, and the parser for what it refuses.
    assert taken > len(corpus) // 8
    assert taken < len(corpus)


def test_alert_words_are_found_on_the_plain_path() -> None:
    rendered = render_markdown("Hello there\n\nmore Coffee at the end.", ALERTS)
    assert rendered.alert_word_user_ids == {7, 8}
    assert is_plain("Hello there\n\nmore Coffee at the end.")


def test_any_special_character_takes_the_parser() -> None:
    rng = random.Random(7)
    plain = [c for c in _corpus(11, 400) if is_plain(c)]
    assert plain
    for content in plain:
        for char in SPECIAL:
            at = rng.randint(0, len(content))
            assert not is_plain(content[:at] + char + content[at:]), (content, char)


@pytest.mark.parametrize(
    "content",
    ["see example.com now", "1. first", "1) first", "12. twelfth", "x\n2. second", "- item",
     "hello\n===", "a\n\n\nb", "    code", "trailing ", "line \nnext", "x 1.5 y", "\nhello", ""],
)  # fmt: skip
def test_what_looks_like_syntax_takes_the_parser(content: str) -> None:
    assert not is_plain(content)


@pytest.mark.parametrize("content", ["17", "2024 was a year", "3rd time", "42\n\n7 more"])
def test_lines_that_start_with_a_number_but_no_list_item_are_plain(content: str) -> None:
    assert is_plain(content)
    assert render_markdown(content, RenderContext.empty()) == render_full(
        content, RenderContext.empty()
    )


def test_linkifiers_and_emoticons_take_the_parser() -> None:
    linkifier = Linkifier(pattern=r"(?P<id>[A-Z]+-[0-9]+)", url_template="https://t.test/{id}")
    linkified = dataclasses.replace(RenderContext.empty(), linkifiers=(linkifier,))
    assert render_markdown("see ABC-12 now", linkified).has_link
    emoticons = dataclasses.replace(RenderContext.empty(), translate_emoticons=True)
    assert "emoji" in render_markdown("nice ;)", emoticons).html
    assert render_markdown("nice ;)", RenderContext.empty()).html == "<p>nice ;)</p>"

"""The one check for text that is stored and shown to other people.

Names, descriptions, hints, status texts, snippets, topics: all pass `check_text` (or, for
topics and channel names, `first_unprintable` with Zulip's own wording), so no NUL, control
character, lone surrogate or non-character reaches the database or another user's screen.
"""

from __future__ import annotations

import unicodedata

from teamchat.errors import ZulipError

# Line breaks and tabs are text in multi-line fields (descriptions, snippets, long text).
_MULTILINE_ALLOWED = frozenset("\n\r\t")


def first_unprintable(text: str, *, multiline: bool = False) -> int | None:
    """1-based position of the first control/surrogate/non-character, or None."""
    for index, char in enumerate(text):
        if multiline and char in _MULTILINE_ALLOWED:
            continue
        code = ord(char)
        noncharacter = 0xFDD0 <= code <= 0xFDEF or (code & 0xFFFE) == 0xFFFE
        if noncharacter or unicodedata.category(char) in ("Cc", "Cs"):
            return index + 1
    return None


def check_text(
    name: str, value: str, *, max_chars: int | None = None, multiline: bool = False
) -> str:
    """`value` if it is storable text within `max_chars`; Zulip-style errors naming `name`."""
    # zulip-compat: check_capped_string's wording for the length.
    if max_chars is not None and len(value) > max_chars:
        raise ZulipError(f"{name} is too long (limit: {max_chars} characters)")
    position = first_unprintable(value, multiline=multiline)
    if position is not None:
        # zulip-compat: the wording of Zulip's topic and channel-name checks.
        raise ZulipError(f"Invalid character in {name}, at position {position}!")
    return value

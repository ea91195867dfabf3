"""Unicode emoji names and codes the way Zulip spells them: Zulip's own name table.

The names and codes are Zulip's (its generated `emoji_names` table, as published on PyPI by
the `zulip-emoji-mapping` package), with Zulip's later renames applied on top; which
characters are text unless U+FE0F follows comes from the `emoji` package (Unicode's data).
A pure leaf module: no I/O, no teamchat imports but the lazy loader. Tables are built once,
on first use (the two packages, a few MiB of data, are imported then).
An emoji code is the dash-joined lowercase hex of the codepoints without U+FE0F ("2764",
"1f937-200d-2640", "0023-20e3"); names are lowercase with underscores ("thumbs_up", "+1").
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from teamchat.lib.lazy import lazy_module

if TYPE_CHECKING:
    import emoji as emoji_data
    from zulip_emoji_mapping import emoji_names
else:
    emoji_data = lazy_module("emoji")
    emoji_names = lazy_module("zulip_emoji_mapping.emoji_names")

# Reaction type "zulip_extra_emoji": name -> emoji_code.
ZULIP_EXTRA_EMOJI = {"zulip": "zulip"}
ZULIP_EXTRA_EMOJI_URL = "/static/generated/emoji/images/emoji/unicode/zulip.png"

_VARIATION_SELECTOR = "\ufe0f"
_KEYCAP = "\u20e3"

# zulip-compat: Zulip renamed these after the published table was made (Zulip 10, December
# 2024): `:smile:` (and the `:)` emoticon) is now 😄, and 🙂 is `:slight_smile:`.
_RENAMES: dict[str, tuple[str, ...]] = {
    "1f604": ("smile",),
    "1f642": ("slight_smile",),
}


@dataclass(frozen=True)
class _Tables:
    name_to_code: dict[str, str]
    code_to_names: dict[str, list[str]]
    # FE0F-free emoji text -> code, for turning pasted emoji into Zulip's markup.
    text_to_code: dict[str, str]
    # Single-codepoint emoji that are text (not emoji) unless followed by U+FE0F.
    text_presentation: frozenset[str]
    max_text_chars: int


def _text_of(code: str) -> str:
    return "".join(chr(int(part, 16)) for part in code.split("-"))


def _text_presentation() -> frozenset[str]:
    """Emoji whose fully-qualified form is one character (or a keycap) plus U+FE0F."""
    found = set()
    fully_qualified = emoji_data.STATUS["fully_qualified"]
    for text, data in emoji_data.EMOJI_DATA.items():
        if data["status"] == fully_qualified and _VARIATION_SELECTOR in text:
            bare = text.replace(_VARIATION_SELECTOR, "")
            if len(bare.replace(_KEYCAP, "")) == 1:
                found.add(bare)
    return frozenset(found)


@functools.cache
def _tables() -> _Tables:
    code_to_names: dict[str, list[str]] = {}
    for code, info in emoji_names.EMOJI_NAME_MAPS.items():
        code_to_names[code] = [str(info["canonical_name"]), *map(str, info["aliases"])]
    code_to_names.update({code: list(names) for code, names in _RENAMES.items()})
    renamed = {name for names in _RENAMES.values() for name in names}
    for code, names in code_to_names.items():
        if code not in _RENAMES:
            names[:] = [name for name in names if name not in renamed]
    code_to_names = {code: names for code, names in code_to_names.items() if names}
    name_to_code = {name: code for code, names in code_to_names.items() for name in names}
    text_to_code = {_text_of(code): code for code in code_to_names}
    return _Tables(
        name_to_code=name_to_code,
        code_to_names=code_to_names,
        text_to_code=text_to_code,
        text_presentation=_text_presentation(),
        max_text_chars=max(len(text) for text in text_to_code),
    )


def name_to_codepoint(name: str) -> str | None:
    """Return the Unicode emoji code for a Zulip emoji name ("tada" -> "1f389"), or None."""
    return _tables().name_to_code.get(name)


def codepoint_to_name(code: str) -> str | None:
    """Return Zulip's canonical name for a Unicode emoji code ("1f44d" -> "+1"), or None."""
    names = _tables().code_to_names.get(code)
    return names[0] if names else None


def is_valid_codepoint(code: str) -> bool:
    """Tell whether `code` is the emoji code of a Unicode emoji Zulip knows."""
    return code in _tables().code_to_names


def code_to_names() -> dict[str, list[str]]:
    """Return code -> [canonical name, *aliases], the `code_to_names` of server emoji data."""
    return {code: list(names) for code, names in _tables().code_to_names.items()}


def emoji_text_table() -> dict[str, str]:
    """Return FE0F-free emoji text -> code for recognising emoji pasted into messages."""
    return _tables().text_to_code


def is_text_presentation(bare_text: str) -> bool:
    """Tell whether this FE0F-free emoji is plain text unless U+FE0F follows (e.g. "❤")."""
    return bare_text in _tables().text_presentation


def max_emoji_text_chars() -> int:
    """Return the length in characters of the longest FE0F-free emoji text."""
    return _tables().max_text_chars

"""Emoji: `:name:` for realm, Zulip-extra and Unicode emoji, and Unicode emoji typed as text.

Unknown names stay literal. Names and codes come from teamchat.lib.emoji.
"""

from __future__ import annotations

import re
from typing import Any
from xml.etree.ElementTree import Element

from teamchat.lib import emoji as emoji_names
from teamchat.render.context import CurrentRender
from teamchat.render.md import AtomicString, CompiledInlineProcessor, MatchResult

EMOJI_RE = re.compile(r"(?P<syntax>:[\w\-+]+:)")
# A cheap first test for "could an emoji start here": the blocks where emoji live.
_EMOJI_START_RE = re.compile(
    "[\u00a9\u00ae\u203c-\u2bff\u3030\u303d\u3297\u3299\U0001f000-\U0001faff]"
    "|[#*0-9](?=\ufe0f?\u20e3)"
)
_SEQUENCE_CONTINUES = frozenset({"\u200d", *map(chr, range(0x1F3FB, 0x1F400))})


def unicode_emoji_span(code: str, name: str) -> Element:
    """Build Zulip's markup for a Unicode emoji: `<span class="emoji emoji-1f44d" ...>`."""
    title = name.replace("_", " ")
    span = Element("span")
    span.set("aria-label", title)
    span.set("class", f"emoji emoji-{code}")
    span.set("role", "img")
    span.set("title", title)
    span.text = AtomicString(f":{name}:")
    return span


def image_emoji(src: str, name: str) -> Element:
    """Build Zulip's markup for an image emoji (realm emoji and :zulip:)."""
    img = Element("img")
    img.set("alt", f":{name}:")
    img.set("class", "emoji")
    img.set("src", src)
    img.set("title", name.replace("_", " "))
    return img


class EmojiProcessor(CurrentRender, CompiledInlineProcessor):
    """`:name:` becomes a realm emoji, the :zulip: emoji or a Unicode emoji, in that order."""

    def __init__(self) -> None:
        super().__init__(EMOJI_RE)

    def handleMatch(self, m: Any, data: str) -> MatchResult:
        name = m.group("syntax")[1:-1]
        realm_emoji = self.ctx.realm_emoji.get(name)
        if realm_emoji is not None and not realm_emoji.deactivated:
            element = image_emoji(realm_emoji.source_url, name)
        elif name in emoji_names.ZULIP_EXTRA_EMOJI:
            element = image_emoji(emoji_names.ZULIP_EXTRA_EMOJI_URL, name)
        else:
            code = emoji_names.name_to_codepoint(name)
            if code is None:
                return None, None, None
            element = unicode_emoji_span(code, name)
        return element, m.start(), m.end()


class UnicodeEmojiProcessor(CompiledInlineProcessor):
    """An emoji character typed or pasted into the text gets the same markup as `:name:`."""

    def __init__(self) -> None:
        super().__init__(_EMOJI_START_RE)
        self.table = emoji_names.emoji_text_table()
        self.max_chars = emoji_names.max_emoji_text_chars()

    def handleMatch(self, m: Any, data: str) -> MatchResult:
        start = m.start()
        window = data[start : start + self.max_chars * 2]
        bare = window.replace("\ufe0f", "")
        for length in range(min(self.max_chars, len(bare)), 0, -1):
            code = self.table.get(bare[:length])
            if code is not None:
                break
        else:
            return None, None, None
        end = self._end_of(data, start, length)
        if end < len(data) and data[end] in _SEQUENCE_CONTINUES:
            # zulip-compat: a sequence Zulip has no emoji for (skin tones, newer ZWJ
            # sequences) stays text rather than being split into smaller emoji.
            return None, None, None
        if emoji_names.is_text_presentation(bare[:length]) and "\ufe0f" not in data[start:end]:
            # zulip-compat: characters like ❤ or © are text unless U+FE0F asks for an emoji.
            return None, None, None
        name = emoji_names.codepoint_to_name(code)
        if name is None:
            return None, None, None
        return unicode_emoji_span(code, name), start, end

    @staticmethod
    def _end_of(data: str, start: int, bare_length: int) -> int:
        """Return the index after `bare_length` non-FE0F characters (and a trailing FE0F)."""
        index, seen = start, 0
        while index < len(data) and seen < bare_length:
            seen += data[index] != "\ufe0f"
            index += 1
        if index < len(data) and data[index] == "\ufe0f":
            index += 1
        return index

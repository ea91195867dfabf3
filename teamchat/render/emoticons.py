"""Emoticons: with the sender's `translate_emoticons` setting on, `:)` becomes the emoji
`:smile:`, in the same markup as if the emoji had been typed by name (Zulip's
EmoticonTranslation). With the setting off, emoticons stay text.
"""

from __future__ import annotations

import re
from typing import Any

from teamchat.lib import emoji as emoji_names
from teamchat.render.context import CurrentRender
from teamchat.render.emoji import unicode_emoji_span
from teamchat.render.md import CompiledInlineProcessor, MatchResult

# zulip-compat: Zulip's emoticon table (its help center lists it), emoticon -> emoji name.
EMOTICON_CONVERSIONS = {
    ":)": "smile",
    "(:": "smile",
    ":(": "frown",
    "<3": "heart",
    ":|": "neutral",
    ":/": "confused",
    ";)": "wink",
    ":D": "grinning",
    ":o": "open_mouth",
    ":O": "open_mouth",
    ":p": "stuck_out_tongue",
    ":P": "stuck_out_tongue",
}
# zulip-compat: an emoticon stands alone: at the start or end of the text or next to one of
# these characters (Zulip's terminal_symbols), so `http://` or `a:b` stay text.
_TERMINAL = r""",.;?!()\[\] "'\n\t"""
EMOTICON_RE = re.compile(
    rf"(?<![^{_TERMINAL}])(?P<emoticon>"
    + "|".join(re.escape(emoticon) for emoticon in EMOTICON_CONVERSIONS)
    + rf")(?![^{_TERMINAL}])"
)


class EmoticonProcessor(CurrentRender, CompiledInlineProcessor):
    """`:)` becomes `:smile:`'s emoji markup when the sender asked for it."""

    def __init__(self) -> None:
        super().__init__(EMOTICON_RE)

    def handleMatch(self, m: Any, data: str) -> MatchResult:
        if not self.ctx.translate_emoticons:
            return None, None, None
        name = EMOTICON_CONVERSIONS[m.group("emoticon")]
        code = emoji_names.name_to_codepoint(name)
        if code is None:
            return None, None, None
        return unicode_emoji_span(code, name), m.start(), m.end()

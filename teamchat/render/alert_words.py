"""Alert words: which users have one of their alert words in the message.

Matching is case-insensitive and on whole words, outside code: this preprocessor runs after
fenced code blocks have been stashed away, and skips inline code spans itself. The text is not
changed (Zulip's web app highlights alert words on its own).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from teamchat.render.code_spans import CODE_SPAN_RE
from teamchat.render.context import CurrentRender
from teamchat.render.md import Preprocessor


@functools.lru_cache(maxsize=4096)
def _word_re(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(word)}(?!\w)", re.IGNORECASE)


def users_alerted(text: str, alert_words: Mapping[str, frozenset[int]]) -> set[int]:
    """Return the ids of users one of whose alert words occurs in `text`."""
    found: set[int] = set()
    for word, user_ids in alert_words.items():
        if not user_ids <= found and _word_re(word).search(text):
            found |= user_ids
    return found


class AlertWordsPreprocessor(CurrentRender, Preprocessor):
    """Record in the state which users' alert words occur in the message."""

    def run(self, lines: list[str]) -> list[str]:
        words = self.ctx.alert_word_index
        if words:
            text = CODE_SPAN_RE.sub(" ", "\n".join(lines)).casefold()
            self.state.alert_word_user_ids |= users_alerted(text, words)
        return lines

"""Plain text, the most common message, without the Markdown parser.

A message made only of ASCII letters, digits, spaces and punctuation that no rule of ours
reacts to renders to paragraphs of its text as it is (nothing in it needs escaping):
`<p>line<br>\\nline</p>` for a newline inside a paragraph (Zulip's nl2br), `\\n` between
paragraphs (a blank line). What this module accepts is kept narrow on purpose; anything else
takes the full renderer, and tests/render/test_plain_fast_path.py compares the two over a
large generated corpus.

Left out: every character a rule starts on (``:@#*_`~$<>&[]{}|\\/``, emoticons, entities),
a `.` followed by a letter or digit (a domain that would be linked, `1.5`), a line that
starts with anything but a letter or with digits followed by `.` or `)` (lists, headings,
rules, indented code, quotes, `/me`), trailing spaces, tabs, more than one blank line, and
a realm with linkifiers (their patterns can match anything).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from teamchat.render.alert_words import users_alerted

# One line of a plain paragraph: starts with a letter, or with digits that do not start a
# list item (`1.`, `1)`); `.` only where no letter or digit follows (trailing spaces are
# refused apart).
_LINE = r"(?:[A-Za-z]|[0-9]+(?![0-9.)]))(?:[A-Za-z0-9 ,;!?'\"()%+=-]|\.(?![A-Za-z0-9]))*"
_PLAIN_RE = re.compile(rf"{_LINE}(?:\n\n?{_LINE})*")


def is_plain(content: str) -> bool:
    """Whether `content` is plain text this module renders exactly as the full renderer."""
    return (
        not content.endswith(" ")
        and " \n" not in content
        and _PLAIN_RE.fullmatch(content) is not None
    )


def render_plain(content: str) -> str:
    """The HTML of plain `content` (see `is_plain`): its paragraphs."""
    paragraphs = content.split("\n\n")
    return "\n".join("<p>" + p.replace("\n", "<br>\n") + "</p>" for p in paragraphs)


def alerted(content: str, alert_word_index: Mapping[str, frozenset[int]]) -> set[int]:
    """The users one of whose alert words the plain `content` holds (as the full renderer)."""
    return users_alerted(content.casefold(), alert_word_index) if alert_word_index else set()

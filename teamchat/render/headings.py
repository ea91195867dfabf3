"""Headings `# Title` to `###### Title`.

zulip-compat: a space must follow the hashes, so `#hashtag` and `#**channel**` stay text.
"""

from __future__ import annotations

import re

from teamchat.render.md import HashHeaderProcessor

HEADING_RE = re.compile(
    r"(?:^|\n)(?P<level>#{1,6})[ \t]+(?P<header>(?:\\.|[^\\#]|#+(?=[^#\n]))*?)#*(?:\n|$)"
)


class HeadingProcessor(HashHeaderProcessor):
    """python-markdown's hash headings, with the space after the hashes required."""

    RE = HEADING_RE

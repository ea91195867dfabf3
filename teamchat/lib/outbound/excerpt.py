"""What of a remote answer may be shown to a person (a bot's owner): a short excerpt of
printable text that cannot break out of the code block it is shown in."""

from __future__ import annotations

import unicodedata

EXCERPT_CHARS = 200


def safe_excerpt(body: bytes, limit: int = EXCERPT_CHARS) -> str:
    """At most `limit` characters of `body` as text: control and format characters and
    backticks dropped, whitespace runs collapsed to one space, "…" when cut."""
    text = body[: limit * 4].decode("utf-8", "replace")
    kept = []
    for char in text:
        if char.isspace():
            kept.append(" ")
        elif char != "`" and unicodedata.category(char)[0] != "C":
            kept.append(char)
    cleaned = " ".join("".join(kept).split())
    cut = len(cleaned) > limit or len(body) > limit * 4
    return cleaned[:limit].rstrip() + ("…" if cut else "")

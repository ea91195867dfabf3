"""Global times `<time:2025-01-31T15:00:00+01:00>` (Zulip's Timestamp syntax).

A time Zulip can read becomes `<time datetime="...Z">` (UTC) with the typed text inside, so
every client shows it in its reader's zone; anything else an inline "Invalid time format".
ISO 8601 dates and times and Unix timestamps are read; a time without a zone is UTC.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any
from xml.etree.ElementTree import Element

from teamchat.render.md import AtomicString, CompiledInlineProcessor, MatchResult

TIMESTAMP_RE = re.compile(r"<time:(?P<time>[^>]*?)>")
# What the sanitizer lets through in `datetime`: exactly what parse_time's callers produce.
DATETIME_ATTRIBUTE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z")


def parse_time(text: str) -> datetime | None:
    """The moment `text` names, in UTC, or None."""
    value = text.strip()
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        try:
            moment = datetime.fromtimestamp(float(value), tz=UTC)
        except (ValueError, OverflowError, OSError):
            return None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


class TimestampProcessor(CompiledInlineProcessor):
    def __init__(self) -> None:
        super().__init__(TIMESTAMP_RE)

    def handleMatch(self, m: Any, data: str) -> MatchResult:
        typed = m.group("time")
        moment = parse_time(typed)
        if moment is None:
            error = Element("span")
            error.set("class", "timestamp-error")
            error.text = AtomicString(f"Invalid time format: {typed}")
            return error, m.start(), m.end()
        element = Element("time")
        element.set("datetime", moment.isoformat().replace("+00:00", "Z"))
        element.text = AtomicString(typed)
        return element, m.start(), m.end()

"""Global times `<time:2025-01-31T15:00:00+01:00>` (Zulip's Timestamp syntax).

A time Zulip can read becomes `<time datetime="...Z">` (UTC) with the typed text inside, so
every client shows it in its reader's zone; anything else an inline "Invalid time format".
Like Zulip, times are read by dateutil's parser (ISO 8601, `31 Dec 2017`, `Dec 31 2017 10:00
EST`, RFC 2822...) and as Unix timestamps; a time without a zone is UTC.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any
from xml.etree.ElementTree import Element

import dateutil.parser

from teamchat.render.md import AtomicString, CompiledInlineProcessor, MatchResult

# Zone abbreviations read in times, in hours from UTC: the common unambiguous ones.
_ZONE_HOURS = {
    **{"UTC": 0, "UT": 0, "GMT": 0, "Z": 0, "WET": 0, "WEST": 1, "BST": 1, "CET": 1},
    **{"CEST": 2, "EET": 2, "EEST": 3, "MSK": 3, "IST": 5.5, "HKT": 8, "SGT": 8},
    **{"JST": 9, "KST": 9, "AWST": 8, "ACST": 9.5, "AEST": 10, "AEDT": 11, "NZST": 12},
    **{"NZDT": 13, "HST": -10, "AKST": -9, "AKDT": -8, "PST": -8, "PDT": -7, "MST": -7},
    **{"MDT": -6, "CST": -6, "CDT": -5, "EST": -5, "EDT": -4, "AST": -4, "ADT": -3},
}
# Two different defaults tell whether the text named the whole date: dateutil fills what is
# missing from the default, and Zulip's default (today) is a clock read the renderer avoids.
_DEFAULTS = (datetime(2000, 1, 1), datetime(2001, 2, 2))


def _zone(name: str | None, offset: int | None) -> tzinfo:
    if name in _ZONE_HOURS:
        return timezone(timedelta(hours=_ZONE_HOURS[name]))
    # zulip-compat: an abbreviation Zulip does not know leaves the time in UTC.
    return UTC if offset is None else timezone(timedelta(seconds=offset))


def _parse_written(value: str) -> datetime | None:
    try:
        first, second = (
            dateutil.parser.parse(value, default=default, tzinfos=_zone) for default in _DEFAULTS
        )
    except (ValueError, OverflowError):
        return None
    return first if first == second else None


TIMESTAMP_RE = re.compile(r"<time:(?P<time>[^>]*?)>")
# What the sanitizer lets through in `datetime`: exactly what parse_time's callers produce.
DATETIME_ATTRIBUTE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z")


def parse_time(text: str) -> datetime | None:
    """The moment `text` names, in UTC, or None."""
    value = text.strip()
    moment = _parse_written(value)
    if moment is None:
        try:
            moment = datetime.fromtimestamp(float(value), tz=UTC)
        except (ValueError, OverflowError, OSError):
            return None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except (ValueError, OverflowError):
        return None


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

"""Global times `<time:2025-01-31T15:00:00+01:00>` (Zulip's Timestamp syntax).

A time Zulip can read becomes `<time datetime="...Z">` (UTC) with the typed text inside, so
every client shows it in its reader's zone; anything else an inline "Invalid time format".
Like Zulip, times are read by dateutil's parser (ISO 8601, `31 Dec 2017`, `Dec 31 2017 10:00
EST`, RFC 2822, `10:00`...) and as Unix timestamps; a time without a zone is UTC, a time
without a day is on the day the message is sent (the RenderContext's `today`).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from typing import TYPE_CHECKING, Any
from xml.etree.ElementTree import Element

from teamchat.lib.lazy import lazy_module
from teamchat.render.context import CurrentRender
from teamchat.render.md import AtomicString, CompiledInlineProcessor, MatchResult

if TYPE_CHECKING:
    from dateutil import parser as dateutil_parser
else:  # imported by the first message with a <time:...> (its time zones pull in ctypes)
    dateutil_parser = lazy_module("dateutil.parser")

# zulip-compat: Zulip's common_timezones (zerver/lib/timezone.py), the abbreviations its
# parser reads, in seconds from UTC; some are ambiguous, and Zulip picks these meanings.
_ZONE_SECONDS = {
    **{"SST": -39600, "HST": -36000, "AKST": -32400, "HDT": -32400, "AKDT": -28800},
    **{"PST": -28800, "MST": -25200, "PDT": -25200, "CST": -21600, "MDT": -21600},
    **{"CDT": -18000, "EST": -18000, "AST": -14400, "EDT": -14400, "NST": -12600},
    **{"ADT": -10800, "NDT": -9000, "GMT": 0, "UTC": 0, "WET": 0, "BST": 3600, "CET": 3600},
    **{"MET": 3600, "WAT": 3600, "WEST": 3600, "CAT": 7200, "CEST": 7200, "EET": 7200},
    **{"MEST": 7200, "SAST": 7200, "EAT": 10800, "EEST": 10800, "IDT": 10800, "MSK": 10800},
    **{"PKT": 18000, "IST": 19800, "WIB": 25200, "AWST": 28800, "HKT": 28800, "WITA": 28800},
    **{"JST": 32400, "KST": 32400, "WIT": 32400, "ACST": 34200, "AEST": 36000},
    **{"ChST": 36000, "ACDT": 37800, "AEDT": 39600, "NZST": 43200, "NZDT": 46800},
}
# Without a day to fill in (no `today` given), two different defaults tell whether the text
# named the whole date: dateutil fills what is missing from the default.
_DEFAULTS = (datetime(2000, 1, 1), datetime(2001, 2, 2))


def _zone(name: str | None, offset: int | None) -> tzinfo:
    if name in _ZONE_SECONDS:
        return timezone(timedelta(seconds=_ZONE_SECONDS[name]))
    # zulip-compat: an abbreviation Zulip does not know leaves the time in UTC (its servers
    # run in UTC); a numeric offset is kept.
    return UTC if offset is None else timezone(timedelta(seconds=offset))


def _parse_written(value: str, today: date | None) -> datetime | None:
    try:
        if today is not None:
            # zulip-compat: dateutil's default, today at midnight, fills a missing date.
            default = datetime(today.year, today.month, today.day)
            return dateutil_parser.parse(value, default=default, tzinfos=_zone)
        first, second = (
            dateutil_parser.parse(value, default=default, tzinfos=_zone) for default in _DEFAULTS
        )
    except (ValueError, OverflowError):
        return None
    return first if first == second else None


TIMESTAMP_RE = re.compile(r"<time:(?P<time>[^>]*?)>")
# What the sanitizer lets through in `datetime`: exactly what parse_time's callers produce.
DATETIME_ATTRIBUTE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z")


def parse_time(text: str, today: date | None = None) -> datetime | None:
    """The moment `text` names, in UTC, or None; `today` is the day of a time without one."""
    value = text.strip()
    moment = _parse_written(value, today)
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


class TimestampProcessor(CurrentRender, CompiledInlineProcessor):
    def __init__(self) -> None:
        super().__init__(TIMESTAMP_RE)

    def handleMatch(self, m: Any, data: str) -> MatchResult:
        typed = m.group("time")
        moment = parse_time(typed, self.ctx.today)
        if moment is None:
            error = Element("span")
            error.set("class", "timestamp-error")
            error.text = AtomicString(f"Invalid time format: {typed}")
            return error, m.start(), m.end()
        element = Element("time")
        element.set("datetime", moment.isoformat().replace("+00:00", "Z"))
        element.text = AtomicString(typed)
        return element, m.start(), m.end()

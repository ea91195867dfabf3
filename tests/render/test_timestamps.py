"""Global times `<time:...>` against tests/render/timestamps_cases.json (a fixed send day), and
the parser against Zulip's own call: dateutil with its zone table and today as the default."""

from __future__ import annotations

import dataclasses
import json
import warnings
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import dateutil.parser
import pytest

from teamchat.render.markdown import RenderContext, render_markdown
from teamchat.render.timestamps import parse_time

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "timestamps_cases.json").read_text()
)
TODAY = date(2026, 11, 26)
CONTEXT = dataclasses.replace(RenderContext.empty(), today=TODAY)
# zulip-compat: zerver/lib/timezone.py's common_timezones, written out again here so that the
# renderer's copy is checked against an independent one.
ZULIP_ZONES = {
    "SST": -39600, "HST": -36000, "AKST": -32400, "HDT": -32400, "AKDT": -28800,
    "PST": -28800, "MST": -25200, "PDT": -25200, "CST": -21600, "MDT": -21600,
    "CDT": -18000, "EST": -18000, "AST": -14400, "EDT": -14400, "NST": -12600,
    "ADT": -10800, "NDT": -9000, "GMT": 0, "UTC": 0, "WET": 0, "BST": 3600, "CET": 3600,
    "MET": 3600, "WAT": 3600, "WEST": 3600, "CAT": 7200, "CEST": 7200, "EET": 7200,
    "MEST": 7200, "SAST": 7200, "EAT": 10800, "EEST": 10800, "IDT": 10800, "MSK": 10800,
    "PKT": 18000, "IST": 19800, "WIB": 25200, "AWST": 28800, "HKT": 28800, "WITA": 28800,
    "JST": 32400, "KST": 32400, "WIT": 32400, "ACST": 34200, "AEST": 36000,
    "ChST": 36000, "ACDT": 37800, "AEDT": 39600, "NZST": 43200, "NZDT": 46800,
}  # fmt: skip
MORE = [
    *("10:00 am EST", "noon", "12/31", "31/12/2025", "2025-W05", "20250131T1500", "1.5e9"),
    *("5pm", "T10:00", "10h", "-1", "2025-01-31T15:00Z", "June 2025", "12:00 UT", "Z"),
    *("Sat Jun 5 2021 10:00 GMT+2", "1 2 3", "Monday 9:00 NZDT", "9999999999999", "0"),
    *("2017-12-31T10:00:00-05:00", "31.12.2017", "Dec 31 2017 10:00 IST", "1e400"),
]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_timestamp_case(case: dict[str, Any]) -> None:
    assert render_markdown(case["input"], CONTEXT).html == case["expected_html"]


def zulip_parse(text: str) -> datetime | None:
    """Zulip's Timestamp.handleMatch, on a server whose clock reads TODAY (UTC)."""
    default = datetime(TODAY.year, TODAY.month, TODAY.day)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # dateutil's UnknownTimezoneWarning
            moment = dateutil.parser.parse(text, default=default, tzinfos=ZULIP_ZONES)
    except (ValueError, OverflowError):
        try:
            moment = datetime.fromtimestamp(float(text), tz=UTC)
        except (ValueError, OverflowError, OSError):  # Zulip would fail on the last two
            return None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


@pytest.mark.parametrize("text", [case["input"][6:-1] for case in CASES] + MORE)
def test_parser_reads_what_zulip_reads(text: str) -> None:
    assert parse_time(text, TODAY) == zulip_parse(text)


def test_without_a_send_day_a_time_needs_its_date() -> None:
    # Descriptions and other renders with no send day keep the whole-date rule.
    assert parse_time("10:00") is None
    assert parse_time("31 Dec 2017 10:00") == datetime(2017, 12, 31, 10, tzinfo=UTC)
    html = render_markdown("<time:10:00>", RenderContext.empty()).html
    assert html == '<p><span class="timestamp-error">Invalid time format: 10:00</span></p>'

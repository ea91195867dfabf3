"""The one way to read an integer out of text a client (or an operator) wrote.

Python's `int()` and `str.isdigit()` accept every Unicode digit (`int("\\u0665") == 5`,
`"²".isdigit()` but `int("²")` fails); Zulip's parsers take ASCII digits only. Everything that
turns request text into an integer goes through `parse_int` or `is_ascii_digits`;
tests/test_style.py keeps `.isdigit()` and friends out of the rest of the code.
"""

from __future__ import annotations

import re

# `[0-9]` in a str pattern is the ASCII range only (unlike `\d`).
_INT = re.compile(r"[+-]?[0-9]+")
# What `int()` itself would strip around the digits, in ASCII.
_SPACES = " \t\r\n\f\v"


def is_ascii_digits(text: str) -> bool:
    """True for a non-empty run of ASCII digits 0-9 and nothing else."""
    return text.isascii() and text.isdigit()


def parse_int(text: str) -> int | None:
    """The integer written in ASCII (optional sign, surrounding ASCII spaces), else None."""
    stripped = text.strip(_SPACES)
    if not _INT.fullmatch(stripped):
        return None
    try:
        return int(stripped)
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
        return None


def foreign_digit_values(segments: list[str]) -> set[int]:
    """The numbers among `segments` written with digits other than ASCII ("\\u0665" -> 5):
    what a framework's integer path converter (int()) would take and Zulip's URLs do not."""
    values = set()
    for segment in segments:
        if segment and segment.isdecimal() and not segment.isascii():
            try:
                values.add(int(segment))
            except ValueError:  # more digits than int() converts
                continue
    return values

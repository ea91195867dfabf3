"""Integers in requests are written with ASCII digits 0-9 only, as Zulip parses them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.api import Api, assert_error

ROOT = Path(__file__).resolve().parents[2]
ARABIC_FIVE = "\u0665"  # ARABIC-INDIC DIGIT FIVE: int() takes it, Zulip does not
SUPERSCRIPT_TWO = "\u00b2"  # ²: isdigit() is true, int() fails


@pytest.mark.parametrize("raw", [ARABIC_FIVE, f"1{ARABIC_FIVE}", SUPERSCRIPT_TWO, "\uff15"])
def test_non_ascii_digits_are_not_an_integer(owner: Api, raw: str) -> None:
    # zulip-compat: integers are read as JSON, which has ASCII digits only.
    response = owner.get("/messages", anchor="newest", num_before=raw, num_after=0)
    assert_error(response, "num_before is not valid JSON")


def test_non_ascii_anchor_is_invalid(owner: Api) -> None:
    response = owner.get("/messages", anchor=ARABIC_FIVE * 2, num_before=1, num_after=0)
    assert_error(response, "Invalid anchor")


@pytest.mark.parametrize("path", ["/users/{}", "/users/{}/presence"])
@pytest.mark.parametrize("raw", [ARABIC_FIVE, SUPERSCRIPT_TWO])
def test_non_ascii_digits_in_a_user_path_are_not_an_id(owner: Api, path: str, raw: str) -> None:
    # {user_id_or_email}: such a digit is neither an id nor anyone's email.
    response = owner.get(path.format(raw))
    assert response.status_code in (400, 404), response.text
    assert response.json()["result"] == "error"


def test_ascii_integers_still_parse(owner: Api) -> None:
    body = owner.ok("GET", "/messages", anchor="newest", num_before=" 5 ", num_after="0")
    assert body["result"] == "success"


def test_no_module_reads_digits_with_str_isdigit() -> None:
    # str.isdigit/isdecimal/isnumeric accept every script's digits; teamchat.lib.integers
    # is the one place that tells digits apart.
    pattern = re.compile(r"\.is(digit|decimal|numeric)\(")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "teamchat").rglob("*.py"))
        if path.name != "integers.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []


def test_non_ascii_digits_in_an_integer_path_parameter_match_no_route(owner: Api) -> None:
    sent = owner.ok("POST", "/messages", type="stream", to="general", topic="d", content="x")
    digits = "".join(chr(0x0660 + int(d)) for d in str(sent["id"]))  # ARABIC-INDIC digits
    response = owner.get(f"/messages/{digits}/history")
    assert response.status_code in (400, 404), response.text
    assert response.json()["result"] == "error"

"""Unicode emoji names and codes (teamchat.lib.emoji) the way Zulip clients use them."""

from __future__ import annotations

import re

import pytest

from teamchat.lib import emoji

# Names real Zulip clients send, with Zulip's emoji codes.
ZULIP_NAMES = [
    ("+1", "1f44d"),
    ("thumbs_up", "1f44d"),
    ("-1", "1f44e"),
    ("heart", "2764"),
    # Zulip's December 2024 rename: :smile: (and the :) emoticon) is 😄, 🙂 is :slight_smile:.
    ("smile", "1f604"),
    ("slight_smile", "1f642"),
    ("tada", "1f389"),
    ("octopus", "1f419"),
    ("joy", "1f602"),
    ("grinning", "1f600"),
    ("check", "2705"),
    ("working_on_it", "1f6e0"),
    ("rocket", "1f680"),
    ("eyes", "1f440"),
    ("100", "1f4af"),
    ("wave", "1f44b"),
    ("poop", "1f4a9"),
    ("airplane", "2708"),
    ("holiday_tree", "1f384"),
    ("woman_shrugging", "1f937-200d-2640"),
    ("hash", "0023-20e3"),
]
CANONICAL = [
    ("1f44d", "+1"),
    ("2764", "heart"),
    ("1f642", "slight_smile"),
    ("1f389", "tada"),
    ("1f419", "octopus"),
    ("2705", "check"),
    ("1f6e0", "working_on_it"),
    ("1f4af", "100"),
    ("1f44b", "wave"),
    ("1f604", "smile"),
    ("263a", "smiling_face"),
]


@pytest.mark.parametrize(("name", "code"), ZULIP_NAMES)
def test_name_to_codepoint(name: str, code: str) -> None:
    assert emoji.name_to_codepoint(name) == code
    assert emoji.is_valid_codepoint(code)


@pytest.mark.parametrize(("code", "name"), CANONICAL)
def test_codepoint_to_canonical_name(code: str, name: str) -> None:
    assert emoji.codepoint_to_name(code) == name


def test_only_zulips_names_resolve() -> None:
    # Names from other tables (CLDR, GitHub shortcodes) are not Zulip's: every client must
    # agree on what :name: means, so they stay text. Zulip's own aliases resolve.
    assert emoji.name_to_codepoint("red_heart") is None
    assert emoji.name_to_codepoint("thumbsup") is None
    assert emoji.name_to_codepoint("big_smile") is None  # renamed to smile by Zulip
    assert emoji.name_to_codepoint("like") == "1f44d"
    assert emoji.name_to_codepoint("relaxed") == "263a"


def test_variation_selector_is_not_part_of_codes() -> None:
    # ❤️ is U+2764 U+FE0F, 🛠️ is U+1F6E0 U+FE0F, #️⃣ is U+0023 U+FE0F U+20E3: Zulip drops FE0F.
    codes = emoji.code_to_names()
    assert "2764" in codes and "2764-fe0f" not in codes
    assert "1f6e0" in codes
    assert not any("fe0f" in code for code in codes)
    assert emoji.emoji_text_table()["#\u20e3"] == "0023-20e3"
    assert emoji.is_text_presentation("\u2764")
    assert not emoji.is_text_presentation("\U0001f44d")


def test_unknown_names_and_codes() -> None:
    assert emoji.name_to_codepoint("not_an_emoji") is None
    assert emoji.name_to_codepoint("Smile") is None
    assert emoji.codepoint_to_name("ffff") is None
    assert not emoji.is_valid_codepoint("1f44d-1f3fd")  # skin tones are not offered
    assert not emoji.is_valid_codepoint("zulip")


def test_zulip_extra_emoji() -> None:
    assert emoji.ZULIP_EXTRA_EMOJI == {"zulip": "zulip"}
    assert emoji.name_to_codepoint("zulip") is None


def test_code_to_names_shape() -> None:
    codes = emoji.code_to_names()
    assert len(codes) > 1500
    assert codes["1f44d"][:3] == ["+1", "thumbs_up", "like"]
    all_names: list[str] = []
    for code, names in codes.items():
        assert re.fullmatch(r"[0-9a-f]{4,5}(-[0-9a-f]{4,5})*", code), code
        # Zulip's generated names keep letters like the å of flag_åland_islands.
        assert names and all(re.fullmatch(r"[\w+-]+", name) for name in names), names
        assert all(name == name.lower() for name in names), names
        assert emoji.codepoint_to_name(code) == names[0]
        for name in names:
            assert emoji.name_to_codepoint(name) == code
        all_names += names
    assert len(all_names) == len(set(all_names)), "a name must belong to one emoji"


def test_code_to_names_returns_a_copy() -> None:
    emoji.code_to_names()["1f44d"].append("mine")
    assert "mine" not in emoji.code_to_names()["1f44d"]

"""Unicode emoji names and codes the way Zulip spells them, derived from the `emoji` package.

A pure leaf module: no I/O and no teamchat imports. Tables are built once, on first use.
An emoji code is the dash-joined lowercase hex of the codepoints without U+FE0F ("2764",
"1f937-200d-2640", "0023-20e3"); names are lowercase with underscores ("thumbs_up", "+1").
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

import emoji as emoji_data

# Reaction type "zulip_extra_emoji": name -> emoji_code.
ZULIP_EXTRA_EMOJI = {"zulip": "zulip"}
ZULIP_EXTRA_EMOJI_URL = "/static/generated/emoji/images/emoji/unicode/zulip.png"

_VARIATION_SELECTOR = "\ufe0f"
_KEYCAP = "\u20e3"
_SKIN_TONES = frozenset(range(0x1F3FB, 0x1F400))
_FULLY_QUALIFIED = emoji_data.STATUS["fully_qualified"]

# zulip-compat: Zulip's own names for common emoji (tools/setup/emoji/custom_emoji_names.py),
# code -> canonical name and aliases. They win over the `emoji` package's CLDR/GitHub names.
# Zulip renamed 1f642 from slight_smile to smile (and 1f604 to big_smile); slight_smile stays
# an alias so clients and bots that still send it keep working.
_ZULIP_NAMES: dict[str, tuple[str, ...]] = {
    "1f600": ("grinning", "happy"),
    "1f603": ("smiley",),
    "1f604": ("big_smile",),
    "1f601": ("grinning_face_with_smiling_eyes",),
    "1f606": ("laughing", "lol"),
    "1f605": ("sweat_smile",),
    "1f602": ("joy", "tears", "laughter_tears"),
    "1f923": ("rolling_on_the_floor_laughing", "rofl"),
    "263a": ("smiling_face", "relaxed"),
    "1f60a": ("blush",),
    "1f607": ("innocent", "halo"),
    "1f642": ("smile", "slight_smile"),
    "1f643": ("upside_down", "oops"),
    "1f609": ("wink",),
    "1f60d": ("heart_eyes", "in_love"),
    "1f618": ("heart_kiss", "blow_a_kiss"),
    "1f60e": ("sunglasses",),
    "1f60f": ("smirk", "smug"),
    "1f615": ("oh_no", "half_frown", "concerned", "confused"),
    "1f641": ("frown", "slight_frown"),
    "2639": ("sad", "big_frown"),
    "1f622": ("cry",),
    "1f62d": ("sob",),
    "1f644": ("rolling_eyes",),
    "1f914": ("thinking",),
    "1f62c": ("grimacing", "nervous", "anxious"),
    "1f631": ("scream",),
    "1f620": ("angry",),
    "1f621": ("rage", "mad", "grumpy", "very_angry"),
    "1f4a9": ("poop", "pile_of_poo"),
    "1f47b": ("ghost", "boo", "spooky", "haunted"),
    "1f47d": ("alien", "ufo"),
    "1f916": ("robot",),
    "1f64c": ("raised_hands", "praise"),
    "1f44f": ("clap", "applause"),
    "1f64f": ("folded_hands", "welcome", "thank_you", "namaste", "pray"),
    "1f91d": ("handshake", "done_deal"),
    "1f44d": ("+1", "thumbs_up", "like"),
    "1f44e": ("-1", "thumbs_down"),
    "1f44c": ("ok", "got_it"),
    "1f44b": ("wave", "hello", "hi"),
    "1f4aa": ("muscle",),
    "1f440": ("eyes", "looking"),
    "1f937": ("shrug",),
    "1f926": ("face_palm",),
    "1f408": ("cat", "meow"),
    "1f415": ("dog", "woof"),
    "1f407": ("rabbit",),
    "1f419": ("octopus",),
    "1f384": ("holiday_tree",),
    "2b50": ("star",),
    "1f525": ("fire", "lit", "hot", "flame"),
    "2728": ("sparkles", "glamour"),
    "26a1": ("high_voltage", "zap"),
    "1f680": ("rocket",),
    "1f389": ("tada",),
    "1f388": ("balloon", "celebration"),
    "1f381": ("gift", "present"),
    "1f947": ("first_place", "gold", "number_one"),
    "1f3c6": ("trophy", "winner"),
    "2615": ("coffee",),
    "1f6e0": ("working_on_it", "hammer_and_wrench", "tools"),
    "1f527": ("fixing", "wrench"),
    "2699": ("gear", "settings", "mechanical", "engineer"),
    "1f4a1": ("light_bulb", "bulb", "idea"),
    "2764": ("heart", "love", "love_you"),
    "1f494": ("broken_heart", "heartache"),
    "1f4af": ("100", "hundred"),
    "2705": ("check", "all_good", "approved"),
    "2714": ("check_mark",),
    "274c": ("cross_mark", "incorrect", "wrong"),
    "26a0": ("warning", "caution", "danger"),
    "1f6a7": ("work_in_progress", "construction_zone"),
    "1f4dd": ("memo", "note"),
    "1f50d": ("search", "find", "magnifying_glass"),
    "1f514": ("notifications", "bell"),
    "1f4ac": ("umm", "speech_balloon"),
    "2708": ("airplane",),
    "2693": ("anchor",),
    "2797": ("division", "divide"),
    "2b06": ("up", "north"),
    "1f95d": ("kiwi",),
    "2604": ("comet", "meteor"),
    "0023-20e3": ("hash",),
    "002a-20e3": ("asterisk",),
}

_NAME_PUNCTUATION_RE = re.compile("[\u2019'.!()]")
_NAME_SEPARATOR_RE = re.compile(r"[^a-z0-9+]+")


@dataclass(frozen=True)
class _Tables:
    name_to_code: dict[str, str]
    code_to_names: dict[str, list[str]]
    # FE0F-free emoji text -> code, for turning pasted emoji into Zulip's markup.
    text_to_code: dict[str, str]
    # Single-codepoint emoji that are text (not emoji) unless followed by U+FE0F.
    text_presentation: frozenset[str]
    max_text_chars: int


def _normalize_name(raw: str) -> str:
    """Turn an `emoji` package name like ':Côte_d\u2019Ivoire:' into 'cote_divoire'."""
    name = raw.strip(":")
    if name in ("+1", "-1"):
        return name
    name = name.replace("#", "hash").replace("*", "asterisk").replace("&", "and")
    name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    name = _NAME_PUNCTUATION_RE.sub("", name.lower())
    return _NAME_SEPARATOR_RE.sub("_", name).strip("_")


def _code_of(text: str) -> str:
    return "-".join(f"{ord(ch):04x}" for ch in text if ch != _VARIATION_SELECTOR)


def _package_emoji() -> list[tuple[str, str, list[str]]]:
    """Return (text, code, names) for each fully-qualified emoji without skin tones."""
    found = []
    for text, data in emoji_data.EMOJI_DATA.items():
        if data["status"] != _FULLY_QUALIFIED or any(ord(ch) in _SKIN_TONES for ch in text):
            continue
        names = [_normalize_name(data["en"])]
        names += [_normalize_name(alias) for alias in data.get("alias", [])]
        found.append((text, _code_of(text), [name for name in names if name]))
    return found


@functools.cache
def _tables() -> _Tables:
    package = _package_emoji()
    known_codes = {code for _, code, _ in package}
    name_to_code: dict[str, str] = {}
    code_to_names: dict[str, list[str]] = {}

    def claim(name: str, code: str) -> None:
        if name not in name_to_code:
            name_to_code[name] = code
            code_to_names.setdefault(code, []).append(name)

    # Zulip's names claim first, then every CLDR name, then the GitHub-style aliases.
    for code, zulip_names in _ZULIP_NAMES.items():
        if code in known_codes:
            for name in zulip_names:
                claim(name, code)
    for _, code, names in package:
        claim(names[0], code)
    for _, code, names in package:
        for name in names[1:]:
            claim(name, code)

    text_to_code: dict[str, str] = {}
    text_presentation: set[str] = set()
    for text, code, _ in package:
        if code not in code_to_names:
            continue
        bare = text.replace(_VARIATION_SELECTOR, "")
        text_to_code[bare] = code
        if _VARIATION_SELECTOR in text and len(bare.replace(_KEYCAP, "")) == 1:
            text_presentation.add(bare)
    return _Tables(
        name_to_code=name_to_code,
        code_to_names=code_to_names,
        text_to_code=text_to_code,
        text_presentation=frozenset(text_presentation),
        max_text_chars=max(len(text) for text in text_to_code),
    )


def name_to_codepoint(name: str) -> str | None:
    """Return the Unicode emoji code for a Zulip emoji name ("tada" -> "1f389"), or None."""
    return _tables().name_to_code.get(name)


def codepoint_to_name(code: str) -> str | None:
    """Return Zulip's canonical name for a Unicode emoji code ("1f44d" -> "+1"), or None."""
    names = _tables().code_to_names.get(code)
    return names[0] if names else None


def is_valid_codepoint(code: str) -> bool:
    """Tell whether `code` is the emoji code of a Unicode emoji Zulip knows."""
    return code in _tables().code_to_names


def code_to_names() -> dict[str, list[str]]:
    """Return code -> [canonical name, *aliases], the `code_to_names` of server emoji data."""
    return {code: list(names) for code, names in _tables().code_to_names.items()}


def emoji_text_table() -> dict[str, str]:
    """Return FE0F-free emoji text -> code for recognising emoji pasted into messages."""
    return _tables().text_to_code


def is_text_presentation(bare_text: str) -> bool:
    """Tell whether this FE0F-free emoji is plain text unless U+FE0F follows (e.g. "❤")."""
    return bare_text in _tables().text_presentation


def max_emoji_text_chars() -> int:
    """Return the length in characters of the longest FE0F-free emoji text."""
    return _tables().max_text_chars

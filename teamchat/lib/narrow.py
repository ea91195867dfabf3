"""Narrows: parse both wire forms into terms, and normalize operator names.

Zulip accepts `[["stream", "general"]]` and `[{"operator": ..., "operand": ..., "negated": ...}]`,
legacy operator names (`stream`, `pm-with`, `private`) and new ones (`channel`, `dm`).
"""

from __future__ import annotations

import msgspec

# zulip-compat: legacy operator names map onto the current ones.
OPERATOR_ALIASES = {
    "stream": "channel",
    "streams": "channels",
    "pm-with": "dm",
    "group-pm-with": "dm-including",
    "subject": "topic",
}
IS_OPERAND_ALIASES = {"private": "dm"}
# Each term becomes SQL conditions; SQLite refuses expression trees about 1,000 deep, and no
# search a person types has more than a handful of terms.
MAX_NARROW_TERMS = 100


class NarrowTerm(msgspec.Struct, frozen=True):
    operator: str
    operand: object
    negated: bool = False


class BadNarrowError(ValueError):
    """The narrow is malformed; the message says how."""


def parse_narrow(value: object) -> tuple[NarrowTerm, ...]:
    """Terms from a decoded JSON narrow in either wire form."""
    if not isinstance(value, list):
        raise BadNarrowError("narrow is not a list")
    if len(value) > MAX_NARROW_TERMS:
        raise BadNarrowError(f"narrow has too many terms (at most {MAX_NARROW_TERMS})")
    terms = []
    operator: object
    for element in value:
        if isinstance(element, list):
            if len(element) != 2 or not isinstance(element[0], str):
                raise BadNarrowError("Invalid narrow operator: unknown operator")
            operator, operand, negated = element[0], element[1], False
        elif isinstance(element, dict):
            operator = element.get("operator")
            operand = element.get("operand")
            negated = element.get("negated", False)
            if not isinstance(operator, str) or "operand" not in element:
                raise BadNarrowError("Invalid narrow operator: missing operator or operand")
            if not isinstance(negated, bool):
                raise BadNarrowError("Invalid narrow operator: negated is not a boolean")
        else:
            raise BadNarrowError("narrow element is not a list or dict")
        assert isinstance(operator, str)
        if operator.startswith("-"):
            operator, negated = operator[1:], not negated
        operator = OPERATOR_ALIASES.get(operator, operator)
        if operator == "is" and isinstance(operand, str):
            operand = IS_OPERAND_ALIASES.get(operand, operand)
        terms.append(NarrowTerm(operator, operand, negated))
    return tuple(terms)

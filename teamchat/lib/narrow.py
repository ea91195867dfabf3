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
# zulip-compat: which operands may be numbers (Zulip's NarrowParameter): an id where one
# object is named, a list of ids where several are; every other operator takes a string.
ID_OPERATORS = frozenset(
    {"id", "stream", "channel", "sender", "group-pm-with", "dm-including", "with"}
)
ID_LIST_OPERATORS = frozenset({"pm-with", "dm"})
# Each term becomes SQL conditions; SQLite refuses expression trees about 1,000 deep, and no
# search a person types has more than a handful of terms.
MAX_NARROW_TERMS = 100


class NarrowTerm(msgspec.Struct, frozen=True):
    operator: str
    operand: object
    negated: bool = False


class BadNarrowError(ValueError):
    """The narrow is malformed; the message says how."""


def _check_operand(operator: str, operand: object) -> None:
    """Refuse an operand of a type the operator cannot take, in Zulip's words."""
    if operator in ID_OPERATORS:
        if not (isinstance(operand, str) or _is_int(operand)):
            raise BadNarrowError("operand is not a string or integer")
    elif operator in ID_LIST_OPERATORS:
        ids = isinstance(operand, list) and all(_is_int(item) for item in operand)
        if not (isinstance(operand, str) or ids):
            raise BadNarrowError("operand is not a string or an integer list")
    elif not isinstance(operand, str):
        raise BadNarrowError("operand is not a string")
    elif operator == "search" and not operand.strip():
        raise BadNarrowError("operand cannot be blank")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _element_term(index: int, element: object) -> tuple[object, object, object]:
    """(operator, operand, negated) of one element in either wire form, unchecked."""

    # zulip-compat: Zulip's pydantic wording for an element of the wrong shape.
    def invalid(why: str) -> BadNarrowError:
        return BadNarrowError(f"Invalid narrow[{index}]: Value error, {why}")

    if isinstance(element, list):
        if len(element) != 2 or not all(isinstance(x, str) for x in element):
            raise invalid("element is not a string pair")
        return element[0], element[1], False
    if isinstance(element, dict):
        if element.get("operand") is None:
            raise invalid("operand is missing")
        if element.get("operator") is None:
            raise invalid("operator is missing")
        return element["operator"], element["operand"], element.get("negated", False)
    raise invalid("dict or list required")


def parse_narrow(value: object) -> tuple[NarrowTerm, ...]:
    """Terms from a decoded JSON narrow in either wire form."""
    if not isinstance(value, list):
        raise BadNarrowError("narrow is not a list")
    if len(value) > MAX_NARROW_TERMS:
        raise BadNarrowError(f"narrow has too many terms (at most {MAX_NARROW_TERMS})")
    terms = []
    for index, element in enumerate(value):
        operator, operand, negated = _element_term(index, element)
        if not isinstance(operator, str):
            raise BadNarrowError("operator is not a string")
        if negated is None:
            negated = False
        if not isinstance(negated, bool):
            raise BadNarrowError("negated is not a boolean")
        _check_operand(operator.removeprefix("-"), operand)
        if operator.startswith("-"):
            operator, negated = operator[1:], not negated
        operator = OPERATOR_ALIASES.get(operator, operator)
        if operator == "is" and isinstance(operand, str):
            operand = IS_OPERAND_ALIASES.get(operand, operand)
        terms.append(NarrowTerm(operator, operand, negated))
    return tuple(terms)

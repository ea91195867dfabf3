"""Decode JSON sent by clients: bounded nesting, so no request can exhaust the stack.

Every request parameter that carries JSON goes through `decode_json`; stored JSON that we
wrote ourselves does not need it.
"""

from __future__ import annotations

import msgspec

# Real clients nest at most a few levels (narrows, group settings, profile data). Zulip's
# orjson refuses past 1024; we stop far earlier, before any recursive code sees the value.
MAX_JSON_DEPTH = 32


def decode_json(raw: str | bytes) -> object:
    """The decoded value; msgspec.DecodeError when invalid or nested deeper than allowed."""
    try:
        value: object = msgspec.json.decode(raw)
    except RecursionError:
        raise msgspec.DecodeError("JSON is nested too deeply") from None
    if _depth_exceeds(value, MAX_JSON_DEPTH):
        raise msgspec.DecodeError("JSON is nested too deeply")
    return value


def _depth_exceeds(value: object, limit: int) -> bool:
    """Whether lists/objects nest more than `limit` levels, walked without recursion."""
    pending: list[tuple[object, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: list[object] = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False

"""Per-user message flags: the bitmask stored in `user_message.flags` and Zulip's flag names."""

from __future__ import annotations

import functools
from collections.abc import Iterable

READ = 1
STARRED = 2
COLLAPSED = 4
MENTIONED = 8
STREAM_WILDCARD_MENTIONED = 16
TOPIC_WILDCARD_MENTIONED = 32
HAS_ALERT_WORD = 64
HISTORICAL = 128
# Internal: the message is a direct message (serves `is:dm` from a partial index).
IS_PRIVATE = 256

# Zulip's API flag names, in the order Zulip lists them.
FLAG_BITS = {
    "read": READ,
    "starred": STARRED,
    "collapsed": COLLAPSED,
    "mentioned": MENTIONED,
    "stream_wildcard_mentioned": STREAM_WILDCARD_MENTIONED,
    "topic_wildcard_mentioned": TOPIC_WILDCARD_MENTIONED,
    "has_alert_word": HAS_ALERT_WORD,
    "historical": HISTORICAL,
}
# Flags a user may change through POST /messages/flags.
EDITABLE = frozenset({"read", "starred", "collapsed"})
# Flags that exist in Zulip but are never set by clients.
NON_EDITABLE = frozenset(
    {
        "mentioned",
        "stream_wildcard_mentioned",
        "topic_wildcard_mentioned",
        "wildcard_mentioned",
        "has_alert_word",
        "historical",
    }
)
ANY_MENTION = MENTIONED | STREAM_WILDCARD_MENTIONED | TOPIC_WILDCARD_MENTIONED
# Flags of a message the user sees without having received it (a channel's history).
HISTORICAL_FLAGS = READ | HISTORICAL


def flag_names(bits: int) -> list[str]:
    """The API flag list for a bitmask, with the deprecated `wildcard_mentioned` when due."""
    return list(_flag_names(bits))


@functools.lru_cache(maxsize=1024)
def _flag_names(bits: int) -> tuple[str, ...]:
    names = [name for name, bit in FLAG_BITS.items() if bits & bit]
    if bits & (STREAM_WILDCARD_MENTIONED | TOPIC_WILDCARD_MENTIONED):
        # zulip-compat: wildcard_mentioned = stream OR topic wildcard mention (deprecated).
        names.append("wildcard_mentioned")
    return tuple(names)


def bits_of(names: Iterable[str]) -> int:
    bits = 0
    for name in names:
        bits |= FLAG_BITS.get(name, 0)
    return bits

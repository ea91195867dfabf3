"""Per-queue rules for `realm_user` and `presence` events (imported by their actions).

An "Unknown user" `realm_user`/`add` (a new person a limited guest may not access) carries
`_if_caps` so that clients declaring `user_list_incomplete` never receive it.
"""

from __future__ import annotations

from teamchat.events.internal import caps_match, public_copy
from teamchat.events.queue import ACCEPT_RULES, SHAPERS, EventQueue
from teamchat.events.types import JsonDict

ACCEPT_RULES["realm_user"] = caps_match
SHAPERS["realm_user"] = lambda queue, event: public_copy(event)


def _shape_presence(queue: EventQueue, event: JsonDict) -> JsonDict:
    """The modern copy (`presences` only) or the legacy one, as the client declared."""
    if queue.caps.simplified_presence_events:
        return {"type": "presence", "presences": event["presences"]}
    return {key: value for key, value in event.items() if key != "presences"}


SHAPERS["presence"] = _shape_presence

"""Internal event keys: per-queue conditions and shaping hints that never reach a client.

Keys starting with "_" are private to the server. `_if_caps` maps capability names to the
value a queue must have declared to receive the event (e.g. legacy and modern variants of
one change). Shapers remove every private key before the event is queued.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from teamchat.events.types import JsonDict

if TYPE_CHECKING:
    from teamchat.events.queue import EventQueue

IF_CAPS = "_if_caps"
# {"queue_id": ..., ...}: the one queue whose copy differs (the sender's: local_message_id).
FOR_QUEUE = "_local"


def caps_match(queue: EventQueue, event: JsonDict) -> bool:
    """Whether the queue's declared capabilities satisfy the event's `_if_caps`."""
    wanted = event.get(IF_CAPS)
    if not isinstance(wanted, dict):
        return True
    return all(getattr(queue.caps, name) == value for name, value in wanted.items())


def public_copy(event: JsonDict) -> JsonDict:
    """The event without its private keys."""
    return {key: value for key, value in event.items() if not key.startswith("_")}


def targets_queue(event: JsonDict, queue_id: str) -> bool:
    """Whether the event carries something for this queue alone (see FOR_QUEUE)."""
    target = event.get(FOR_QUEUE)
    return isinstance(target, dict) and target.get("queue_id") == queue_id

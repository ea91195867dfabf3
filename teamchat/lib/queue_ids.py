"""Event queue ids, and the process a queue id names when several processes serve together.

One process (the default) allocates ids as it always has: `<milliseconds, hex>:<random hex>`.
A process given a number N (`teamchat serve --process N`) puts `N-` in front, so a reverse
proxy can send a queue's polls to the process that holds it (the queue lives in that
process's memory). Clients treat the id as opaque text. The digits and the dash are never
percent-encoded in a query string by any client, so the proxy can match the raw argument.
"""

from __future__ import annotations

import re
import secrets

MAX_PROCESS = 999
# `N-` where N is 1..999 written plainly (no leading zero): what `process_of` recognises.
_PREFIX = re.compile(r"([1-9][0-9]{0,2})-")


def new_queue_id(now_secs: float, process: int | None) -> str:
    """A fresh queue id; it names `process` when one is set."""
    queue_id = f"{int(now_secs * 1000):x}:{secrets.token_hex(8)}"
    return queue_id if process is None else f"{process}-{queue_id}"


def process_of(queue_id: str) -> int | None:
    """The process number a queue id names, or None (an id of a single process, or junk)."""
    found = _PREFIX.match(queue_id)
    return int(found.group(1)) if found is not None else None


def check_process(value: int) -> int:
    """`value` as a process number; ValueError unless 1 <= value <= MAX_PROCESS."""
    if not 1 <= value <= MAX_PROCESS:
        raise ValueError(f"a process number is 1 to {MAX_PROCESS}, not {value}")
    return value

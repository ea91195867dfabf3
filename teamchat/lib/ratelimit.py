"""Sliding-window rate limiting in memory, keyed by any string; the clock is injected."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

# Past this many keys, `hit` drops keys whose window is empty (so keys sprayed by an attacker,
# such as made-up usernames, cannot grow memory without bound).
SWEEP_AT_KEYS = 10_000


class RateLimiter:
    """At most `max_requests` per `window_secs` per key; max_requests 0 means unlimited."""

    def __init__(self, max_requests: int, window_secs: float, clock: Callable[[], float]) -> None:
        self.max_requests = max_requests
        self.window_secs = window_secs
        self.clock = clock
        self._hits: dict[str, deque[float]] = {}

    def _window(self, key: str) -> deque[float]:
        hits = self._hits.setdefault(key, deque())
        horizon = self.clock() - self.window_secs
        while hits and hits[0] <= horizon:
            hits.popleft()
        return hits

    def retry_after(self, key: str) -> float | None:
        """Seconds until `key` may act again, or None if it may act now."""
        if self.max_requests <= 0:
            return None
        hits = self._window(key)
        if len(hits) < self.max_requests:
            return None
        return max(hits[0] + self.window_secs - self.clock(), 0.001)

    def hit(self, key: str) -> None:
        if self.max_requests > 0:
            if len(self._hits) >= SWEEP_AT_KEYS:
                self._sweep()
            self._window(key).append(self.clock())

    def unhit(self, key: str) -> None:
        """Take back the newest hit of `key` (a request counted twice)."""
        hits = self._hits.get(key)
        if hits:
            hits.pop()

    def _sweep(self) -> None:
        for key in list(self._hits):
            if not self._window(key):
                del self._hits[key]

    def remaining(self, key: str) -> int:
        return max(self.max_requests - len(self._window(key)), 0)

    def clear(self, key: str) -> None:
        self._hits.pop(key, None)

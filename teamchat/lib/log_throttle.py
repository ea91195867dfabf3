"""One log line per kind of trouble per interval, however often the trouble happens.

A client that opens thousands of connections, or a disk that stays full while requests keep
coming, must not fill the log: the first occurrence is logged at once, later ones are counted
and reported with the next line, at most one line per `every_secs`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable


class ThrottledLog:
    def __init__(
        self,
        logger: logging.Logger,
        every_secs: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.every_secs = every_secs
        self.clock = clock
        self._last: float | None = None
        self._unreported = 0

    def warning(self, message: str, *args: object) -> bool:
        """Log `message` unless a line went out less than `every_secs` ago; True if logged."""
        self._unreported += 1
        now = self.clock()
        if self._last is not None and now - self._last < self.every_secs:
            return False
        more = self._unreported - 1
        self._unreported = 0
        self._last = now
        if more:
            message += f" (and {more} more since the last such line)"
        self.logger.warning(message, *args)
        return True

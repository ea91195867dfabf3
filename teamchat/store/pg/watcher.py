"""PgWatcher: the change-log watcher's interface (see `store/watcher.py`) on PostgreSQL."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from teamchat.store.pg.database import PgDatabase

log = logging.getLogger(__name__)

Listener = Callable[[], Awaitable[object]]


class PgWatcher:
    """The change-log watcher's interface (see `store/watcher.py`) on PostgreSQL: listeners
    run after another process committed to a notifying table (LISTEN, via the database)."""

    def __init__(self, db: PgDatabase, interval_secs: float) -> None:
        self._db = db
        self.interval_secs = interval_secs
        self._listeners: list[Listener] = []
        self._seen = -1

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    async def open(self) -> None:
        self._seen = self._db.others_commits

    async def close(self) -> None:
        return None

    async def check(self) -> bool:
        seen = self._db.others_commits
        if seen == self._seen:
            return False
        for listener in self._listeners:
            await listener()
        self._seen = seen
        return True

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_secs)
            try:
                await self.check()
            except Exception:
                log.exception("change watcher listener failed")


__all__ = ["PgWatcher"]

"""DataVersionWatcher: notices commits made by other connections to the database file.

SQLite's `PRAGMA data_version` changes on a connection whenever another connection (in
this process or another one) committed since it was last read. One read-only connection
polls it every `interval_secs` (cheap: no table is read) and, on a change, awaits every
listener in order. Listeners decide what a change means (the change log publishes the CLI's
events; caches can drop entries). Must not know about events or actions.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

from teamchat.store.db import connect

log = logging.getLogger(__name__)
Listener = Callable[[], Awaitable[object]]


class DataVersionWatcher:
    def __init__(self, path: Path, interval_secs: float = 0.2) -> None:
        self.path = path
        self.interval_secs = interval_secs
        self._listeners: list[Listener] = []
        self._conn: sqlite3.Connection | None = None
        self._version: int | None = None

    def add_listener(self, listener: Listener) -> None:
        """Await `listener()` after every commit another connection makes."""
        self._listeners.append(listener)

    async def open(self) -> None:
        self._conn = connect(self.path, read_only=True)
        self._version = await self._data_version()

    async def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    async def _data_version(self) -> int:
        assert self._conn is not None, "watcher is not open"
        row = self._conn.execute("PRAGMA data_version").fetchone()
        return int(row[0]) if row else 0

    async def check(self) -> bool:
        """Run the listeners if the database changed since the last check; say whether."""
        version = await self._data_version()
        if version == self._version:
            return False
        for listener in self._listeners:
            await listener()
        self._version = version  # only now: a failed listener is retried on the next tick
        return True

    async def run(self) -> None:
        """Poll until cancelled; a failing listener is logged, never stops the watch."""
        while True:
            await asyncio.sleep(self.interval_secs)
            try:
                await self.check()
            except Exception:
                log.exception("change watcher listener failed")

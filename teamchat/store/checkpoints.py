"""Checkpoints of the SQLite write-ahead log, off the commit path.

By default SQLite checkpoints inside the COMMIT that takes the log past 1,000 pages: that
COMMIT copies every page of the log into the database file and syncs it before it returns.
A message to a channel of a thousand people changes some 2,000 pages, so every such COMMIT
was a checkpoint, and every caller of a group commit waits for its COMMIT.

The server's writer turns that off (`wal_autocheckpoint=0`); after a COMMIT, `committed()`
starts a PASSIVE checkpoint on a connection and thread of its own once the last one is
`EVERY_SECS` old, or sooner when the log file grew by `LOG_BYTES` since. (Its size tells
nothing more: once everything was copied, the writer starts the log again from its
beginning and writes over the old file.) A passive checkpoint waits for nobody: it copies
what no reader still needs. A page changed by many commits in between is copied once.

SQLite starts the log again from its beginning only when a write transaction begins after
everything was copied. Under steady writes the next transaction has always begun before
the thread's checkpoint ends, and the log would grow for as long as they last. So once a
checkpoint finds `RESET_FRAMES` pages in the log, `committed()` answers True and the writer
copies the rest itself, after the COMMIT's callers have their answers and before its next
transaction begins: little is left to copy by then, and that transaction starts the log
again.

The checkpoint syncs the database file before the log can be reused, so nothing committed
is lost on a power failure. A checkpoint that fails (a full disk) is tried again after a
later commit; the log keeps every committed page meanwhile.

scripts/bench_recipients.py, a send's transaction with its COMMIT, before and after (with
the writer's bigger cache and in-memory sub-journals, store.db): 1,000 recipients 35-39 ->
21-22 ms, 100 recipients 3.3-3.9 -> 2.8-3.2 ms.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

log = logging.getLogger(__name__)

LOG_BYTES = 32 * 1024 * 1024
EVERY_SECS = 0.5
RESET_FRAMES = LOG_BYTES // 4096  # pages of the log (4 KiB each) before it must start again
# Once copied, the log is truncated to this size when it starts again (SQLite keeps the
# file, its high-water mark, otherwise).
KEEP_LOG_BYTES = 64 * 1024 * 1024


class Checkpointer:
    """Runs the write-ahead log's checkpoints for one database file."""

    def __init__(self, path: Path, connect: Callable[..., sqlite3.Connection]) -> None:
        self._path = path
        self._log = Path(f"{path}-wal")
        self._connect = connect
        self._conn: sqlite3.Connection | None = None
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="teamchat-checkpoint")
        self._running: asyncio.Future[None] | None = None
        self._last = time.monotonic()
        self._last_size = 0  # of the log file when the last checkpoint started
        self._frames = 0  # pages in the log when the last checkpoint ran

    def open(self, writer: sqlite3.Connection) -> None:
        """Take checkpoints off `writer`'s commits."""
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute(f"PRAGMA journal_size_limit={KEEP_LOG_BYTES}")

    def committed(self) -> bool:
        """Called after each COMMIT, before the writer's next transaction: start a checkpoint
        if one is due and none runs; True if the writer must copy the rest now
        (`copy_rest`), because the log did not start again."""
        if self._running is not None:
            return False
        if self._frames >= RESET_FRAMES:
            return True
        try:
            size = os.stat(self._log).st_size
        except OSError:
            return False
        now = time.monotonic()
        if now - self._last < EVERY_SECS and size - self._last_size < LOG_BYTES:
            return False
        self._last, self._last_size = now, size
        loop = asyncio.get_running_loop()
        self._running = loop.run_in_executor(self._thread, self._checkpoint)
        self._running.add_done_callback(self._done)
        return False

    def _done(self, future: asyncio.Future[None]) -> None:
        self._running = None
        if not future.cancelled() and future.exception() is not None:
            log.warning("checkpoint of %s failed: %s", self._path, future.exception())

    def _checkpoint(self) -> None:
        if self._conn is None:
            self._conn = self._connect(self._path, read_only=False)
        self._frames = _passive_checkpoint(self._conn)

    def copy_rest(self, writer: sqlite3.Connection) -> None:
        """The writer's checkpoint, between two of its transactions (on its thread)."""
        try:
            _passive_checkpoint(writer)
        except (sqlite3.Error, OSError) as exc:
            log.warning("checkpoint of %s failed: %s", self._path, exc)
        self._frames = 0  # the next checkpoint of the thread tells whether the log started

    async def close(self) -> None:
        """Wait for a running checkpoint, close its connection (before the others: the last
        connection to close checkpoints what is left and removes the log)."""
        running = self._running
        if running is not None:
            await asyncio.wait([running])
        self._thread.shutdown(wait=True)
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _passive_checkpoint(conn: sqlite3.Connection) -> int:
    """Copy what no reader still needs; return how many pages the log holds."""
    row = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return int(row[1]) if row and row[1] is not None and row[1] > 0 else 0


__all__ = ["Checkpointer"]

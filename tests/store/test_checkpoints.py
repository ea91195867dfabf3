"""The server's COMMITs do not checkpoint the write-ahead log (a checkpoint inside a COMMIT
made every caller of that group commit wait for it); a thread of its own does, once the log
is big enough or old enough, and what it copied is in the database file itself."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path

import pytest

from teamchat.store import checkpoints
from teamchat.store.db import Database

ROWS = 3000  # with 1 KiB each, well past SQLite's own checkpoint at 1,000 pages


def _rows_in_file_alone(db_path: Path, tmp_path: Path) -> int:
    """Rows of `t` in the database file without its write-ahead log."""
    copy = tmp_path / "file-alone.db"
    shutil.copyfile(db_path, copy)
    conn = sqlite3.connect(copy)
    try:
        return int(conn.execute("SELECT count(*) FROM t").fetchone()[0])
    except sqlite3.OperationalError:  # the table itself is only in the log
        return 0
    finally:
        conn.close()


async def _write_rows(db: Database) -> None:
    async with db.write() as tx:
        await tx.execute("CREATE TABLE t (x TEXT)")
    for start in range(0, ROWS, 500):
        async with db.write() as tx:
            await tx.executemany(
                "INSERT INTO t VALUES (?)", [("x" * 1024,) for _ in range(start, start + 500)]
            )


async def _checkpoint_finished(db: Database) -> None:
    for _ in range(500):
        if db._checkpointer is None or db._checkpointer._running is None:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the checkpoint did not finish")


async def test_commits_leave_the_log_to_the_checkpointer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "LOG_BYTES", 1 << 40)
    monkeypatch.setattr(checkpoints, "EVERY_SECS", 3600.0)
    db = Database(tmp_path / "c.db", readers=1)
    await db.open()
    try:
        await _write_rows(db)
        await _checkpoint_finished(db)
        assert _rows_in_file_alone(tmp_path / "c.db", tmp_path) == 0
        async with db.read() as conn:
            row = await conn.fetchone("SELECT count(*) FROM t")
        assert row is not None and row[0] == ROWS
    finally:
        await db.close()
    # Closing the last connection copies the rest.
    assert _rows_in_file_alone(tmp_path / "c.db", tmp_path) == ROWS


@pytest.mark.parametrize("due", ["log grew", "time passed"])
async def test_the_checkpointer_copies_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, due: str
) -> None:
    monkeypatch.setattr(checkpoints, "LOG_BYTES", 64 * 1024 if due == "log grew" else 1 << 40)
    monkeypatch.setattr(checkpoints, "EVERY_SECS", 3600.0 if due == "log grew" else 0.0)
    db = Database(tmp_path / "c.db", readers=1)
    await db.open()
    try:
        await _write_rows(db)
        await _checkpoint_finished(db)
        if due == "log grew":
            assert 0 < _rows_in_file_alone(tmp_path / "c.db", tmp_path) <= ROWS
        else:  # a commit while none runs starts one, and it copies everything
            async with db.write() as tx:
                await tx.execute("INSERT INTO t VALUES ('last')")
            await _checkpoint_finished(db)
            assert _rows_in_file_alone(tmp_path / "c.db", tmp_path) == ROWS + 1
    finally:
        await db.close()


async def test_a_command_keeps_sqlites_own_checkpoints(tmp_path: Path) -> None:
    db = Database(tmp_path / "c.db", readers=1, bulk=True)
    await db.open()
    try:
        await _write_rows(db)
        assert _rows_in_file_alone(tmp_path / "c.db", tmp_path) > 0
    finally:
        await db.close()


async def test_the_log_starts_again_under_steady_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkpoint on its own thread never finds a moment without a write transaction
    when the next one begins at once; the writer then copies the rest between two of its
    transactions, so the log starts again from its beginning instead of growing."""
    monkeypatch.setattr(checkpoints, "LOG_BYTES", 64 * 1024)
    monkeypatch.setattr(checkpoints, "EVERY_SECS", 0.0)
    monkeypatch.setattr(checkpoints, "RESET_FRAMES", 64)
    db = Database(tmp_path / "c.db", readers=1)
    await db.open()
    try:
        async with db.write() as tx:
            await tx.execute("CREATE TABLE t (x TEXT)")
        log = tmp_path / "c.db-wal"
        before = log.stat().st_size  # the schema's pages, from opening

        async def write() -> None:
            async with db.write() as tx:
                await tx.executemany("INSERT INTO t VALUES (?)", [("x" * 1024,)] * 20)

        written = 0
        for _ in range(60):  # two bodies a batch: one writes while the other commits
            await asyncio.gather(write(), write())
            written += 2 * 20 * 1024
        grown = log.stat().st_size - before
        assert grown < written / 4, (grown, written)
    finally:
        await db.close()

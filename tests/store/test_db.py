"""The Database under cancellation: a request that goes away mid-transaction must not leave
a connection inside a transaction (which would fail every later BEGIN)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from teamchat.store.db import Database


async def test_cancelled_reads_and_writes_leave_connections_usable(tmp_path: Path) -> None:
    db = Database(tmp_path / "c.db", readers=1)
    await db.open()
    try:

        async def read_once() -> None:
            async with db.read() as conn:
                await conn.fetchone("SELECT 1")

        async def write_once() -> None:
            async with db.write() as tx:
                await tx.execute("CREATE TABLE IF NOT EXISTS t (x)")
                await tx.execute("INSERT INTO t VALUES (1)")

        for delay_steps in range(12):
            for work in (read_once, write_once):
                task = asyncio.create_task(work())
                for _ in range(delay_steps):
                    await asyncio.sleep(0)
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        await read_once()
        await write_once()
        async with db.read() as conn:
            row = await conn.fetchone("SELECT count(*) FROM t")
        assert row is not None and row[0] >= 1
    finally:
        await db.close()


async def test_committed_writes_publish_even_when_cancelled_during_commit(tmp_path: Path) -> None:
    db = Database(tmp_path / "p.db", readers=1)
    await db.open()
    published: list[int] = []
    try:
        async with db.write() as tx:
            await tx.execute("CREATE TABLE t (x)")
        for delay_steps in range(20):

            async def work(n: int = delay_steps) -> None:
                async with db.write() as tx:
                    await tx.execute("INSERT INTO t VALUES (?)", (n,))
                    tx.after_commit(lambda: published.append(n))

            task = asyncio.create_task(work())
            for _ in range(delay_steps):
                await asyncio.sleep(0)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        async with db.read() as conn:
            rows = await conn.fetchall("SELECT x FROM t ORDER BY x")
        assert [row[0] for row in rows] == sorted(published)  # committed <=> published
    finally:
        await db.close()

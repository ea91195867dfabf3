"""The Database under cancellation: a request that goes away mid-transaction must not leave
a connection inside a transaction (which would fail every later BEGIN)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from teamchat.store.db import Conn, Database


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


async def test_group_commit_runs_waiting_bodies_in_one_transaction(tmp_path: Path) -> None:
    """Concurrent writes share COMMITs; a failing body rolls back only itself; hooks run in
    commit order, after the data is visible to readers."""
    db = Database(tmp_path / "g.db", readers=1)
    await db.open()
    seen_at_hook: list[tuple[int, int]] = []
    try:
        async with db.write() as tx:
            await tx.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")

        async def visible() -> int:
            async with db.read() as conn:
                row = await conn.fetchone("SELECT count(*) FROM t")
            return int(row[0]) if row else 0

        async def insert(n: int) -> None:
            async with db.write() as tx:
                await tx.execute("INSERT INTO t VALUES (?)", (n,))
                if n % 5 == 0:
                    raise ValueError(n)
                tx.after_commit(lambda: seen_at_hook.append((n, 0)))

        commits = 0
        original = db._commit

        async def counting(batch: object) -> None:
            nonlocal commits
            commits += 1
            await original(batch)  # type: ignore[arg-type]

        db._commit = counting  # type: ignore[method-assign]
        results = await asyncio.gather(*(insert(n) for n in range(1, 41)), return_exceptions=True)
        failed = [r for r in results if isinstance(r, ValueError)]
        assert len(failed) == 8
        assert commits < 10  # 40 bodies, a handful of COMMITs
        async with db.read() as conn:
            rows = [r[0] for r in await conn.fetchall("SELECT x FROM t ORDER BY x")]
        assert rows == [n for n in range(1, 41) if n % 5]
        assert [n for n, _ in seen_at_hook] == [n for n in range(1, 41) if n % 5]
        assert await visible() == 32
    finally:
        await db.close()


async def test_writes_return_only_after_commit(tmp_path: Path) -> None:
    """What a write returned is visible to every reader at once (read-your-writes)."""
    db = Database(tmp_path / "r.db", readers=2)
    await db.open()
    try:
        async with db.write() as tx:
            await tx.execute("CREATE TABLE t (x)")

        async def write_then_read(n: int) -> int:
            async with db.write() as tx:
                await tx.execute("INSERT INTO t VALUES (?)", (n,))
            async with db.read() as conn:
                row = await conn.fetchone("SELECT count(*) FROM t WHERE x = ?", (n,))
            return int(row[0]) if row else 0

        assert await asyncio.gather(*(write_then_read(n) for n in range(20))) == [1] * 20
    finally:
        await db.close()


async def test_versions_grow_with_commits_that_change_watched_tables(tmp_path: Path) -> None:
    """Caches trust `version(table)`: it grows after a COMMIT that wrote the table (ours, by
    trigger) or after any commit of another process (its data_version), and not else."""
    db = Database(tmp_path / "v.db", readers=1)
    await db.open()
    try:
        users, realm = db.version("users"), db.version("realm")
        async with db.write() as tx:
            await tx.execute("CREATE TABLE other (x)")
            await tx.execute("INSERT INTO other VALUES (1)")
        assert (db.version("users"), db.version("realm")) == (users, realm)
        async with db.write() as tx:
            await tx.execute(
                "INSERT INTO realm (name, description, host, date_created) VALUES ('r', '', 'h', 0)"
            )
        assert db.version("realm") > realm and db.version("users") == users
        realm = db.version("realm")
        async with db.write() as tx:
            await tx.execute("UPDATE realm SET name = 'renamed'")
        assert db.version("realm") > realm
        realm = db.version("realm")
        other = sqlite3.connect(tmp_path / "v.db")
        other.execute("INSERT INTO other VALUES (2)")
        other.commit()
        other.close()
        await asyncio.sleep(0.002)  # past the look's millisecond (OTHER_WRITERS_LOOK_SECS)
        assert db.version("users") > users and db.version("realm") > realm
        realm = db.version("realm")
        other = sqlite3.connect(tmp_path / "v.db")
        other.execute("INSERT INTO other VALUES (3)")
        other.commit()
        other.close()
        await asyncio.sleep(0.002)
        assert db.version("realm") > realm
        assert db.version("realm") == db.version("realm")  # nothing new: it stands
    finally:
        await db.close()


async def test_memos_of_watched_tables_follow_commits(tmp_path: Path) -> None:
    """`Conn.memo` in a read snapshot: reused while the table is unchanged, read again after a
    commit that wrote it; a snapshot that started before such a commit never stores its
    (possibly older) value as current."""
    db = Database(tmp_path / "m.db", readers=2)
    await db.open()
    loads: list[str] = []

    async def names(conn: Conn) -> tuple[str, ...]:
        loads.append("load")
        rows = await conn.fetchall("SELECT name FROM realm ORDER BY id")
        return tuple(row[0] for row in rows)

    async def read_names() -> tuple[str, ...]:
        async with db.read() as conn:
            return await conn.memo("realm", "names", names)

    try:
        async with db.write() as tx:
            await tx.execute(
                "INSERT INTO realm (name, description, host, date_created) VALUES ('a', '', 'h', 0)"
            )
        assert await read_names() == ("a",) and await read_names() == ("a",)
        assert len(loads) == 1
        async with db.read() as old:  # starts before the next commit
            async with db.write() as tx:
                await tx.execute("UPDATE realm SET name = 'b'")
            await old.memo("realm", "names", names)
        assert await read_names() == ("b",)
        assert await read_names() == ("b",)
        assert len(loads) == 3
        async with db.write() as tx:  # a write transaction always reads the table
            await tx.execute("UPDATE realm SET name = 'c'")
            assert await tx.memo("realm", "names", names) == ("c",)
        assert await read_names() == ("c",)
    finally:
        await db.close()


async def test_memos_of_several_tables_follow_each_and_may_age(tmp_path: Path) -> None:
    """A memo of several tables is read again after a commit to any of them, and whenever its
    `fresh` check says the value has aged (values that depend on the clock)."""
    db = Database(tmp_path / "s.db", readers=1)
    await db.open()
    loads: list[int] = []
    now = [0]

    async def counts(conn: Conn) -> tuple[int, int, int]:
        loads.append(now[0])
        users = await conn.fetchone("SELECT count(*) FROM users")
        streams = await conn.fetchone("SELECT count(*) FROM stream")
        assert users is not None and streams is not None
        return int(users[0]), int(streams[0]), now[0] + 10  # the last: good until then

    async def read_counts() -> tuple[int, int, int]:
        async with db.read() as conn:
            return await conn.memo(
                ("users", "stream"), "counts", counts, fresh=lambda value: now[0] < value[2]
            )

    try:
        first = await read_counts()
        assert await read_counts() == first and len(loads) == 1
        async with db.write() as tx:
            await tx.execute(
                "INSERT INTO stream (name, description, rendered_description, date_created)"
                " VALUES ('s', '', '', 0)"
            )
        assert (await read_counts())[1] == first[1] + 1 and len(loads) == 2
        async with db.write() as tx:
            await tx.execute(
                "INSERT INTO users (delivery_email, full_name, api_key, role, date_joined)"
                " VALUES ('u@example.com', 'U', 'k', 400, 0)"
            )
        assert (await read_counts())[0] == first[0] + 1 and len(loads) == 3
        await read_counts()
        assert len(loads) == 3
        now[0] = 10  # the value has aged
        await read_counts()
        assert loads == [0, 0, 0, 10]
    finally:
        await db.close()

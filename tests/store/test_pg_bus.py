"""Events across processes on PostgreSQL, in-process: two stores on one database (each with
its own connections, as two server processes have), each with a SharedBroker. What one
publishes after its commits reaches the other's queues in commit order, long text goes
through the table, loose publishes (typing) and queue drops cross too, a process never gets
its own events twice, and a lost LISTEN connection drops the local queues."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from teamchat.events import rules_messages  # noqa: F401 (the message shaper)
from teamchat.events.queue import ClientCapabilities, EventQueue
from teamchat.events.shared import SharedBroker
from teamchat.store.conn import BaseDatabase
from teamchat.store.pg.database import PgDatabase
from tests.support.postgres import PostgresServer

pytestmark = pytest.mark.timeout(60)


class Process:
    def __init__(self, url: str) -> None:
        self.db = PgDatabase(url)
        self.broker: SharedBroker

    async def open(self) -> Process:
        await self.db.open()
        self.broker = SharedBroker(time.monotonic, self.db.bus(), idle_timeout_secs=600)
        return self

    async def commit_event(self, n: int, audience: Any, size: int = 0) -> None:
        """One write transaction whose hook publishes event n (as an action does)."""
        event = {"type": "custom", "n": n, "pad": "x" * size}
        async with self.db.write() as tx:
            await tx.execute("UPDATE teamchat_schema SET version = version")
            tx.after_commit(lambda: self.broker.publish(event, audience))


@pytest.fixture
async def pair(postgres: PostgresServer) -> AsyncIterator[tuple[Process, Process]]:
    url = postgres.new_database("bus")
    first = await Process(url).open()
    second = await Process(url).open()
    yield first, second
    await first.db.close()
    await second.db.close()


def numbers(queue: EventQueue) -> list[int]:
    return [e["n"] for e in queue.contents() if e["type"] == "custom"]


async def until(condition: Callable[[], bool], timeout_secs: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_secs
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_events_reach_the_other_process_once_and_in_commit_order(
    pair: tuple[Process, Process],
) -> None:
    first, second = pair
    here = first.broker.allocate(7, ClientCapabilities())
    there = second.broker.allocate(7, ClientCapabilities())
    other_user = second.broker.allocate(8, ClientCapabilities())

    async def commit(process: Process, n: int) -> None:
        await process.commit_event(n, [7])

    # Both processes commit at once, many batches each: every queue sees every event once,
    # and both queues see them in one same order (the commit order).
    await asyncio.gather(*(commit(first if n % 3 else second, n) for n in range(60)))
    await until(lambda: len(numbers(here)) == 60 and len(numbers(there)) == 60)
    assert numbers(here) == numbers(there)
    assert sorted(numbers(here)) == list(range(60))
    assert numbers(other_user) == []
    # Recipients with per-user extras (flags), shared among users as actions share them.
    shared = {"flags": ["read"]}
    await first.commit_event(100, {7: shared, 8: shared})
    await until(lambda: 100 in numbers(other_user))
    assert [e["flags"] for e in other_user.contents() if e.get("n") == 100] == [["read"]]


async def test_long_events_go_through_the_table_in_order(pair: tuple[Process, Process]) -> None:
    first, second = pair
    there = second.broker.allocate(7, ClientCapabilities())
    await first.commit_event(1, [7])
    await first.commit_event(2, [7], size=20_000)  # beyond a notification's 8000 bytes
    await first.commit_event(3, [7])
    await until(lambda: len(numbers(there)) == 3)
    assert numbers(there) == [1, 2, 3]
    assert len(there.contents()[1]["pad"]) == 20_000


async def test_loose_publishes_and_queue_drops_cross(pair: tuple[Process, Process]) -> None:
    first, second = pair
    there = second.broker.allocate(7, ClientCapabilities())
    first.broker.publish({"type": "custom", "n": 1}, iter([7]))  # typing: no transaction
    await until(lambda: numbers(there) == [1])
    gone = second.broker.allocate(9, ClientCapabilities())
    async with first.db.write() as tx:
        await tx.execute("UPDATE teamchat_schema SET version = version")
        tx.after_commit(lambda: first.broker.drop_user_queues(9))
    await until(lambda: gone.queue_id not in second.broker.queues)
    assert there.queue_id in second.broker.queues


async def test_a_lost_listener_drops_the_local_queues(pair: tuple[Process, Process]) -> None:
    first, second = pair
    there = second.broker.allocate(7, ClientCapabilities())
    listener_pid = second.db._listener.get_server_pid()  # type: ignore[attr-defined]
    async with first.db.read() as conn:
        await conn.fetchone("SELECT pg_terminate_backend(?)", (listener_pid,))
    await until(lambda: there.queue_id not in second.broker.queues)
    # Listening again: new queues get events again.
    again = second.broker.allocate(7, ClientCapabilities())
    await until(lambda: second.db.versions() is not None)
    await first.commit_event(5, [7])
    await until(lambda: numbers(again) == [5])


async def test_a_database_for_one_process_has_no_bus(tmp_path: Any) -> None:
    from teamchat.store.db import Database

    database: BaseDatabase = Database(tmp_path / "one.db")
    assert database.bus() is None


async def test_all_public_streams_watchers_of_each_process_get_public_messages(
    pair: tuple[Process, Process],
) -> None:
    first, second = pair
    watcher = second.broker.allocate(9, ClientCapabilities(all_public_streams=True))
    receiver = second.broker.allocate(7, ClientCapabilities(all_public_streams=True))
    event = {"type": "custom", "n": 3}
    async with first.db.write() as tx:  # process 1 has no watcher of its own
        await tx.execute("UPDATE teamchat_schema SET version = version")
        tx.after_commit(lambda: first.broker.publish_to_public_watchers(event, {7}, {"flags": []}))
    await until(lambda: numbers(watcher) == [3])
    assert watcher.contents()[0]["flags"] == []
    assert numbers(receiver) == []  # a receiver gets the message itself, not this copy


async def test_a_snapshot_in_step_holds_each_change_or_gets_its_event(
    pair: tuple[Process, Process],
) -> None:
    """A register on one process while the other commits: every change is either in the
    snapshot or an event of the new queue, never both, never neither."""
    first, second = pair
    done = asyncio.Event()

    async def keep_committing() -> None:
        n = 0
        while not done.is_set():
            event = {"type": "custom", "n": n}
            async with first.db.write() as tx:
                await tx.execute(
                    'INSERT INTO linkifier (pattern, url_template, "order") VALUES (?, ?, ?)',
                    (f"p{n}", "https://example.com/{id}", n),
                )
                tx.after_commit(lambda event=event: first.broker.publish(event, [7]))
            n += 1

    committer = asyncio.create_task(keep_committing())
    registered: list[tuple[set[int], EventQueue]] = []
    for _ in range(15):
        async with second.db.writes_paused(), second.db.read_in_step() as conn:
            queue = second.broker.allocate(7, ClientCapabilities())
            rows = await conn.fetchall('SELECT "order" FROM linkifier')
        registered.append(({int(row[0]) for row in rows}, queue))
        await asyncio.sleep(0.005)
    done.set()
    await committer
    async with first.db.read() as conn:
        total = {int(row[0]) for row in await conn.fetchall('SELECT "order" FROM linkifier')}
    await until(lambda: max(total) in numbers(registered[-1][1]) or max(total) in registered[-1][0])
    assert any(0 < len(snapshot) < len(total) for snapshot, _ in registered)  # during commits
    for snapshot, queue in registered:
        events = numbers(queue)
        assert not snapshot & set(events), sorted(snapshot & set(events))
        assert snapshot | set(events) == total

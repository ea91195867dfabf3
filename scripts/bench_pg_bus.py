"""What announcing events to other processes costs a PostgreSQL write batch: sequential
one-body transactions (one UPDATE and an after_commit hook that publishes one small event)
on a store whose bus is attached to a SharedBroker (advisory lock before COMMIT, pg_notify
after) against the same store with no bus attached (what a PostgreSQL store without other
processes would do), interleaved in rounds.

    .venv/bin/python scripts/bench_pg_bus.py [--url postgresql://...] [--commits 300] [--rounds 5]

Without --url, starts a throw-away cluster from Debian's postgresql package (fsync off, so
the figures are the round trips and CPU, not the disk). Prints the median microseconds per
commit for each, and their difference.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from teamchat.events.broker import EventBroker
from teamchat.events.shared import SharedBroker
from teamchat.store.pg.database import PgDatabase


async def run(db: PgDatabase, broker: EventBroker, commits: int) -> float:
    start = time.perf_counter()
    for n in range(commits):
        event = {"type": "custom", "n": n}
        async with db.write() as tx:
            await tx.execute("UPDATE teamchat_schema SET version = version")
            tx.after_commit(lambda event=event: broker.publish(event, [1, 2, 3]))
    return (time.perf_counter() - start) / commits * 1e6


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url")
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    server = None
    url = args.url
    if url is None:
        from tests.support.postgres import PostgresServer

        server = PostgresServer().start()
        url = server.new_database("bus")
    try:
        plain, shared = PgDatabase(url), PgDatabase(url)
        listener = PgDatabase(url)  # another process, listening
        for db in (plain, shared, listener):
            await db.open()
        SharedBroker(time.monotonic, listener.bus())
        plain_broker = EventBroker(time.monotonic)
        shared_broker = SharedBroker(time.monotonic, shared.bus())
        figures: dict[str, list[float]] = {"no bus": [], "bus": []}
        for _ in range(args.rounds):
            figures["no bus"].append(await run(plain, plain_broker, args.commits))
            figures["bus"].append(await run(shared, shared_broker, args.commits))
        medians = {name: statistics.median(values) for name, values in figures.items()}
        for name, value in medians.items():
            print(f"{name:8} {value:8.0f} us per commit")
        print(f"announcing costs {medians['bus'] - medians['no bus']:.0f} us per batch")
        for db in (plain, shared, listener):
            await db.close()
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    asyncio.run(main())

"""How long a cached value can outlive another process's change on PostgreSQL: the time from
one store's COMMIT returning to another store (a separate connection set, as a second server
process has) seeing the table's version grow through LISTEN/NOTIFY.

    .venv/bin/python scripts/bench_pg_notify.py [--url postgresql://...] [--rounds 200]

Without --url, starts a throw-away cluster from Debian's postgresql package (fsync off).
Both stores share this process's event loop, so the figure includes the loop's own latency:
it is what a request served right after the change could see. Prints median, 90th percentile
and maximum in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from teamchat.store.backends import open_database


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url")
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    server = None
    url = args.url
    if url is None:
        from tests.support.postgres import PostgresServer

        server = PostgresServer().start()
        url = server.new_database("notify")
    try:
        writer, watcher = open_database(url), open_database(url)
        await writer.open()
        await watcher.open()
        delays = []
        for i in range(args.rounds):
            before = watcher.versions()
            assert before is not None
            async with writer.write() as tx:
                await tx.execute(
                    'INSERT INTO linkifier (pattern, url_template, "order") VALUES (?, ?, ?)',
                    (f"p{i}", "https://example.com/{id}", i),
                )
            committed = time.perf_counter()
            while True:
                now = watcher.versions()
                if now is not None and now["linkifier"] > before["linkifier"]:
                    break
                await asyncio.sleep(0)
            delays.append((time.perf_counter() - committed) * 1000)
        await writer.close()
        await watcher.close()
        delays.sort()
        print(
            f"notification delay over {len(delays)} commits: median"
            f" {statistics.median(delays):.2f} ms, p90 {delays[int(len(delays) * 0.9)]:.2f} ms,"
            f" max {delays[-1]:.2f} ms"
        )
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    asyncio.run(main())

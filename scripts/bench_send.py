"""In-process CPU of one send: `POST /api/v1/messages` to a 33-member channel, 32 senders in
turn, called through the app's ASGI interface without a server (the figure is the app's own
CPU: `time.process_time` per send, which includes the commit thread's fsync calls, and
`time.thread_time` of the event loop's thread, the part a send's Python code costs).

The organization is scripts/bench_load.py's (built through the store). Each batch sends
`--batch` messages one at a time; the figure is the median (and minimum) over `--batches`
batches of the CPU per send. `--content` sets the message text (default "hello").

Usage: python scripts/bench_send.py [--batches 15] [--batch 100] [--content TEXT]
       [--concurrency N]   (N sends at once, sharing group commits)
       [--profile]   (cProfile of one batch, top functions by cumulative time)
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scripts.bench_load import SENDERS, build_world, form  # noqa: E402
from teamchat.app import create_app  # noqa: E402
from teamchat.config import Settings  # noqa: E402
from teamchat.runtime import Runtime  # noqa: E402


async def _lifespan(app: Any) -> tuple[asyncio.Task[None], asyncio.Queue[dict[str, str]]]:
    inbox: asyncio.Queue[dict[str, str]] = asyncio.Queue()
    started = asyncio.get_running_loop().create_future()

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "lifespan.startup.complete" and not started.done():
            started.set_result(None)

    await inbox.put({"type": "lifespan.startup"})
    task = asyncio.create_task(app({"type": "lifespan"}, inbox.get, send))
    await started
    return task, inbox


async def _request(app: Any, auth: str, body: bytes) -> int:
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/api/v1/messages", "raw_path": b"/api/v1/messages",
        "query_string": b"", "root_path": "", "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 80),
        "headers": [
            (b"host", b"127.0.0.1"), (b"authorization", auth.encode()),
            (b"content-type", b"application/x-www-form-urlencoded"),
            (b"content-length", str(len(body)).encode()),
        ],
    }  # fmt: skip
    sent = False
    status = 0

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.sleep(3600)
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(scope, receive, send)
    return status


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "teamchat.db"
        world = await build_world(db, 40)
        settings = Settings(db_path=db)
        rt = await Runtime.open(settings)
        app = create_app(settings, rt)
        task, inbox = await _lifespan(app)
        auths = [u.basic() for u in world.users[:SENDERS]]
        body = form(type="stream", to=str(world.stream_id), topic="load", content=args.content)
        n = 0

        async def batch() -> tuple[float, float]:
            nonlocal n
            start, loop_start = time.process_time(), time.thread_time()
            for _ in range(args.batch // args.concurrency):
                sends = []
                for _ in range(args.concurrency):
                    sends.append(_request(app, auths[n % len(auths)], body.encode()))
                    n += 1
                statuses = await asyncio.gather(*sends)
                assert statuses == [200] * args.concurrency, statuses
            loop = time.thread_time() - loop_start
            return (time.process_time() - start) / args.batch * 1e6, loop / args.batch * 1e6

        for _ in range(3):
            await batch()  # warm up: parsers, memos, page cache
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            await batch()
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(45)
        figures = [await batch() for _ in range(args.batches)]
        process, loop = [f[0] for f in figures], [f[1] for f in figures]
        print(
            f"send CPU per message: process median {statistics.median(process):.0f} us"
            f" (min {min(process):.0f}); event loop thread median"
            f" {statistics.median(loop):.0f} us (min {min(loop):.0f});"
            f" {args.batches} batches of {args.batch}"
        )
        await inbox.put({"type": "lifespan.shutdown"})
        await task
        await rt.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", type=int, default=15)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--content", default="hello")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--concurrency", type=int, default=1, help="sends in flight at once")
    asyncio.run(main(parser.parse_args()))

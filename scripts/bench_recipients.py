"""Benchmark the store's side of sending to a channel: SQLite time per message for channels
of 10, 100 and 1,000 subscribers, with none, 90% or all of them long-term idle.

Builds a database in a temporary directory through the store (1,000 people, three channels
with a history of `--history` messages each, so each person's user_message rows are spread
over many pages), then times the body of the send transaction the way
`do_send_message` runs it: the message row and `insert_user_messages` with every
subscriber's flags (no flags: unread, the common case). Prints, per channel size and idle
share, the median of `--sends` transactions: the statements (what the issue calls SQLite
time; wall clock, and this thread's CPU time, which a busy machine inflates much less) and
the whole transaction with its COMMIT (synchronous=FULL: mostly the disk); and the time to
read who holds the last message with their flags (edits, reactions and deletions read it;
with idle people it adds their implied rows).

Usage: python scripts/bench_recipients.py [--sends 200] [--history 300]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scripts.bench_messages import add_channel, add_people  # noqa: E402
from teamchat.config import Settings  # noqa: E402
from teamchat.runtime import Runtime  # noqa: E402
from teamchat.store import message_flags as flag_store  # noqa: E402
from teamchat.store import messages as message_store  # noqa: E402

try:  # absent before soft deactivation: then only "0% idle" is measured
    from teamchat.store import idle_users as idle_store
except ImportError:  # pragma: no cover
    idle_store = None  # type: ignore[assignment]

SIZES = (10, 100, 1000)
IDLE_SHARES = (0.0, 0.9, 1.0)


async def _fill(rt: Runtime, channels: list[tuple[int, int, list[int]]], history: int) -> None:
    """`history` messages per channel, interleaved, every subscriber's row (97% read)."""
    async with rt.db.read() as conn:
        row = await conn.fetchone("SELECT coalesce(max(id), 0) FROM message")
    next_id = int(row[0]) + 1 if row else 1
    now = int(time.time()) - history * len(channels)
    for _ in range(history):
        messages, rows = [], []
        for stream_id, recipient_id, members in channels:
            messages.append((next_id, members[0], recipient_id, stream_id, "history", "old",
                             "<p>old</p>", "bench", now + next_id))  # fmt: skip
            rows += [(uid, next_id, 1 if (uid + next_id) % 33 else 0) for uid in members]
            next_id += 1
        async with rt.db.write() as tx:
            await message_store.bulk_insert_messages(tx, messages)
            await flag_store.bulk_insert_user_messages(tx, rows)


async def _send(
    rt: Runtime, stream_id: int, recipient_id: int, members: list[int]
) -> tuple[float, float]:
    """One send's statements (wall and this thread's CPU seconds), inside a write
    transaction that then commits."""
    sender = members[0]
    flags = {uid: (1 if uid == sender else 0) for uid in members}
    elapsed = cpu = 0.0
    async with rt.db.write() as tx:
        started, cpu_started = time.perf_counter(), time.thread_time()
        message_id = await message_store.insert_message(
            tx, sender_id=sender, recipient_id=recipient_id, stream_id=stream_id,
            topic="bench", content="hello", rendered_content="<p>hello</p>", client="bench",
            date_sent=int(time.time()), has_link=False, has_image=False,
            has_attachment=False, is_me_message=False,
        )  # fmt: skip
        extra = {"stream_id": stream_id} if idle_store is not None else {}
        await message_store.insert_user_messages(tx, message_id, flags, **extra)
        elapsed, cpu = time.perf_counter() - started, time.thread_time() - cpu_started
    return elapsed, cpu


async def _holders_ms(rt: Runtime, runs: int = 50) -> float:
    """Median ms to read who holds the newest message and their flags (what edits,
    reactions and deletions read; implied rows of idle people included)."""
    times = []
    async with rt.db.read() as conn:
        row = await conn.fetchone("SELECT max(id) FROM message")
        assert row is not None
        for _ in range(runs):
            started = time.perf_counter()
            await flag_store.message_user_flags(conn, [int(row[0])])
            times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e3


async def _set_idle(rt: Runtime, members: list[int], share: float) -> None:
    assert idle_store is not None
    async with rt.db.write() as tx:
        await idle_store.wake_all(tx)
        idle = [uid for i, uid in enumerate(members[1:]) if i < share * (len(members) - 1)]
        await idle_store.mark_idle(tx, idle)


async def run(sends: int, history: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(db_path=Path(tmp) / "teamchat.db")
        rt = await Runtime.open_offline(settings)
        try:
            people = [p[0] for p in await add_people(rt, max(SIZES) - 1)]
            async with rt.db.read() as conn:
                row = await conn.fetchone("SELECT id FROM users ORDER BY id LIMIT 1")
            assert row is not None
            everyone = sorted({int(row[0]), *people})
            channels = []
            async with rt.db.write() as tx:
                for size in SIZES:
                    stream = await add_channel(tx, f"size {size}", everyone[0], everyone[:size])
                    channels.append((stream.id, stream.recipient_id, everyone[:size]))
            await _fill(rt, channels, history)
            async with rt.db.write() as tx:
                await tx.execute("ANALYZE")
            # Measured as the server stores (a command's store keeps SQLite's checkpoints
            # and temporary files: see store.db).
            await rt.close()
            rt = await Runtime.open(settings)
            print(f"load average {os.getloadavg()[0]:.2f}; {sends} sends per figure; "
                  f"history {history} messages per channel")  # fmt: skip
            print(f"{'recipients':>10} {'idle':>5} {'statements ms':>14} {'cpu ms':>8}"
                  f" {'with commit ms':>15} {'holders ms':>11}")  # fmt: skip
            shares = IDLE_SHARES if idle_store is not None else (0.0,)
            for stream_id, recipient_id, members in channels:
                for share in shares:
                    if idle_store is not None:
                        await _set_idle(rt, members, share)
                    body, cpu, total = [], [], []
                    for _ in range(sends):
                        started = time.perf_counter()
                        wall, used = await _send(rt, stream_id, recipient_id, members)
                        total.append(time.perf_counter() - started)
                        body.append(wall)
                        cpu.append(used)
                    ms = [statistics.median(v) * 1e3 for v in (body, cpu, total)]
                    holders = await _holders_ms(rt) if idle_store is not None else 0.0
                    print(f"{len(members):>10} {share:>5.0%} {ms[0]:>14.3f} {ms[1]:>8.3f}"
                          f" {ms[2]:>15.3f} {holders:>11.3f}")  # fmt: skip
        finally:
            await rt.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sends", type=int, default=200)
    parser.add_argument("--history", type=int, default=300)
    args = parser.parse_args()
    asyncio.run(run(args.sends, args.history))


if __name__ == "__main__":
    main()

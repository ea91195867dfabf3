"""Benchmark messages: narrows over about a million messages, and the send rate.

Fills a fresh database in a temporary directory through the store layer (bulk inserts),
starts `teamchat serve` on it, then measures through the HTTP API:
- GET /messages latency (anchor=newest, 50 messages, and an anchor deep in history) for a
  channel, a channel+topic, a direct-message conversation, is:unread, is:starred and search;
- POST /messages throughput with several concurrent clients.

Usage: python scripts/bench_messages.py [--messages 1000000] [--users 40] [--channels 20]
                                        [--secs 10] [--clients 4] [--db PATH] [--no-sends]

With --db PATH the filled database is kept at PATH (its layout beside it, PATH.layout.json)
and reused by later runs with the same --db, after applying any new migrations; it is
copied first so the measured server never changes the kept file (sends add messages).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from teamchat.actions.org.realm import check_create_realm  # noqa: E402
from teamchat.config import Settings  # noqa: E402
from teamchat.lib import channels as ch  # noqa: E402
from teamchat.lib import flags as fl  # noqa: E402
from teamchat.lib.passwords import random_api_key  # noqa: E402
from teamchat.records import Role, StreamRow  # noqa: E402
from teamchat.runtime import Runtime  # noqa: E402
from teamchat.store import message_flags as flag_store  # noqa: E402
from teamchat.store import message_search as search_store  # noqa: E402
from teamchat.store import messages as message_store  # noqa: E402
from teamchat.store import streams as stream_store  # noqa: E402
from teamchat.store import subscriptions as sub_store  # noqa: E402
from teamchat.store import users as user_store  # noqa: E402
from teamchat.store.db import Tx  # noqa: E402
from tests.support.server import free_port  # noqa: E402

WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "uniform",
    "victor",
    "whiskey",
    "xray",
    "yankee",
    "zulu",
    "deploy",
    "release",
    "bug",
    "fix",
    "review",
    "meeting",
    "lunch",
    "coffee",
    "design",
    "database",
    "index",
    "query",
    "server",
    "client",
]
BATCH = 20000


class Layout(msgspec.Struct, kw_only=True):
    users: list[tuple[int, str, str]]  # (id, email, api key)
    channels: list[tuple[int, int, list[int]]]  # (stream id, recipient id, subscriber ids)
    dm_recipients: list[tuple[int, list[int]]]  # (recipient id, participant ids)


async def add_people(rt: Runtime, users: int) -> list[tuple[int, str, str]]:
    """The organization and `users` members: (id, email, API key) each."""
    await check_create_realm(
        rt, name="Bench", owner_email="owner@bench.test", owner_full_name="Owner",
        owner_password="bench-password",
    )  # fmt: skip
    people = []
    async with rt.db.write() as tx:
        for i in range(users):
            email, key = f"user{i}@bench.test", random_api_key()
            user_id = await user_store.insert(
                tx, delivery_email=email, full_name=f"User {i}", api_key=key,
                password_hash=None, role=Role.MEMBER, date_joined=int(time.time()),
            )  # fmt: skip
            people.append((user_id, email, key))
    return people


async def add_channel(tx: Tx, name: str, creator_id: int, members: list[int]) -> StreamRow:
    """A public channel with these subscribers."""
    names = await stream_store.system_group_names(tx)
    system_ids = {group_name: gid for gid, group_name in names.items()}
    settings = msgspec.json.encode(ch.default_group_settings(system_ids, creator_id))
    stream_id = await stream_store.insert_stream(
        tx, name=name, description="", rendered_description="",
        invite_only=False, is_web_public=False, history_public_to_subscribers=True,
        message_retention_days=None, topics_policy="inherit",
        date_created=int(time.time()), creator_id=creator_id,
        settings_json=settings.decode(),
    )  # fmt: skip
    for user_id in members:
        await sub_store.upsert_active(tx, stream_id, user_id, "#76ce90")
    stream = await stream_store.get_stream_by_id(tx, stream_id)
    assert stream is not None
    return stream


async def create_people(rt: Runtime, users: int, channels: int) -> Layout:
    """The organization, `users` members and `channels` channels with ~8 subscribers each."""
    rng = random.Random(7)
    people = await add_people(rt, users)
    layout = Layout(users=people, channels=[], dm_recipients=[])
    async with rt.db.write() as tx:
        for c in range(channels):
            members = sorted({people[0][0], *(u[0] for u in rng.sample(people, 8))})
            stream = await add_channel(tx, f"channel {c}", people[0][0], members)
            layout.channels.append((stream.id, stream.recipient_id, members))
        for i in range(1, users):
            pair = [people[0][0], people[i][0]]
            layout.dm_recipients.append((await message_store.ensure_dm_recipient(tx, pair), pair))
    return layout


def _content(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14))) + f" #{n}"


async def fill_messages(rt: Runtime, layout: Layout, count: int) -> None:
    """Bulk-insert `count` messages (90% channel, 10% direct) and their user_message rows."""
    rng = random.Random(11)
    now = int(time.time()) - count
    async with rt.db.read() as conn:  # after the first-run messages (Welcome Bot)
        row = await conn.fetchone("SELECT coalesce(max(id), 0) FROM message")
    first = int(row[0]) + 1 if row else 1
    next_id, last = first, first + count - 1
    while next_id <= last:
        messages, user_messages = [], []
        for message_id in range(next_id, min(next_id + BATCH, last + 1)):
            content = _content(rng, message_id)
            if rng.random() < 0.9:
                stream_id, recipient_id, members = rng.choice(layout.channels)
                topic, receivers, base = f"topic {rng.randint(0, 49)}", members, 0
            else:
                recipient_id, receivers = rng.choice(layout.dm_recipients)
                stream_id, topic, base = None, "", fl.IS_PRIVATE  # type: ignore[assignment]
            sender = rng.choice(receivers)
            messages.append((message_id, sender, recipient_id, stream_id, topic, content,
                             f"<p>{content}</p>", "bench", now + message_id))  # fmt: skip
            for user_id in receivers:
                read = fl.READ if user_id == sender or rng.random() < 0.97 else 0
                starred = fl.STARRED if rng.random() < 0.001 else 0
                user_messages.append((user_id, message_id, base | read | starred))
        async with rt.db.write() as tx:
            await message_store.bulk_insert_messages(tx, messages)
            await flag_store.bulk_insert_user_messages(tx, user_messages)
        next_id += BATCH
        print(f"\r  {min(next_id - first, count):>9,} messages", end="", flush=True)
    print()


def server_cpu_ns(pid: int) -> int:
    """CPU time the server's threads have used, in ns (Linux schedstat; 0 elsewhere)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return total


def timed_get(
    client: httpx.Client, params: dict[str, object], runs: int, pid: int
) -> tuple[float, float, int]:
    """(median ms, server CPU ms per request, messages returned) for GET /messages."""
    encoded = {k: v if isinstance(v, str) else msgspec.json.encode(v).decode()
               for k, v in params.items()}  # fmt: skip
    times, returned = [], 0
    cpu_before = server_cpu_ns(pid)
    for _ in range(runs):
        started = time.perf_counter()
        body = client.get("/messages", params=encoded).json()
        times.append((time.perf_counter() - started) * 1000)
        assert body["result"] == "success", body
        returned = len(body["messages"])
    cpu = (server_cpu_ns(pid) - cpu_before) / runs / 1e6
    return statistics.median(times), cpu, returned


def measure_narrows(base: str, layout: Layout, runs: int, pid: int) -> None:
    """Median wall time of each narrow, and the server's CPU per request (which a busy
    machine inflates much less than the wall time)."""
    _, email, key = layout.users[0]
    stream_id = layout.channels[0][0]
    other = layout.dm_recipients[0][1][1]
    narrows = {
        "all messages": [],
        "channel": [{"operator": "channel", "operand": stream_id}],
        "channel + topic": [{"operator": "channel", "operand": stream_id},
                            {"operator": "topic", "operand": "topic 7"}],
        "dm conversation": [{"operator": "dm", "operand": [other]}],
        "is:dm": [{"operator": "is", "operand": "dm"}],
        "is:unread": [{"operator": "is", "operand": "unread"}],
        "is:starred": [{"operator": "is", "operand": "starred"}],
        "search (2 words)": [{"operator": "search", "operand": "deploy review"}],
        "channel + search": [{"operator": "channel", "operand": stream_id},
                             {"operator": "search", "operand": "coffee"}],
    }  # fmt: skip
    with httpx.Client(base_url=f"{base}/api/v1", auth=(email, key), timeout=60) as client:
        client.get("/messages", params={"anchor": "newest"})  # warm up the server
        print(f"{'narrow':<20} {'newest (ms)':>12} {'cpu':>5} {'n':>4}"
              f" {'deep (ms)':>10} {'cpu':>5} {'n':>4}")  # fmt: skip
        for label, narrow in narrows.items():
            newest, cpu1, n1 = timed_get(
                client, {"anchor": "newest", "num_before": 50, "num_after": 0, "narrow": narrow},
                runs, pid,
            )  # fmt: skip
            deep, cpu2, n2 = timed_get(
                client, {"anchor": 200000, "num_before": 50, "num_after": 50, "narrow": narrow},
                runs, pid,
            )  # fmt: skip
            print(f"{label:<20} {newest:>12.1f} {cpu1:>5.1f} {n1:>4}"
                  f" {deep:>10.1f} {cpu2:>5.1f} {n2:>4}")  # fmt: skip


def measure_sends(base: str, layout: Layout, secs: float, clients: int) -> None:
    stream_id, _, members = layout.channels[0]
    senders = [u for u in layout.users if u[0] in members][:clients]
    counts = [0] * len(senders)
    latencies: list[float] = []
    deadline = time.monotonic() + secs

    def run(index: int) -> None:
        _, email, key = senders[index]
        with httpx.Client(base_url=f"{base}/api/v1", auth=(email, key), timeout=60) as client:
            while time.monotonic() < deadline:
                started = time.perf_counter()
                body = client.post(
                    "/messages",
                    data={
                        "type": "stream",
                        "to": str(stream_id),
                        "topic": "bench",
                        "content": "hello",
                    },
                ).json()
                latencies.append((time.perf_counter() - started) * 1000)
                assert body["result"] == "success", body
                counts[index] += 1

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(senders))]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    print(f"send: {sum(counts) / elapsed:.0f} messages/s with {len(senders)} clients,"
          f" median {statistics.median(latencies):.1f} ms, p95"
          f" {statistics.quantiles(latencies, n=20)[-1]:.1f} ms")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--users", type=int, default=40)
    parser.add_argument("--channels", type=int, default=20)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--secs", type=float, default=10)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--db", type=Path, default=None, help="keep and reuse the filled database")
    parser.add_argument("--no-sends", action="store_true", help="measure only the narrows")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "teamchat.db"

        async def migrate_kept() -> None:
            rt = await Runtime.open_offline(Settings(db_path=args.db))
            await rt.close()

        async def setup() -> Layout:
            rt = await Runtime.open_offline(Settings(db_path=db))
            try:
                layout = await create_people(rt, args.users, args.channels)
                started = time.monotonic()
                await fill_messages(rt, layout, args.messages)
                print(f"  filled in {time.monotonic() - started:.0f} s")
                async with rt.db.write() as tx:
                    await search_store.optimize_index(tx)
                    await tx.execute("ANALYZE")
                return layout
            finally:
                await rt.close()

        kept = args.db.with_name(args.db.name + ".layout.json") if args.db else None
        if kept is not None and kept.exists():
            layout = msgspec.json.decode(kept.read_bytes(), type=Layout)
            asyncio.run(migrate_kept())  # a new index is built here, not in the timed server
            shutil.copyfile(args.db, db)
        else:
            layout = asyncio.run(setup())
            if kept is not None:
                shutil.copyfile(db, args.db)
                kept.write_bytes(msgspec.json.encode(layout))
        print(f"database: {db.stat().st_size / 1e6:.0f} MB")
        port = free_port()
        env = {**os.environ, "TEAMCHAT_API_RATE_LIMIT": "0", "TEAMCHAT_LOG_LEVEL": "warning"}
        server = subprocess.Popen(
            [sys.executable, "-m", "teamchat", "--db", str(db), "serve", "--port", str(port)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp,
        )  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(200):
                try:
                    httpx.get(f"{base}/api/v1/server_settings", timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)
            load = os.getloadavg()[0]
            if load > (os.cpu_count() or 1) * 0.75:
                print(f"note: the machine is busy (load average {load:.1f}); wall times are noisy")
            measure_narrows(base, layout, args.runs, server.pid)
            print(f"load average after: {os.getloadavg()[0]:.1f}")
            if not args.no_sends:
                measure_sends(base, layout, args.secs, args.clients)
        finally:
            server.terminate()
            server.wait(15)


if __name__ == "__main__":
    main()

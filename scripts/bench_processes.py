"""Sends and fan-out on SQLite (one process) beside PostgreSQL (one and N processes sharing
one database), with the floor of our own stack measured in the same run (see
scripts/bench_load.py for the floor, the world and the figures' meaning).

The driver talks to the processes directly, without a proxy (nginx would take CPU from the
same two cores): the sends come from one wrk per process, run together, with the connections
split among them; the fan-out's listeners register round robin on the processes and the
sender sends through process 1, so most deliveries cross processes. The server processes are
pinned to core 0, the driver to core 1; PostgreSQL is not pinned, and its CPU is not in the
"server CPU" figures (which sum the teamchat processes).

    .venv/bin/python scripts/bench_processes.py [--db postgresql://...]
        [--configs sqlite:1,postgresql:1,postgresql:2] [--secs 8] [--runs 1]
        [--connections 8] [--listeners 100] [--rate 20]

Without --db, a throw-away PostgreSQL cluster is started from Debian's package (fsync off:
the figures are CPU and round trips, not the disk). Each configuration gets a fresh database.
Also reachable as `scripts/bench_load.py --db ... --processes N`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scripts import bench_load as bl  # noqa: E402
from scripts.bench_messages import add_channel, add_people  # noqa: E402
from teamchat.config import Settings  # noqa: E402
from teamchat.lib.passwords import random_api_key  # noqa: E402
from teamchat.runtime import Runtime  # noqa: E402
from tests.support.server import free_port  # noqa: E402


async def build_world(db: str, users: int) -> bl.World:
    url = db if db.startswith("postgresql") else None
    rt = await Runtime.open_offline(Settings(db_path=Path(db), db_url=url))
    try:
        people = [bl.User(*person) for person in await add_people(rt, users)]
        async with rt.db.write() as tx:
            members = [p.id for p in people[: bl.SEND_CHANNEL_SIZE]]
            load = await add_channel(tx, "load", people[0].id, members)
            everyone = await add_channel(tx, "fan-out", people[0].id, [p.id for p in people])
        return bl.World(users=people, stream_id=load.id, fanout_stream_id=everyone.id)
    finally:
        await rt.close()


def start_servers(db: str, count: int, workdir: Path) -> list[tuple[subprocess.Popen[bytes], int]]:
    ports = [free_port() for _ in range(count)]
    peers = ",".join(f"{n}=http://127.0.0.1:{port}" for n, port in enumerate(ports, 1))
    env = {**os.environ, "TEAMCHAT_API_RATE_LIMIT": "0", "TEAMCHAT_LOG_LEVEL": "warning"}
    servers = []
    for number, port in enumerate(ports, 1):
        several = ["--process", str(number), "--peers", peers] if count > 1 else []
        server = subprocess.Popen(
            ["taskset", "-c", bl.SERVER_CORE, sys.executable, "-m", "teamchat", "--db", db,
             "serve", "--port", str(port), *several],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=workdir,
        )  # fmt: skip
        bl.wait_ready(port, "/api/v1/server_settings")
        servers.append((server, port))
    return servers


def cpu_of(servers: list[tuple[subprocess.Popen[bytes], int]]) -> float:
    return sum(bl.proc_stat(server.pid)[0] for server, _ in servers)


def sends(workdir: Path, servers: list, world: bl.World, connections: int, secs: float) -> tuple:
    """(msg/s, p50 ms of the first wrk, server CPU us per message, errors)."""
    body = f"type=stream&to={world.stream_id}&topic=load&content=hello"
    lua = bl.lua_senders([u.basic() for u in world.users[: bl.SENDERS]], body)
    each = max(1, connections // len(servers))
    cpu0 = cpu_of(servers)
    outputs = []
    procs = []
    for n, (_, port) in enumerate(servers):
        script = workdir / f"wrk{n}.lua"
        script.write_text(lua)
        procs.append(subprocess.Popen(
            ["taskset", "-c", bl.DRIVER_CORE, "wrk", "-t1", f"-c{each}", f"-d{secs:g}s",
             "--latency", "-s", str(script), f"http://127.0.0.1:{port}/api/v1/messages"],
            stdout=subprocess.PIPE, text=True,
        ))  # fmt: skip
    for proc in procs:
        outputs.append(proc.communicate()[0])
    cpu = cpu_of(servers) - cpu0
    results = [parse_wrk(out) for out in outputs]
    requests = sum(r.requests for r in results)
    rate = sum(r.rate for r in results)
    return rate, results[0].p50_ms, cpu * 1e6 / max(requests, 1), sum(r.errors for r in results)


def parse_wrk(out: str) -> bl.WrkResult:
    import re

    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    requests = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    p50 = re.search(r"^\s+50(?:\.000)?%\s+([\d.]+)(\w+)", out, re.M)
    assert p50 is not None
    errors = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses: (\d+)", out))
    return bl.WrkResult(rate, float(p50.group(1)) * bl.UNITS[p50.group(2)], 0.0, errors, requests)


async def fan_out(
    ports: list[int], world: bl.World, listeners: int, rate: float, secs: float
) -> tuple[float, float, int, int]:
    """bench_load's fan-out with the listeners spread over the processes round robin."""
    sender = bl.Http(ports[0], world.users[0].basic())
    latencies: list[float] = []
    sent_at: dict[int, float] = {}
    received = 0
    stop = asyncio.Event()

    async def listen(n: int, user: bl.User, registered: asyncio.Future[None]) -> None:
        nonlocal received
        http = bl.Http(ports[n % len(ports)], user.basic())
        register = bl.form(event_types=["message"], apply_markdown="false")
        _, raw = await http.request("POST", "/api/v1/register", register)
        state = msgspec.json.decode(raw)
        queue_id, last = state["queue_id"], state["last_event_id"]
        registered.set_result(None)
        while not stop.is_set():
            path = f"/api/v1/events?queue_id={queue_id}&last_event_id={last}"
            _, raw = await http.request("GET", path)
            now = time.perf_counter()
            for event in msgspec.json.decode(raw).get("events", []):
                last = max(last, event["id"])
                content = event.get("message", {}).get("content", "")
                if event["type"] == "message" and content.isdigit():
                    latencies.append((now - sent_at[int(content)]) * 1000)
                    received += 1
        http.close()

    futures = [asyncio.get_running_loop().create_future() for _ in range(listeners)]
    users = world.users[1 : listeners + 1]
    pairs = enumerate(zip(users, futures, strict=True))
    tasks = [asyncio.create_task(listen(n, user, done)) for n, (user, done) in pairs]
    await asyncio.gather(*futures)
    count = int(rate * secs)
    started = time.perf_counter()
    for tag in range(count + 1):  # the last one wakes the listeners' last polls
        if tag == count:
            deadline = time.perf_counter() + 30
            while received < count * listeners and time.perf_counter() < deadline:
                await asyncio.sleep(0.05)
            stop.set()
        await asyncio.sleep(max(0.0, started + tag / rate - time.perf_counter()))
        sent_at[tag] = time.perf_counter()
        to = str(world.fanout_stream_id)
        message = bl.form(type="stream", to=to, topic="fan-out", content=str(tag))
        status, _ = await sender.request("POST", "/api/v1/messages", message)
        assert status == 200
    await asyncio.wait(tasks, timeout=10)
    for task in tasks:
        task.cancel()
    sender.close()
    got = sorted(latencies)[: count * listeners]
    p99 = statistics.quantiles(got, n=100)[98] if len(got) > 1 else float("nan")
    return statistics.median(got), p99, min(received, count * listeners), count * listeners


def run(args: argparse.Namespace) -> None:
    os.sched_setaffinity(0, {int(bl.DRIVER_CORE)})
    print(f"load average {os.getloadavg()[0]:.1f}")
    cluster = None
    rows: list[tuple[str, str, str]] = []
    worlds: dict[str, bl.World] = {}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        floor_key = random_api_key()
        port = free_port()
        floor = bl.start_floor(workdir, port, floor_key)
        try:
            import base64

            token = base64.b64encode(f"floor@bench.test:{floor_key}".encode()).decode()
            lua = bl.lua_request("POST", f"Basic {token}", "type=stream&to=1&content=hello")
            result, floor_cpu = bl.with_cpu(floor.pid, lambda: bl.wrk(
                workdir, f"http://127.0.0.1:{port}/floor", 32, args.secs, lua))  # fmt: skip
        finally:
            floor.terminate()
            floor.wait(10)
        rows.append(("floor", f"{result.rate:,.0f} req/s", f"CPU {floor_cpu:.0f} us/request"))
        for n, config in enumerate(args.configs.split(",")):
            kind, _, count_text = config.partition(":")
            count = int(count_text or 1)
            if kind == "sqlite":
                db = str(workdir / f"bench{n}.db")
            elif args.db:
                db = args.db  # the caller's (an empty database), for every postgresql row
            else:
                if cluster is None:
                    from tests.support.postgres import PostgresServer

                    cluster = PostgresServer().start()
                db = cluster.new_database("bench")
            if db not in worlds:
                worlds[db] = asyncio.run(build_world(db, max(args.listeners, bl.SENDERS) + 1))
            world = worlds[db]
            servers = start_servers(db, count, workdir)
            try:
                time.sleep(1)
                rate, p50, cpu_us, errors = sends(
                    workdir, servers, world, args.connections, args.secs
                )
                rows.append((
                    f"{kind}, {count} process{'es' if count > 1 else ''}: send to"
                    f" {bl.SEND_CHANNEL_SIZE} members, {args.connections} connections",
                    f"{rate:,.0f} msg/s (p50 {p50:.1f} ms)",
                    f"server CPU {cpu_us:.0f} us/message = {floor_cpu / cpu_us:.2f} CPU x floor"
                    + (f"; {errors} errors" if errors else ""),
                ))  # fmt: skip
                cpu0 = cpu_of(servers)
                ports = [port for _, port in servers]
                p50, p99, got, expected = asyncio.run(
                    fan_out(ports, world, args.listeners, args.rate, args.secs)
                )
                per_delivery = (cpu_of(servers) - cpu0) * 1e6 / max(got, 1)
                rows.append((
                    f"{kind}, {count} process{'es' if count > 1 else ''}: fan-out,"
                    f" {args.listeners} listeners, {args.rate:g} msg/s",
                    f"p50 {p50:.1f} ms, p99 {p99:.1f} ms",
                    f"{got:,}/{expected:,} delivered; server CPU {per_delivery:.0f} us/delivery",
                ))  # fmt: skip
            finally:
                for server, _ in servers:
                    server.terminate()
                    server.wait(15)
    if cluster is not None:
        cluster.stop()
    print("| figure | teamchat | notes |\n|---|---|---|")
    for row in rows:
        print(f"| {row[0]} | {row[1]} | {row[2]} |")


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", default=None, help="an empty PostgreSQL database's URL")
    parser.add_argument("--configs", default="sqlite:1,postgresql:1,postgresql:2")
    parser.add_argument("--secs", type=float, default=8)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--listeners", type=int, default=100)
    parser.add_argument("--rate", type=float, default=20)
    return parser


if __name__ == "__main__":
    run(parser().parse_args())

"""A/B benchmark of two checkouts of teamchat: sends and fan-out, runs interleaved.

Each checkout (`--a DIR`, `--b DIR`: a source tree with its `teamchat` package) serves the
same organization (a copy of one database built by scripts/bench_load.py's `build_world`),
pinned to core 0, this driver and wrk on core 1; the servers run side by side and the
measurements alternate A, B, A, B... so both see the same machine. Reported per run and as
medians: the server's CPU per message (from /proc/<pid>/stat: user + system time of all its
threads), the rate and the acknowledgement p99 for sends with `--conns` connections (32
senders in turn, to a 33-member channel), and for the fan-out to `--listeners` long-polling
listeners at `--rate` msg/s the send -> receive p50 / p99 and the server CPU per message
(from the last listener's registration to the last delivery: the send, its deliveries and
the polls that follow).
On a shared machine the CPU per message is the comparable figure; rates and latencies move
with the load.

Usage: python scripts/bench_ab.py --a ../old --b . [--runs 5] [--secs 5] [--conns 32]
                                  [--listeners 0] [--rate 20] [--skip-sends]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scripts.bench_load import (  # noqa: E402
    DRIVER_CORE,
    SENDERS,
    SERVER_CORE,
    build_world,
    fan_out,
    lua_senders,
    proc_stat,
    wait_ready,
    wrk,
)
from tests.support.server import free_port  # noqa: E402


def start(source: Path, db: Path, port: int, workdir: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": str(source),
        "TEAMCHAT_API_RATE_LIMIT": "0",
        "TEAMCHAT_LOG_LEVEL": "warning",
    }
    server = subprocess.Popen(
        ["taskset", "-c", SERVER_CORE, sys.executable, "-m", "teamchat", "--db", str(db),
         "serve", "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=workdir,
    )  # fmt: skip
    wait_ready(port, "/api/v1/server_settings")
    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--a", type=Path, required=True)
    parser.add_argument("--b", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--secs", type=float, default=5)
    parser.add_argument("--conns", type=int, default=32)
    parser.add_argument("--listeners", type=int, default=0, help="fan-out listeners (0: none)")
    parser.add_argument("--rate", type=float, default=20)
    parser.add_argument("--skip-sends", action="store_true")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is needed: apt-get install wrk")
    os.sched_setaffinity(0, {int(DRIVER_CORE)})
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        world = asyncio.run(build_world(workdir / "base.db", max(args.listeners, SENDERS) + 1))
        servers: dict[str, tuple[subprocess.Popen[bytes], int]] = {}
        try:
            for name, source in (("A", args.a), ("B", args.b)):
                (workdir / name).mkdir()
                db = workdir / name / "teamchat.db"
                shutil.copy(workdir / "base.db", db)
                port = free_port()
                servers[name] = (start(source.resolve(), db, port, workdir / name), port)
            time.sleep(2)
            body = f"type=stream&to={world.stream_id}&topic=load&content=hello"
            lua = lua_senders([u.basic() for u in world.users[:SENDERS]], body)
            sends: dict[str, list[tuple[float, float, float]]] = {"A": [], "B": []}
            fans: dict[str, list[tuple[float, float, float]]] = {"A": [], "B": []}
            for run in range(args.runs):
                for name in ("A", "B") if run % 2 == 0 else ("B", "A"):
                    server, port = servers[name]
                    if not args.skip_sends:
                        cpu0, _ = proc_stat(server.pid)
                        result = wrk(workdir, f"http://127.0.0.1:{port}/api/v1/messages",
                                     args.conns, args.secs, lua)  # fmt: skip
                        cpu_us = (proc_stat(server.pid)[0] - cpu0) * 1e6 / result.requests
                        sends[name].append((cpu_us, result.rate, result.p99_ms))
                        print(f"run {run} {name} send: {cpu_us:.0f} us/msg, "
                              f"{result.rate:.0f} msg/s, p99 {result.p99_ms:.1f} ms, "
                              f"load {os.getloadavg()[0]:.2f}", flush=True)  # fmt: skip
                    if args.listeners:
                        marks: list[float] = []
                        p50, p99, got, expected = asyncio.run(fan_out(
                            port, world, args.listeners, args.rate, args.secs,
                            lambda pid=server.pid, m=marks: m.append(proc_stat(pid)[0]),
                        ))  # fmt: skip
                        messages = expected / args.listeners
                        cpu_us = (marks[1] - marks[0]) * 1e6 / messages
                        fans[name].append((cpu_us, p50, p99))
                        print(f"run {run} {name} fan-out {args.listeners}: p50 {p50:.1f} ms, "
                              f"p99 {p99:.1f} ms, {got}/{expected}, server CPU {cpu_us:.0f} us"
                              f" a message (its deliveries and polls included), load "
                              f"{os.getloadavg()[0]:.2f}", flush=True)  # fmt: skip
        finally:
            for server, _ in servers.values():
                server.terminate()
                server.wait(15)
    for name in ("A", "B"):
        if sends[name]:
            cpu, rate, p99 = (statistics.median(x[i] for x in sends[name]) for i in range(3))
            print(f"{name} send medians: {cpu:.0f} us/msg, {rate:.0f} msg/s, p99 {p99:.1f} ms")
        if fans[name]:
            cpu, p50, p99 = (statistics.median(x[i] for x in fans[name]) for i in range(3))
            print(f"{name} fan-out medians: p50 {p50:.1f} ms, p99 {p99:.1f} ms, {cpu:.0f} us/msg")


if __name__ == "__main__":
    main()

"""Fan-out benchmark: one sender at `--rate` msg/s to a channel of N long-polling listeners.

The fan-out rows of scripts/bench_load.py on their own, with what wall-clock latency on a
shared machine cannot show: the server's CPU per message (the send and all of its
deliveries, from /proc/PID/stat, from the first send on) and the driver's own CPU per
message (this process parses every delivery, so on a 2-core machine its cost is part of
every send -> receive figure), and the sends' acknowledgement times. With `--profile
DIR`, py-spy records the server (samples holding the GIL) during each size's first run, from
the first send on (raw collapsed stacks; the top frames by own time are printed).

With `--compare SRC` (a checkout of another version, e.g. `git archive main | tar -x -C SRC`),
each run measures that version's server and then this one's, one after the other, so the
two see the same machine state; the rows give each one's medians.

Usage: python scripts/bench_fanout.py [--listeners 100,1000] [--secs 5] [--runs 3] [--rate 20]
                                      [--profile DIR] [--compare SRC]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import scripts.bench_load as bench_load  # noqa: E402
from scripts.bench_load import (  # noqa: E402
    DRIVER_CORE,
    Http,
    World,
    build_world,
    fan_out,
    free_port,
    proc_stat,
    start_teamchat,
)

ACKS: list[float] = []  # ms from each send to its acknowledgement
# This run's server pid, and from its first send on: the server's CPU seconds then, the py-spy
# command to start then and its process.
SPY: dict[str, Any] = {}


class TimedHttp(Http):
    """The driver's client, timing the sends' acknowledgements (fan_out's sender)."""

    async def request(self, method: str, path: str, form: str = "") -> tuple[int, bytes]:
        if method == "POST" and path.endswith("/messages") and "cpu0" not in SPY:
            SPY["cpu0"] = proc_stat(SPY["pid"])[0]
            if "command" in SPY:
                SPY["process"] = subprocess.Popen(
                    SPY["command"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                )
        started = time.perf_counter()
        answer = await super().request(method, path, form)
        if method == "POST" and path.endswith("/messages"):
            ACKS.append((time.perf_counter() - started) * 1000)
        return answer


bench_load.Http = TimedHttp  # type: ignore[misc]


def top_frames(raw: Path, count: int = 15) -> list[tuple[float, str]]:
    """(share of samples, frame) of the frames with the most own time in a py-spy raw file."""
    own: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, samples = line.rpartition(" ")
        if not stack:
            continue
        frame = stack.rsplit(";", 1)[-1]
        own[frame] += int(samples)
        total += int(samples)
    return [(n / max(total, 1), frame) for frame, n in own.most_common(count)]


def measure(
    port: int, pid: int, world: World, size: int, args: argparse.Namespace, profile: Path | None
) -> tuple[float, ...]:
    """(p50, p99, delivered, expected, server CPU ms/msg, driver CPU ms/msg, ack p50, ack p99)
    of one run."""
    SPY.clear()
    SPY["pid"] = pid
    if profile is not None and shutil.which("py-spy"):
        profile.parent.mkdir(parents=True, exist_ok=True)
        # Started by the first send, once every listener has registered.
        SPY["command"] = ["py-spy", "record", "-p", str(pid), "-r", "200", "--gil", "-f", "raw",
                          "-o", str(profile), "-d", str(int(args.secs + 2))]  # fmt: skip
    me0 = time.process_time()
    ACKS.clear()
    p50, p99, got, expected = asyncio.run(fan_out(port, world, size, args.rate, args.secs))
    messages = int(args.rate * args.secs) + 1
    server_ms = (proc_stat(pid)[0] - SPY["cpu0"]) * 1000 / messages  # registering excluded
    driver_ms = (time.process_time() - me0) * 1000 / messages
    spy = SPY.get("process")
    if spy is not None and profile is not None:
        spy.wait(60)
        for share, frame in top_frames(profile):
            print(f"  {size}: {share:6.1%}  {frame}")
    acks = sorted(ACKS)
    ack_p99 = statistics.quantiles(acks, n=100)[98] if len(acks) > 1 else float("nan")
    return p50, p99, got, expected, server_ms, driver_ms, statistics.median(acks), ack_p99


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--listeners", default="100,1000")
    parser.add_argument("--secs", type=float, default=5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rate", type=float, default=20)
    parser.add_argument("--profile", type=Path, default=None)
    parser.add_argument("--compare", type=Path, default=None)
    args = parser.parse_args()
    os.sched_setaffinity(0, {int(DRIVER_CORE)})
    sizes = [int(n) for n in args.listeners.split(",") if n]
    variants = {"this": os.environ.get("PYTHONPATH", "")}
    if args.compare is not None:
        variants = {"other": str(args.compare.resolve()), **variants}
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    results: dict[tuple[str, int], list[tuple[float, ...]]] = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        db = workdir / "teamchat.db"
        world = asyncio.run(build_world(db, max(sizes) + 1))
        for run in range(args.runs):
            for name, source in variants.items():
                os.environ["PYTHONPATH"] = source
                port = free_port()
                server = start_teamchat(db, port, workdir)
                try:
                    time.sleep(1)
                    for size in sizes:
                        profile = None
                        if args.profile is not None and run == 0:
                            profile = args.profile / f"fanout-{name}-{size}.txt"
                        result = measure(port, server.pid, world, size, args, profile)
                        results[name, size].append(result)
                        print(name, size, [round(x, 1) for x in result], flush=True)
                finally:
                    server.terminate()
                    server.wait(15)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print("| version | figure | teamchat | notes |\n|---|---|---|---|")
    for (name, size), runs in results.items():
        med = [statistics.median(r[i] for r in runs) for i in (0, 1, 4, 5, 6, 7)]
        got, expected = sum(r[2] for r in runs), sum(r[3] for r in runs)
        print(
            f"| {name} | fan-out, {size} listeners, {args.rate:g} msg/s "
            f"| p50 {med[0]:.1f} ms, p99 {med[1]:.1f} ms "
            f"| {got:,}/{expected:,} delivered; server CPU {med[2]:.1f} ms/msg; "
            f"driver CPU {med[3]:.1f} ms/msg; send ack p50 {med[4]:.1f} ms, p99 {med[5]:.1f} ms |"
        )


if __name__ == "__main__":
    main()

"""Cold start of `teamchat serve` on an existing database: from process start (Python
start-up included) to the first answered request (GET /health answering 200).

Usage: python scripts/bench_cold_start.py [--runs 7] [--sandbox] [--no-compile]
Bootstraps a database once (not measured), then starts and stops the server `--runs` times
and prints every time, the median and the server's RSS once it answered. With `--sandbox`,
every run is a new `teamchat sandbox` in a temporary database, seeding included.

First it compiles teamchat's bytecode (`compileall`, into the usual `__pycache__` folders,
which git ignores), as `pip install` does: a checkout run with PYTHONDONTWRITEBYTECODE=1
would otherwise compile some 400 modules from source at every start, about a third of the
start's CPU. `--no-compile` measures that case. Profile the imports with
`python -X importtime -m teamchat --db DB serve 2> imports.txt`.
"""

from __future__ import annotations

import argparse
import compileall
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_secs(pid: int) -> float:
    """User + system CPU seconds process `pid` has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[21]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def start_to_first_answer(
    command: list[str], timeout_secs: float = 60.0
) -> tuple[float, float, float]:
    """(wall seconds, server CPU seconds, RSS MiB) from spawning `teamchat COMMAND` to its
    first 200 on /health. On a busy machine the wall time includes waiting for a core; the
    CPU time is what the start-up itself costs."""
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "teamchat", *command, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "TEAMCHAT_LOG_LEVEL": "warning"},
    )
    try:
        with httpx.Client(timeout=1) as client:
            while time.perf_counter() - started < timeout_secs:
                try:
                    if client.get(f"http://127.0.0.1:{port}/health").status_code == 200:
                        wall = time.perf_counter() - started
                        return wall, cpu_secs(process.pid), rss_mib(process.pid)
                except httpx.HTTPError:
                    pass
                time.sleep(0.005)
        raise SystemExit("the server did not answer")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--sandbox", action="store_true", help="time new sandboxes instead")
    parser.add_argument("--no-compile", action="store_true", help="leave bytecode as it is")
    args = parser.parse_args()
    if not args.no_compile:
        compileall.compile_dir(Path(__file__).resolve().parents[1] / "teamchat", quiet=1)
    with tempfile.TemporaryDirectory() as folder:
        if args.sandbox:
            command = ["sandbox"]
        else:
            command = ["--db", str(Path(folder) / "teamchat.db"), "serve"]
            start_to_first_answer(command)  # bootstraps the organization: not a cold start
        runs = [start_to_first_answer(command) for _ in range(args.runs)]
    walls, cpus, rss = [r[0] for r in runs], [r[1] for r in runs], [r[2] for r in runs]
    print("wall (ms):", " ".join(f"{t * 1000:.0f}" for t in walls))
    print("cpu  (ms):", " ".join(f"{t * 1000:.0f}" for t in cpus))
    print(
        f"median: {statistics.median(walls) * 1000:.0f} ms wall, "
        f"{statistics.median(cpus) * 1000:.0f} ms CPU, RSS {statistics.median(rss):.1f} MiB at"
        f" the first answer; load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()

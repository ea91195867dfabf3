"""Cold start of `teamchat serve` on an existing database: from process start (Python
start-up included) to the first answered request (GET /health answering 200).

Usage: python scripts/bench_cold_start.py [--runs 7]
Bootstraps a database once (not measured), then starts and stops the server `--runs` times
and prints every time and the median. Profile the imports with
`python -X importtime -m teamchat --help 2> imports.txt`.
"""

from __future__ import annotations

import argparse
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


def start_to_first_answer(db: Path, timeout_secs: float = 60.0) -> float:
    """Seconds from spawning `teamchat serve` to its first 200 on /health."""
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "teamchat", "--db", str(db), "serve", "--port", str(port)],
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
                        return time.perf_counter() - started
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
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "teamchat.db"
        start_to_first_answer(db)  # bootstraps the organization: not a cold start
        times = [start_to_first_answer(db) for _ in range(args.runs)]
    print("runs (ms):", " ".join(f"{t * 1000:.0f}" for t in times))
    print(f"median: {statistics.median(times) * 1000:.0f} ms")


if __name__ == "__main__":
    main()

"""Benchmark `teamchat export`: time to write a Zulip export of a filled database.

Fills a fresh database with bench_messages.py's organization (bulk inserts through the
store layer), then runs `teamchat export` as a user would, to a directory and to a
tarball, and prints the CPU time (the machine may be shared), wall time and size of each.

Usage: python scripts/bench_export.py [--messages 100000] [--users 40] [--channels 20]
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scripts.bench_messages import create_people, fill_messages  # noqa: E402
from teamchat.config import Settings  # noqa: E402
from teamchat.runtime import Runtime  # noqa: E402


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=40)
    parser.add_argument("--channels", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "teamchat.db"

        async def setup() -> None:
            rt = await Runtime.open_offline(Settings(db_path=db))
            try:
                layout = await create_people(rt, args.users, args.channels)
                await fill_messages(rt, layout, args.messages)  # after the first-run messages
            finally:
                await rt.close()

        asyncio.run(setup())
        print(f"database: {db.stat().st_size / 1e6:.0f} MB, {args.messages} messages")
        for name in ("export-dir", "export.tar.gz"):
            target = Path(tmp) / name
            started = time.monotonic()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(
                [sys.executable, "-m", "teamchat", "--db", str(db), "export", str(target)],
                check=True,
                capture_output=True,
            )
            secs = time.monotonic() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            size = _size(target) / 1e6
            print(f"  export to {name}: {cpu:.1f} s CPU, {secs:.1f} s wall, {size:.0f} MB")


if __name__ == "__main__":
    main()

"""Time `teamchat import` of a generated Slack workspace export, and its peak memory.

Usage: python scripts/bench_slack_import.py [--messages 100000] [--users 40] [--channels 20]
       [--folder]
Writes an export in Slack's format (users.json, channels.json, dms.json, one day file per
channel and day) and zips it as Slack's export tool does (not measured), then runs
`teamchat --db NEW import EXPORT.zip` (or the folder, with --folder) in a subprocess and
prints its wall time, CPU time and peak memory (the child's maximum resident set size).
90% channel messages (each channel has half the users), 10% direct messages; one message in
ten is a thread reply, one in ten mentions someone, one in twenty has reactions, one in
twenty is edited; about 500 messages a day.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

T0 = 1_700_000_000
MESSAGES_PER_DAY = 500
WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "while", "slack",
         "exports", "its", "channels"]  # fmt: skip
EMOJI = ["+1", "heart", "tada", "eyes", "smile", "thumbsup::skin-tone-2"]


def _text(rng: random.Random, users: list[str]) -> str:
    words = rng.choices(WORDS, k=rng.randint(4, 20))
    if rng.random() < 0.1:
        words.insert(rng.randrange(len(words)), f"<@{rng.choice(users)}>")
    if rng.random() < 0.1:
        words.insert(rng.randrange(len(words)), "*bold*")
    if rng.random() < 0.05:
        words.append("<https://example.com/page|a link>")
    return " ".join(words)


def write_export(root: Path, messages: int, users: int, channels: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    user_ids = [f"U{n:06d}" for n in range(users)]
    people = [
        {"id": uid, "name": f"user{n}", "real_name": f"User {n}", "deleted": False,
         "is_primary_owner": n == 0, "is_owner": n == 0, "tz": "Europe/Berlin",
         "profile": {"email": f"user{n}@bench.example", "real_name": f"User {n}"}}
        for n, uid in enumerate(user_ids)
    ]  # fmt: skip
    (root / "users.json").write_text(json.dumps(people))
    channel_rows = [
        {"id": f"C{n:06d}", "name": f"channel-{n}", "created": T0, "creator": user_ids[0],
         "is_archived": False, "members": rng.sample(user_ids, max(2, users // 2)),
         "purpose": {"value": f"Channel {n}"}, "topic": {"value": ""}}
        for n in range(channels)
    ]  # fmt: skip
    (root / "channels.json").write_text(json.dumps(channel_rows))
    dms = [{"id": f"D{n:06d}", "created": T0, "members": rng.sample(user_ids, 2)}
           for n in range(max(1, users // 2))]  # fmt: skip
    (root / "dms.json").write_text(json.dumps(dms))
    days: dict[tuple[str, str], list[dict[str, object]]] = defaultdict(list)
    threads: dict[str, list[str]] = defaultdict(list)
    for n in range(messages):
        ts_value = T0 + n * (86400 // MESSAGES_PER_DAY)
        ts = f"{ts_value}.{n % 1000000:06d}"
        day = datetime.fromtimestamp(ts_value, UTC).strftime("%Y-%m-%d")
        if rng.random() < 0.1:
            dm = rng.choice(dms)
            folder, members = str(dm["id"]), list(dm["members"])  # type: ignore[call-overload]
        else:
            channel = rng.choice(channel_rows)
            folder, members = str(channel["name"]), list(channel["members"])  # type: ignore[call-overload]
        message: dict[str, object] = {"type": "message", "user": rng.choice(members),
                                      "text": _text(rng, user_ids), "ts": ts}  # fmt: skip
        roots = threads[folder]
        if roots and not folder.startswith("D") and rng.random() < 0.1:
            message["thread_ts"] = rng.choice(roots[-20:])
        elif not folder.startswith("D") and rng.random() < 0.05:
            message["thread_ts"] = ts
            roots.append(ts)
        if rng.random() < 0.05:
            users = rng.sample(members, min(2, len(members)))
            message["reactions"] = [{"name": rng.choice(EMOJI), "count": 2, "users": users}]
        if rng.random() < 0.05:
            message["edited"] = {"user": message["user"], "ts": f"{ts_value + 60}.000000"}
        days[(folder, day)].append(message)
    for (folder, day), entries in days.items():
        (root / folder).mkdir(exist_ok=True)
        (root / folder / f"{day}.json").write_text(json.dumps(entries))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=40)
    parser.add_argument("--channels", type=int, default=20)
    parser.add_argument("--folder", action="store_true", help="import the folder, not a .zip")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-slack-") as tmp:
        folder = Path(tmp) / "export"
        folder.mkdir()
        started = time.perf_counter()
        write_export(folder, args.messages, args.users, args.channels)
        source = folder
        if not args.folder:
            source = Path(tmp) / "Bench Slack export.zip"
            with zipfile.ZipFile(source, "w", zipfile.ZIP_DEFLATED) as archive:
                for path in sorted(folder.rglob("*.json")):
                    archive.write(path, path.relative_to(folder).as_posix())
        size = sum(p.stat().st_size for p in folder.rglob("*.json"))
        print(f"export written in {time.perf_counter() - started:.1f} s: {args.messages:,} "
              f"messages, {size / 1e6:.1f} MB of JSON, {source.stat().st_size / 1e6:.1f} MB "
              f"as given")  # fmt: skip
        db = Path(tmp) / "bench.db"
        started = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-m", "teamchat", "--db", str(db), "import", str(source)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        elapsed = time.perf_counter() - started
        if result.returncode != 0:
            raise SystemExit(result.stderr)
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        summary = " ".join(result.stdout.split()).split(": ", 1)[-1].split(" ┏")[0]
        print(f"import: {elapsed:.1f} s wall, {usage.ru_utime + usage.ru_stime:.1f} s CPU, "
              f"peak memory {usage.ru_maxrss / 1024:.0f} MiB, database "
              f"{db.stat().st_size / 1e6:.0f} MB")  # fmt: skip
        print(f"imported: {summary}")


if __name__ == "__main__":
    main()

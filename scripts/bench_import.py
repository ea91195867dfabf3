"""Time `teamchat import` of a generated Zulip export.

Usage: python scripts/bench_import.py [--messages 100000] [--users 40] [--streams 20]
Writes an export in Zulip's format (realm.json, messages-NNNNNN.json of 1000 messages each
with their zerver_usermessage rows, attachment.json) into a temporary folder (not measured),
then runs `teamchat --db NEW import FOLDER` in a subprocess and prints its wall time, the
rows imported and the database size. 90% channel messages (each channel has about half the
users subscribed), 10% direct messages between two users; a tenth of the flags are read.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from teamchat.lib import zulip_export_format as fmt

T0 = 1_700_000_000.0
WORDS = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "a",
    "lazy",
    "dog",
    "while",
    "zulip",
    "servers",
    "export",
    "realms",
]


def _realm(users: int, streams: int, rng: random.Random) -> tuple[dict[str, object], dict]:
    user_ids = list(range(10, 10 + users))
    profiles = [
        {"id": uid, "email": f"u{uid}@bench.example", "delivery_email": f"u{uid}@bench.example",
         "full_name": f"User {uid}", "role": 100 if uid == 10 else 400, "is_active": True,
         "is_bot": False, "date_joined": T0, "avatar_source": "G", "timezone": "UTC"}
        for uid in user_ids
    ]  # fmt: skip
    stream_rows, recipients, subs, members = [], [], [], {}
    for n in range(streams):
        sid, rid = 100 + n, 1000 + n
        stream_rows.append({"id": sid, "name": f"channel {n}", "description": "", "recipient": rid,
                            "invite_only": False, "date_created": T0, "creator": 10})  # fmt: skip
        recipients.append({"id": rid, "type": fmt.RECIPIENT_STREAM, "type_id": sid})
        members[rid] = rng.sample(user_ids, max(2, users // 2))
        subs += [{"id": len(subs) + 1, "user_profile": u, "recipient": rid, "active": True,
                  "color": "#76ce90"} for u in members[rid]]  # fmt: skip
    for uid in user_ids:
        recipients.append({"id": 5000 + uid, "type": fmt.RECIPIENT_PERSONAL, "type_id": uid})
    realm = {
        "zerver_realm": [{"id": 2, "string_id": "bench", "name": "Bench", "date_created": T0}],
        "zerver_userprofile": profiles,
        "zerver_stream": stream_rows,
        "zerver_recipient": recipients,
        "zerver_subscription": subs,
        "zerver_client": [{"id": 1, "name": "website"}],
    }
    return realm, {"members": members, "user_ids": user_ids}


def write_export(folder: Path, messages: int, users: int, streams: int) -> int:
    """Write the export; return the number of zerver_usermessage rows."""
    rng = random.Random(7)
    realm, info = _realm(users, streams, rng)
    (folder / fmt.REALM_FILE).write_text(json.dumps(realm))
    (folder / fmt.ATTACHMENT_FILE).write_text(json.dumps({fmt.ATTACHMENT_TABLE: []}))
    stream_recipients = list(info["members"])
    total_um = 0
    for number, start in enumerate(range(0, messages, fmt.MESSAGES_PER_FILE), 1):
        rows, ums = [], []
        for mid in range(start + 1, min(messages, start + fmt.MESSAGES_PER_FILE) + 1):
            sender = rng.choice(info["user_ids"])
            if rng.random() < 0.9:
                rid = rng.choice(stream_recipients)
                receivers = info["members"][rid]
                topic = f"topic {rng.randrange(50)}"
            else:
                other = rng.choice(info["user_ids"])
                rid, receivers, topic = 5000 + other, sorted({sender, other}), ""
            text = " ".join(rng.choices(WORDS, k=12))
            rows.append({"id": mid, "sender": sender, "recipient": rid, "subject": topic,
                         "content": text, "rendered_content": f"<p>{text}</p>",
                         "date_sent": T0 + mid, "sending_client": 1})  # fmt: skip
            for uid in receivers:
                read = 1 if uid == sender or rng.random() < 0.1 else 0
                ums.append(
                    {"id": len(ums), "user_profile": uid, "message": mid, "flags_mask": read}
                )
        total_um += len(ums)
        data = {"zerver_message": rows, "zerver_usermessage": ums}
        (folder / fmt.message_file_name(number)).write_text(json.dumps(data))
    return total_um


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=40)
    parser.add_argument("--streams", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        folder = Path(tmp) / "export"
        folder.mkdir()
        started = time.perf_counter()
        user_messages = write_export(folder, args.messages, args.users, args.streams)
        print(f"export written in {time.perf_counter() - started:.1f} s: {args.messages} "
              f"messages, {user_messages} user-message rows")  # fmt: skip
        db = Path(tmp) / "imported.db"
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "teamchat", "--db", str(db), "import", str(folder)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        elapsed = time.perf_counter() - started
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        size_mb = sum(p.stat().st_size for p in Path(tmp).glob("imported.db*")) / 1e6
        print(f"teamchat import: {elapsed:.1f} s wall, {usage.ru_utime + usage.ru_stime:.1f} s "
              f"CPU ({args.messages / elapsed:,.0f} messages/s), database {size_mb:.0f} MB, "
              f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip


if __name__ == "__main__":
    main()

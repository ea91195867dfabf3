"""Benchmark mobile push: what pushing costs a sender, and how soon the phone has it.

Starts the loopback stand-in push service (tests/support/push_service.py) and two fresh
`teamchat serve` processes, one with `TEAMCHAT_PUSH_SERVICE_URL` and one without; in each,
a recipient registers an E2EE device, then the sender sends direct messages one at a time.
Reports POST /messages latency on both servers (after 20 unmeasured sends), and the time from
the send's response to the stand-in service having decrypted the payload.

Usage: python scripts/bench_push.py [--messages 200]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.support.api import Api, assert_success  # noqa: E402
from tests.support.push_service import Phone, PushServiceStub  # noqa: E402
from tests.support.server import ServerProcess  # noqa: E402

WARMUP = 20


def _login(server: ServerProcess, owner: Api, name: str) -> tuple[Api, int]:
    email = f"{name}@example.com"
    user_id = owner.ok("POST", "/users", email=email, password="pw-bench-" + name, full_name=name)[
        "user_id"
    ]
    key = assert_success(
        Api(server.url).post("/fetch_api_key", username=email, password="pw-bench-" + name)
    )["api_key"]
    return Api(server.url, email, key), int(user_id)


def _run(stub: PushServiceStub, directory: Path, push: bool, count: int) -> dict[str, float]:
    env = {"TEAMCHAT_PUSH_SERVICE_URL": stub.url} if push else {}
    directory.mkdir(parents=True, exist_ok=True)
    server = ServerProcess(directory, env).start()
    try:
        owner = Api(server.url, server.owner_email, server.owner_key)
        sender, _ = _login(server, owner, "sender")
        recipient, recipient_id = _login(server, owner, "recipient")
        if push:
            device = recipient.ok("POST", "/register_client_device")["device_id"]
            registration = stub.registration(Phone("bench-token"))
            recipient.ok("POST", "/mobile_push/register", device_id=device, **registration)
        sends, deliveries = [], []
        for i in range(-WARMUP, count):
            before = len(stub.delivered)
            start = time.perf_counter()
            sender.ok(
                "POST", "/messages", type="direct", to=json.dumps([recipient_id]), content=f"m{i}"
            )
            sent = time.perf_counter()
            if push:
                stub.payloads(before + 1)
            if i < 0:
                continue
            sends.append((sent - start) * 1000)
            if push:
                deliveries.append((stub.delivered_at[before] - sent) * 1000)
        result = {"send_median_ms": statistics.median(sends)}
        result["send_p95_ms"] = statistics.quantiles(sends, n=20)[18]
        if deliveries:
            result["delivered_median_ms"] = statistics.median(deliveries)
            result["delivered_p95_ms"] = statistics.quantiles(deliveries, n=20)[18]
        return result
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=200)
    args = parser.parse_args()
    with PushServiceStub() as stub, tempfile.TemporaryDirectory() as tmp:
        # Alternate the two servers; keep the second run of each (the first warms the machine).
        for round_ in range(2):
            without = _run(stub, Path(tmp) / f"off{round_}", False, args.messages)
            with_push = _run(stub, Path(tmp) / f"on{round_}", True, args.messages)
    print("| server | send median ms | send p95 ms | on the phone after (median / p95 ms) |")
    print("|---|---|---|---|")
    print(
        f"| no push service | {without['send_median_ms']:.1f} | {without['send_p95_ms']:.1f} | - |"
    )
    print(
        f"| push service | {with_push['send_median_ms']:.1f} | {with_push['send_p95_ms']:.1f}"
        f" | {with_push['delivered_median_ms']:.1f} / {with_push['delivered_p95_ms']:.1f} |"
    )


if __name__ == "__main__":
    main()

"""`kill -9` in the middle of 32 concurrent senders loses no acknowledged message and leaves a
sound database: every acknowledgement follows a durable COMMIT (synchronous=FULL)."""

from __future__ import annotations

import signal
import sqlite3
import threading
import time
from pathlib import Path

import httpx

from tests.support.server import ServerProcess


def test_kill_9_loses_no_acknowledged_message(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path).start()
    auth = (server.owner_email, server.owner_key)
    acked: list[int] = []
    stop = threading.Event()

    def sender(n: int) -> None:
        with httpx.Client(base_url=f"{server.url}/api/v1", auth=auth, timeout=10) as client:
            i = 0
            while not stop.is_set():
                try:
                    body = client.post(
                        "/messages",
                        data={"type": "stream", "to": "general", "topic": f"kill {n}",
                              "content": f"message {n}.{i}"},
                    ).json()  # fmt: skip
                except httpx.HTTPError:
                    return  # the server is gone
                if body.get("result") == "success":
                    acked.append(int(body["id"]))
                i += 1

    threads = [threading.Thread(target=sender, args=(n,)) for n in range(32)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 30
    while len(acked) < 100 and time.monotonic() < deadline:
        time.sleep(0.05)
    server.stop(signal.SIGKILL)
    stop.set()
    for thread in threads:
        thread.join(15)
    assert len(acked) >= 100, server.log()
    conn = sqlite3.connect(server.db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = {row[0] for row in conn.execute("SELECT id FROM message")}
    finally:
        conn.close()
    assert set(acked) <= stored

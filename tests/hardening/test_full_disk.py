"""A full disk: Zulip's error envelope with a retryable 503, one log line a minute, the
health check says so, and everything works again once space returns."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import httpx

from tests.support.api import Api, assert_error, assert_success
from tests.support.server import ServerProcess

STUB = Path(__file__).resolve().parents[1] / "support" / "full_disk"


def test_writes_on_a_full_disk_are_503_and_recover(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    flag = tmp_path / "disk-is-full"
    # The periodic work runs often meanwhile: with nothing to do, it writes nothing (and so
    # logs nothing) while the disk is full.
    proc = start_server(
        {
            "PYTHONPATH": str(STUB),
            "TEAMCHAT_TEST_DISK_FULL_FLAG": str(flag),
            "TEAMCHAT_IDLE_CHECK_INTERVAL_SECS": "0.1",
        }
    )
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        channel = {"type": "stream", "to": "general", "topic": "disk"}
        assert_success(owner.post("/messages", content="before", **channel))
        before = proc.log()

        flag.touch()
        for attempt in range(20):
            response = owner.post("/messages", content=f"while full {attempt}", **channel)
            body = assert_error(
                response, "The server's disk is full; try again later.", "DISK_FULL", 503
            )
            assert response.headers["retry-after"] == "30", body
        time.sleep(1.5)  # the periodic work (a second after the start, then often) runs too
        # Reads still work; nothing half-written shows.
        recent = owner.ok("GET", "/messages", anchor="newest", num_before=5, num_after=0)
        assert [m["content"] for m in recent["messages"]][-1] == "<p>before</p>"
        health = httpx.get(f"{proc.url}/health", timeout=10)
        assert health.status_code == 500
        assert health.json()["code"] == "SERVER_NOT_READY"
        assert health.json()["msg"].startswith("The disk is full: writes fail since ")

        new = proc.log()[len(before) :]
        assert "Traceback" not in new, new
        assert new.count("the disk is full") == 1, new

        flag.unlink()
        # The health check writes once to see that space returned, before anyone sends.
        assert httpx.get(f"{proc.url}/health", timeout=10).status_code == 200
        assert_success(owner.post("/messages", content="after", **channel))
        recent = owner.ok("GET", "/messages", anchor="newest", num_before=2, num_after=0)
        assert [m["content"] for m in recent["messages"]] == ["<p>before</p>", "<p>after</p>"]

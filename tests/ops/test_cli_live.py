"""Issue 9 defect 10: what `teamchat admin` changes while a server runs on the same
database reaches the server's live queues within a second (through the change log)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tests.support.api import Api
from tests.support.org import Watcher
from tests.support.server import ServerProcess, cli

DEADLINE_SECS = 1.0


def _wait_for(watcher: Watcher, wanted: Callable[[dict[str, Any]], bool]) -> list[Any]:
    """Poll until an event matches; fail after DEADLINE_SECS from now."""
    seen: list[Any] = []
    deadline = time.monotonic() + DEADLINE_SECS
    while time.monotonic() < deadline:
        seen += watcher.events()
        if any(wanted(e) for e in seen):
            return seen
        time.sleep(0.02)
    raise AssertionError(f"no matching event within {DEADLINE_SECS}s: {seen}")


def test_admin_set_role_reaches_a_live_queue(
    server: ServerProcess, owner: Api, make_user: Callable[..., Api]
) -> None:
    member = make_user(full_name="Role Change")
    watcher = Watcher(owner, ["realm_user"])
    cli(server.db, "admin", "set-role", member.email, "moderator")
    events = _wait_for(
        watcher,
        lambda e: e["type"] == "realm_user" and e["person"].get("role") == 300,
    )
    watcher.check(events, ["realm_users"])


def test_admin_realm_set_reaches_a_live_queue(server: ServerProcess, owner: Api) -> None:
    watcher = Watcher(owner, ["realm"])
    cli(server.db, "admin", "realm", "set", "waiting_period_threshold", "7")
    events = _wait_for(
        watcher,
        lambda e: e["type"] == "realm" and e.get("property") == "waiting_period_threshold",
    )
    assert [e["value"] for e in events if e.get("property") == "waiting_period_threshold"] == [7]
    watcher.check(events, ["realm_waiting_period_threshold"])
    cli(server.db, "admin", "realm", "set", "waiting_period_threshold", "0")


def test_admin_deactivate_user_drops_their_queues(
    server: ServerProcess, owner: Api, make_user: Callable[..., Api]
) -> None:
    member = make_user(full_name="Leaving Soon")
    theirs = member.ok("POST", "/register", event_types=["message"])
    watcher = Watcher(owner, ["realm_user"])
    cli(server.db, "admin", "deactivate-user", member.email)
    _wait_for(
        watcher, lambda e: e["type"] == "realm_user" and e["person"].get("is_active") is False
    )
    cli(server.db, "admin", "reactivate-user", member.email)
    answer = member.get("/events", queue_id=theirs["queue_id"], last_event_id=-1, dont_block=True)
    assert answer.json()["code"] == "BAD_EVENT_QUEUE_ID"

"""`teamchat admin realm deactivate|reactivate` against a running server."""

from __future__ import annotations

import time
from collections.abc import Callable

from tests.support.api import Api, assert_error
from tests.support.channels import Queue
from tests.support.server import ServerProcess, cli


def test_deactivated_organization_refuses_everything(
    start_server: Callable[..., ServerProcess],
) -> None:
    server = start_server()
    owner = Api(server.url, server.owner_email, server.owner_key)
    queue = Queue(owner, event_types=["realm"])
    done = cli(server.db, "admin", "realm", "deactivate")
    assert "Deactivated" in done.stdout
    deadline = time.monotonic() + 5
    events: list[dict] = []  # type: ignore[type-arg]
    while not events and time.monotonic() < deadline:
        response = owner.get(
            "/events", queue_id=queue.queue_id, last_event_id=-1, dont_block="true"
        )
        if response.status_code == 401:
            break
        events = [e for e in response.json().get("events", []) if e["type"] == "realm"]
        time.sleep(0.1)
    refused = "This organization is deactivated"
    assert_error(owner.get("/users/me"), refused, "REALM_DEACTIVATED", status=401)
    anonymous = Api(server.url)
    assert_error(
        anonymous.post("/fetch_api_key", username=server.owner_email, password="whatever"),
        refused,
        "REALM_DEACTIVATED",
        status=401,
    )
    again = cli(server.db, "admin", "realm", "deactivate", check=False)
    assert again.returncode == 1 and "already deactivated" in again.stderr
    cli(server.db, "admin", "realm", "reactivate")
    assert owner.ok("GET", "/users/me")["email"] == server.owner_email
    # The old queue is gone: clients register again.
    assert_error(
        owner.get("/events", queue_id=queue.queue_id, last_event_id=-1, dont_block="true"),
        None,
        "BAD_EVENT_QUEUE_ID",
    )

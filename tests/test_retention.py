"""Message retention: the server deletes messages past their channel's or the organization's
keeping period (with uploads nothing else links), sending delete_message events."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from tests.support import rawdb
from tests.support.api import Api, assert_success
from tests.support.channels import Queue, stream_id, subscribe
from tests.support.server import ServerProcess

DAY = 86400


def _backdate(server: ServerProcess, message_ids: list[int], days: float) -> None:
    marks = ",".join("?" * len(message_ids))
    rawdb.query(
        server.db,
        f"UPDATE message SET date_sent = date_sent - ? WHERE id IN ({marks})",
        (int(days * DAY), *message_ids),
    )


def test_old_messages_go_with_their_uploads(start_server: Callable[..., ServerProcess]) -> None:
    server = start_server({"TEAMCHAT_RETENTION_INTERVAL_SECS": "0.5"})
    owner = Api(server.url, server.owner_email, server.owner_key)
    me = owner.ok("GET", "/users/me")["user_id"]
    subscribe(owner, "brief", message_retention_days="1")
    subscribe(owner, "archive", message_retention_days='"unlimited"')
    brief, archive = stream_id(owner, "brief"), stream_id(owner, "archive")
    upload = assert_success(owner.http.post("/user_uploads", files={"f": ("a.txt", b"hello")}))
    send = lambda to, text: owner.ok(  # noqa: E731
        "POST", "/messages", type="stream", to=to, topic="t", content=text
    )["id"]
    old = send(brief, f"[a.txt]({upload['url']})")
    fresh = send(brief, "still here")
    kept = send(archive, "kept forever")
    dm_old = owner.ok("POST", "/messages", type="direct", to=json.dumps([me]), content="old dm")[
        "id"
    ]
    dm_new = owner.ok("POST", "/messages", type="direct", to=json.dumps([me]), content="new dm")[
        "id"
    ]
    owner.ok("PATCH", "/realm", message_retention_days=5)
    queue = Queue(owner, event_types=["delete_message", "attachment"],
                  client_capabilities=json.dumps({"bulk_message_deletion": True}))  # fmt: skip
    _backdate(server, [old, kept], 2)
    _backdate(server, [dm_old], 6)
    _backdate(server, [dm_new], 4)
    seen: list[dict] = []  # type: ignore[type-arg]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        seen += queue.events()
        deleted = {i for e in seen if e["type"] == "delete_message" for i in e["message_ids"]}
        if {old, dm_old} <= deleted and any(e["type"] == "attachment" for e in seen):
            break
        time.sleep(0.2)
    assert deleted == {old, dm_old}, seen
    [gone] = [e for e in seen if e["type"] == "attachment"]
    assert gone["op"] == "remove" and gone["upload_space_used"] == 0
    assert owner.ok("GET", "/attachments")["attachments"] == []
    remaining = owner.ok("GET", "/messages", anchor="newest", num_before=100, num_after=0)
    ids = {m["id"] for m in remaining["messages"]}
    assert {fresh, kept, dm_new} <= ids and not {old, dm_old} & ids

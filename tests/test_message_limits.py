"""The organization's editing rules: message editing on/off, time limits for editing,
moving and deleting, and who may see edit history."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.support import rawdb
from tests.support.api import Api, assert_error
from tests.support.channels import subscribe, unique_name
from tests.support.server import ServerProcess

MakeUser = Callable[..., Api]
DEFAULTS = {
    "allow_message_editing": True,
    "message_content_edit_limit_seconds": 600,
    "message_content_delete_limit_seconds": 600,
    "move_messages_within_stream_limit_seconds": 604800,
    "message_edit_history_visibility_policy": "all",
}


@pytest.fixture
def restore_realm(owner: Api) -> Iterator[None]:
    yield
    owner.ok("PATCH", "/realm", **DEFAULTS)


def age_message(server: ServerProcess, message_id: int, secs: int) -> None:
    """Pretend the message was sent `secs` ago."""
    rawdb.query(
        server.db, "UPDATE message SET date_sent = date_sent - ? WHERE id = ?", (secs, message_id)
    )


def test_time_limits_and_disabled_editing(
    server: ServerProcess, owner: Api, make_user: MakeUser, restore_realm: None
) -> None:
    alice = make_user("Alice Limits")
    name = unique_name("Limits")
    subscribe(alice, name)
    message_id = alice.ok(
        "POST", "/messages", type="stream", to=name, topic="t", content="old news"
    )["id"]
    age_message(server, message_id, 700)
    assert_error(
        alice.patch(f"/messages/{message_id}", content="new"),
        "The time limit for editing this message has passed",
    )
    assert_error(
        alice.delete(f"/messages/{message_id}"),
        "The time limit for deleting this message has passed",
    )
    age_message(server, message_id, 604800)
    assert_error(
        alice.patch(f"/messages/{message_id}", topic="moved"),
        "The time limit for editing this message's topic has passed.",
    )
    owner.ok("PATCH", f"/messages/{message_id}", topic="moved by a moderator")
    owner.ok("PATCH", "/realm", allow_message_editing=False)
    fresh = alice.ok("POST", "/messages", type="stream", to=name, topic="t", content="x")["id"]
    assert_error(
        alice.patch(f"/messages/{fresh}", content="y"),
        "Your organization has turned off message editing",
    )


def test_edit_history_visibility(owner: Api, make_user: MakeUser, restore_realm: None) -> None:
    alice = make_user("Alice Visibility")
    name = unique_name("Visibility")
    subscribe(alice, name)
    message_id = alice.ok("POST", "/messages", type="stream", to=name, topic="a", content="one")[
        "id"
    ]
    alice.ok("PATCH", f"/messages/{message_id}", content="two")
    alice.ok("PATCH", f"/messages/{message_id}", topic="b")
    owner.ok("PATCH", "/realm", message_edit_history_visibility_policy="moves")
    history = alice.ok("GET", f"/messages/{message_id}/history")["message_history"]
    assert len(history) == 2 and history[1]["prev_topic"] == "a"
    assert "prev_content" not in history[1]
    owner.ok("PATCH", "/realm", message_edit_history_visibility_policy="none")
    assert_error(
        alice.get(f"/messages/{message_id}/history"),
        "Message edit history is disabled in this organization",
    )
    message = alice.ok("GET", f"/messages/{message_id}")["message"]
    assert "edit_history" not in message and "last_edit_timestamp" in message

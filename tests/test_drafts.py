"""Drafts: GET/POST /drafts, PATCH/DELETE /drafts/{id}, drafts events and state."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.support.api import Api, assert_error
from tests.support.channels import stream_id, subscribe, unique_name
from tests.support.people import verify

STATE = {"fetch_event_types": '["drafts"]'}


def test_drafts_lifecycle(make_user: Callable[..., Api]) -> None:
    alice, bob = make_user("Alice Drafts"), make_user("Bob Drafts")
    name = unique_name("Drafty")
    subscribe(alice, name)
    sid = stream_id(alice, name)
    created: list[Any] = []
    new = [
        {
            "type": "stream",
            "to": [sid],
            "topic": "plans",
            "content": "half a thought",
            "timestamp": 1700000000,
        },
        {
            "type": "private",
            "to": [bob.user_id, alice.user_id],
            "topic": "",
            "content": "psst",  # type: ignore[attr-defined]
            "timestamp": 1700000100,
        },
        {"type": "", "to": [], "topic": "", "content": "nowhere yet", "timestamp": 1700000200},
    ]
    [added] = verify(
        alice, lambda: created.append(alice.ok("POST", "/drafts", drafts=json.dumps(new))), **STATE
    )
    ids = created[0]["ids"]
    assert [d["id"] for d in added["drafts"]] == ids
    assert added["drafts"][1]["to"] == [bob.user_id]  # type: ignore[attr-defined]
    listed = alice.ok("GET", "/drafts")
    assert listed["count"] == 3 and [d["content"] for d in listed["drafts"]] == [
        "half a thought",
        "psst",
        "nowhere yet",
    ]
    assert bob.ok("GET", "/drafts")["drafts"] == []
    edit = {
        "type": "stream",
        "to": [sid],
        "topic": "plans",
        "content": "a whole thought",
        "timestamp": 1700000300,
    }
    [updated] = verify(
        alice, lambda: alice.ok("PATCH", f"/drafts/{ids[0]}", draft=json.dumps(edit)), **STATE
    )
    assert updated["draft"]["content"] == "a whole thought"
    [removed] = verify(alice, lambda: alice.ok("DELETE", f"/drafts/{ids[1]}"), **STATE)
    assert removed["draft_id"] == ids[1]
    missing = "Draft does not exist"
    assert_error(bob.delete(f"/drafts/{ids[0]}"), missing, status=404)
    assert_error(bob.patch(f"/drafts/{ids[0]}", draft=json.dumps(edit)), missing, status=404)


def test_draft_errors_and_opt_out(make_user: Callable[..., Api]) -> None:
    alice = make_user("Alice Draft Errors")
    bad = [
        (
            {"type": "stream", "to": [], "topic": "t", "content": "x"},
            "Must specify exactly 1 channel ID for channel messages",
        ),
        ({"type": "stream", "to": [999999], "topic": "t", "content": "x"}, "Invalid channel ID"),
        (
            {"type": "private", "to": [999999], "topic": "", "content": "x"},
            "Invalid user ID 999999",
        ),
        ({"type": "private", "to": [], "topic": "", "content": "  "}, "Message must not be empty"),
        (
            {"type": "", "to": [], "topic": "", "content": "x", "timestamp": -5},
            "Timestamp must not be negative.",
        ),
    ]
    for draft, message in bad:
        assert_error(alice.post("/drafts", drafts=json.dumps([draft])), message)
    assert_error(
        alice.post(
            "/drafts",
            drafts=json.dumps([{"type": "x", "to": [], "topic": "", "content": "x", "extra": 1}]),
        ),
        None,
    )
    assert alice.ok("GET", "/drafts")["drafts"] == []
    alice.ok("PATCH", "/settings", enable_drafts_synchronization="false")
    assert_error(alice.get("/drafts"), "User has disabled synchronizing drafts.")
    assert alice.ok("POST", "/register", **STATE)["drafts"] == []

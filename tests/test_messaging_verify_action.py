"""verify_action over the whole register state for channel and message actions."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.api import Api
from tests.support.channels import stream_id, subscribe, unique_name
from tests.support.state import verify_action

MakeUser = Callable[..., Api]


def test_channel_and_message_actions_keep_the_whole_state(make_user: MakeUser) -> None:
    alice, bob = make_user("Alice Verify"), make_user("Bob Verify")
    name = unique_name("Verify")
    verify_action(alice, lambda: subscribe(alice, name))
    sid = stream_id(alice, name)
    verify_action(alice, lambda: subscribe(alice, name, principals=[bob.user_id]))  # type: ignore[attr-defined]
    sent: list[int] = []

    def send() -> None:
        body = bob.ok(
            "POST", "/messages", type="stream", to=name, topic="t", content="hi @**Alice Verify**"
        )
        sent.append(body["id"])

    verify_action(alice, send)
    verify_action(
        alice, lambda: bob.ok("POST", f"/messages/{sent[0]}/reactions", emoji_name="tada")
    )
    verify_action(alice, lambda: bob.ok("PATCH", f"/messages/{sent[0]}", topic="moved"))
    verify_action(
        alice, lambda: alice.ok("POST", "/messages/flags", messages=sent, op="add", flag="starred")
    )
    verify_action(
        alice,
        lambda: alice.ok("POST", "/user_topics", stream_id=sid, topic="moved", visibility_policy=1),
    )
    verify_action(
        alice, lambda: bob.ok("POST", "/messages", type="private", to=[alice.user_id], content="dm")
    )  # type: ignore[attr-defined]
    verify_action(alice, lambda: alice.ok("PATCH", f"/streams/{sid}", description="new"))
    verify_action(alice, lambda: bob.ok("DELETE", f"/messages/{sent[0]}"))
    verify_action(
        alice, lambda: alice.ok("DELETE", "/users/me/subscriptions", subscriptions=[name])
    )

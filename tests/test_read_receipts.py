"""GET /messages/{message_id}/read_receipts."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.api import Api, assert_error
from tests.support.channels import subscribe, unique_name


def test_read_receipts(owner: Api, make_user: Callable[..., Api]) -> None:
    alice, bob, carol = (make_user(full_name=n) for n in ("RR Alice", "RR Bob", "RR Carol"))
    dave, erin, frank = (make_user(full_name=n) for n in ("RR Dave", "RR Erin", "RR Frank"))
    people = [alice, bob, carol, dave, erin, frank]
    channel = unique_name("receipts")
    subscribe(owner, channel, principals=[p.user_id for p in people])  # type: ignore[attr-defined]
    sent = alice.ok("POST", "/messages", type="stream", to=channel, topic="t", content="hi")["id"]
    for reader in (bob, carol, dave, erin, frank):
        reader.ok("POST", "/messages/flags", messages=[sent], op="add", flag="read")
    carol.ok("PATCH", "/settings", send_read_receipts=False)  # shares no receipts
    dave.ok("POST", f"/users/me/muted_users/{bob.user_id}")  # muted the viewer (bob)
    bob.ok("POST", f"/users/me/muted_users/{erin.user_id}")  # muted by the viewer
    owner.ok("DELETE", f"/users/{frank.user_id}")  # deactivated
    body = bob.ok("GET", f"/messages/{sent}/read_receipts", extra=1)
    # The sender never appears; bob himself read it.
    assert body["user_ids"] == [bob.user_id]  # type: ignore[attr-defined]
    assert body["ignored_parameters_unsupported"] == ["extra"]
    assert alice.ok("GET", f"/messages/{sent}/read_receipts")["user_ids"] == [
        p.user_id
        for p in (bob, dave, erin)  # type: ignore[attr-defined]
    ]
    private = alice.ok("POST", "/messages", type="private", to=[carol.user_id], content="x")  # type: ignore[attr-defined]
    assert_error(bob.get(f"/messages/{private['id']}/read_receipts"), "Invalid message(s)")
    owner.ok("PATCH", "/realm", enable_read_receipts=False)
    try:
        assert_error(
            bob.get(f"/messages/{sent}/read_receipts"),
            "Read receipts are disabled in this organization.",
        )
    finally:
        owner.ok("PATCH", "/realm", enable_read_receipts=True)

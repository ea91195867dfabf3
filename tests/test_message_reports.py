"""POST /messages/{id}/report: reports reach the moderation-request channel."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.api import Api, assert_error
from tests.support.channels import Queue, stream_id, subscribe, unique_name

MakeUser = Callable[..., Api]


def test_report_reaches_moderators(owner: Api, make_user: MakeUser) -> None:
    alice, bob, carol = make_user("Alice Reports"), make_user("Bob Reported"), make_user("Carol X")
    ids = {u: u.user_id for u in (alice, bob, carol)}  # type: ignore[attr-defined]
    general = unique_name("Reported")
    subscribe(alice, general, principals=[ids[alice], ids[bob]])
    sid = stream_id(alice, general)
    bad = bob.ok("POST", "/messages", type="stream", to=sid, topic="t", content="buy ```now```")[
        "id"
    ]
    dm = bob.ok("POST", "/messages", type="direct", to=[ids[alice]], content="psst")["id"]
    not_enabled = "Message reporting is not enabled in this organization."
    assert_error(alice.post(f"/messages/{bad}/report", report_type="spam"), not_enabled)
    moderation = unique_name("Moderation")
    subscribe(owner, moderation, invite_only="true")
    mod_id = stream_id(owner, moderation)
    owner.ok("PATCH", "/realm", moderation_request_channel_id=mod_id)
    queue = Queue(owner, event_types=["message"])
    alice.ok("POST", f"/messages/{bad}/report", report_type="spam", description="Ads again")
    [event] = queue.events()
    report = event["message"]
    assert (report["stream_id"], report["subject"]) == (mod_id, "Bob Reported moderation")
    assert report["sender_email"].startswith("notification-bot")
    raw = owner.ok("GET", f"/messages/{report['id']}", apply_markdown="false")["message"]["content"]
    reporter, sender = f"@_**Alice Reports|{ids[alice]}**", f"@_**Bob Reported|{ids[bob]}**"
    assert raw.startswith(f"{reporter} reported a message sent by {sender} at <time:")
    assert "```quote\n**Spam**. Ads again\n```" in raw
    assert f"```` spoiler Original message at #**{general}>t@{bad}**\nbuy ```now```\n````" in raw
    alice.ok("POST", f"/messages/{dm}/report", report_type="harassment")
    raw = queue.events()[0]["message"]["content"]
    assert "Original message" in raw and f"/near/{dm}" in raw
    # Errors change nothing.
    assert_error(
        alice.post(f"/messages/{bad}/report", report_type="other"), "An explanation is required."
    )
    assert_error(alice.post(f"/messages/{bad}/report", report_type="rude"), "Invalid report_type")
    assert_error(
        alice.post(f"/messages/{bad}/report", report_type="other", description="x" * 1001),
        "description is too long (limit: 1000 characters)",
    )
    assert_error(carol.post(f"/messages/{dm}/report", report_type="spam"), "Invalid message(s)")
    assert_error(
        alice.post(f"/messages/{bad}/report"),
        "Missing 'report_type' argument",
        "REQUEST_VARIABLE_MISSING",
    )
    assert queue.events() == []

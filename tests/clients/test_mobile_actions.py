"""The mobile app's actions, sent as it sends them, and every event they cause decoded with
the app's event decoders (a known event type with a missing field makes the app reload).
Also uploads, avatars and the push registration calls it makes at start-up."""

from __future__ import annotations

import hashlib
from typing import Any

import httpx

from tests.support import flutter_routes as routes
from tests.support import flutter_types as fl
from tests.support.api import assert_error, assert_success
from tests.support.channels import unique_name
from tests.support.flutter_events import FlagsRemoveEvent, MessageEvent, UpdateMessageEvent
from tests.support.flutter_events import parse_event as parse
from tests.support.mobile import REGISTER, World, call, events
from tests.support.realm_emoji import PNG
from tests.support.server import ServerProcess


def _send_and_edit(w: World, queue_id: str) -> int:
    alice, bob = w.alice, w.bob
    sent = call(
        alice,
        "POST",
        "/messages",
        routes.SendMessageResult,
        type="channel",
        to=w.channel_id,
        topic="plans",
        content="draft",
        queue_id=queue_id,
        local_id="local-1",
        read_by_sender=True,
    )
    call(
        bob,
        "POST",
        "/messages",
        routes.SendMessageResult,
        type="direct",
        to=[alice.user_id],  # type: ignore[attr-defined]
        content="ping",
    )
    alice.ok(
        "PATCH",
        f"/messages/{sent.id}",
        content="final",
        prev_content_sha256=hashlib.sha256(b"draft").hexdigest(),
    )
    alice.ok(
        "PATCH",
        f"/messages/{sent.id}",
        topic="moved",
        propagate_mode="change_all",
        send_notification_to_old_thread=False,
        send_notification_to_new_thread=False,
    )
    reaction = {"emoji_name": "zulip", "emoji_code": "zulip", "reaction_type": "zulip_extra_emoji"}
    alice.ok("POST", f"/messages/{sent.id}/reactions", **reaction)
    alice.ok("DELETE", f"/messages/{sent.id}/reactions", **reaction)
    return sent.id


def _flags(w: World, message_id: int) -> None:
    alice = w.alice
    for op in ("add", "remove"):
        result = call(
            alice,
            "POST",
            "/messages/flags",
            routes.UpdateMessageFlagsResult,
            messages=[message_id],
            op=op,
            flag="starred",
        )
        assert result.messages == [message_id]
    # "Mark as unread" on the app's own (read) message.
    call(
        alice,
        "POST",
        "/messages/flags",
        routes.UpdateMessageFlagsResult,
        messages=[message_id],
        op="remove",
        flag="read",
    )
    narrow = [
        {"operator": "channel", "operand": w.channel_id},
        {"operator": "is", "operand": "unread"},
    ]
    anchor, done = "oldest", False
    while not done:  # "Mark all as read": looped until found_newest.
        result_ = call(
            alice,
            "POST",
            "/messages/flags/narrow",
            routes.UpdateMessageFlagsForNarrowResult,
            anchor=anchor,
            include_anchor=anchor == "oldest",
            num_before=0,
            num_after=1000,
            narrow=narrow,
            op="add",
            flag="read",
        )
        assert result_.updated_count <= result_.processed_count
        done = result_.found_newest
        anchor = str(result_.last_processed_id)


def _other_actions(w: World, message_id: int) -> None:
    alice, bob, owner = w.alice, w.bob, w.owner
    alice.ok("POST", "/typing", op="start", type="channel", stream_id=w.channel_id, topic="moved")
    bob.ok("POST", "/typing", op="start", type="direct", to=[alice.user_id])  # type: ignore[attr-defined]
    alice.ok("POST", "/user_topics", stream_id=w.channel_id, topic="moved", visibility_policy=1)
    name = unique_name("mobile-new")
    alice.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": name}])
    new_id = alice.ok("GET", "/get_stream_id", stream=name)["stream_id"]
    alice.ok(
        "POST", "/users/me/subscriptions", subscriptions=[{"name": name}], principals=[bob.user_id]
    )  # type: ignore[attr-defined]
    alice.ok(
        "POST",
        "/users/me/subscriptions/properties",
        subscription_data=[{"stream_id": new_id, "property": "is_muted", "value": True}],
    )
    alice.ok("PATCH", f"/streams/{new_id}", description="about")
    alice.ok("DELETE", "/users/me/subscriptions", subscriptions=[name])
    alice.ok("PATCH", "/settings", twenty_four_hour_time=True)
    alice.ok("POST", "/users/me/status", status_text="busy", away=False)
    alice.ok("POST", "/users/me/alert_words", alert_words=["release"])
    snippet = alice.ok("POST", "/saved_snippets", title="Later", content="brb")["saved_snippet_id"]
    alice.ok("PATCH", f"/saved_snippets/{snippet}", content="back soon")
    alice.ok("DELETE", f"/saved_snippets/{snippet}")
    bob.ok("PATCH", "/settings", full_name="Mobile Robert")
    # A first presence report (carol has none yet) sends a presence event.
    w.carol.ok("POST", "/users/me/presence", status="active", new_user_input=True)
    owner.ok("POST", "/realm/profile_fields", name=unique_name("Team"), field_type=1)
    owner.ok(
        "POST",
        "/user_groups/create",
        name=unique_name("crew"),
        description="",
        members=[alice.user_id],
    )  # type: ignore[attr-defined]
    owner.ok("POST", "/channel_folders/create", name=unique_name("Later"), description="")
    owner.ok("DELETE", f"/streams/{new_id}")
    alice.ok("DELETE", f"/messages/{message_id}")


def test_actions_and_the_events_the_app_parses(mobile_world: World) -> None:
    w = mobile_world
    queue_id = call(w.alice, "POST", "/register", fl.InitialSnapshot, **REGISTER).queue_id
    assert queue_id is not None
    message_id = _send_and_edit(w, queue_id)
    _flags(w, message_id)
    _other_actions(w, message_id)
    delivered = events(w.alice, queue_id)
    parsed = [parse(event) for event in delivered]
    known = {(e["type"], e.get("op")) for e, p in zip(delivered, parsed, strict=True) if p}
    wanted = {
        ("message", None),
        ("update_message", None),
        ("reaction", "add"),
        ("reaction", "remove"),
        ("update_message_flags", "add"),
        ("update_message_flags", "remove"),
        ("typing", "start"),
        ("user_topic", None),
        ("subscription", "add"),
        ("subscription", "peer_add"),
        ("subscription", "update"),
        ("subscription", "remove"),
        ("stream", "create"),
        ("stream", "update"),
        ("stream", "delete"),
        ("user_settings", "update"),
        ("user_status", None),
        ("alert_words", None),
        ("realm_user", "update"),
        ("presence", None),
        ("custom_profile_fields", None),
        ("user_group", "add"),
        ("channel_folder", "add"),
        ("delete_message", None),
        ("saved_snippets", "add"),
        ("saved_snippets", "update"),
        ("saved_snippets", "remove"),
    }
    assert wanted - known == set()
    messages = [p for p in parsed if isinstance(p, MessageEvent)]
    # The sender's own queue gets its message, with the outbox's local id echoed.
    mine = [m for m in messages if m.message["id"] == message_id]
    assert [m.local_message_id for m in mine] == ["local-1"]
    assert all(m.local_message_id is None for m in messages if m not in mine)
    edits = [p for p in parsed if isinstance(p, UpdateMessageEvent)]
    assert [e.propagate_mode for e in edits if e.message_id == message_id] == [None, "change_all"]
    unread = [p for p in parsed if isinstance(p, FlagsRemoveEvent) and p.flag == "read"]
    assert unread and unread[0].message_details is not None


def test_topics_and_message_by_id(mobile_world: World) -> None:
    w = mobile_world
    topics = call(
        w.alice,
        "GET",
        f"/users/me/{w.channel_id}/topics",
        routes.GetStreamTopicsResult,
        allow_empty_topic_name=True,
    )
    assert "lunch" in {t.name for t in topics.topics}
    w.alice.ok("POST", "/messages/flags", messages=[w.dm_message], op="add", flag="read")
    receipts = call(
        w.bob, "GET", f"/messages/{w.dm_message}/read_receipts", routes.GetReadReceiptsResult
    )
    assert receipts.user_ids == [w.alice.user_id]  # type: ignore[attr-defined]
    assert_error(w.alice.get("/messages/999999", allow_empty_topic_name=True), "Invalid message(s)")


def test_upload_then_temporary_url(server: ServerProcess, mobile_world: World) -> None:
    alice = mobile_world.alice
    response = alice.http.post("/user_uploads", files={"file": ("photo.png", PNG, "image/png")})
    assert_success(response, "POST", "/user_uploads")
    upload = fl.decode(response.content, routes.UploadFileResult)
    assert upload.uri.startswith("/user_uploads/")
    path = upload.uri.removeprefix("/user_uploads/")
    temporary = call(alice, "GET", f"/user_uploads/{path}", routes.TemporaryUploadUrlResult)
    served = httpx.get(server.url + temporary.url)
    assert served.status_code == 200 and served.content == PNG
    # The app also loads the original with its credentials.
    direct = httpx.get(server.url + upload.uri, auth=(alice.email or "", alice.api_key or ""))
    assert direct.status_code == 200 and direct.content == PNG


def test_avatar_by_user_id(server: ServerProcess, mobile_world: World) -> None:
    bob = mobile_world.bob
    bob.http.post("/users/me/avatar", files={"file": ("me.png", PNG, "image/png")})
    auth = (mobile_world.alice.email or "", mobile_world.alice.api_key or "")
    try:
        with httpx.Client(base_url=server.url, auth=auth, follow_redirects=True) as http:
            response = http.get(f"/avatar/{bob.user_id}")  # type: ignore[attr-defined]
            assert response.status_code == 200 and response.content == PNG
            assert http.get(f"/avatar/{bob.user_id}/medium").status_code == 200  # type: ignore[attr-defined]
    finally:
        # Other tests on this shared server expect Gravatar avatars only.
        bob.ok("DELETE", "/users/me/avatar")


def test_push_registration_calls(mobile_world: World) -> None:
    """FL < 468: the legacy token endpoints. Success, or PUSH_SERVICE_NOT_CONFIGURED."""
    alice = mobile_world.alice
    calls: list[tuple[str, dict[str, Any]]] = [
        ("/users/me/android_gcm_reg_id", {"token": "f" * 64}),
        ("/users/me/apns_device_token", {"token": "a" * 64, "appid": "org.zulip.Zulip"}),
    ]
    for path, params in calls:
        response = alice.post(path, **params)
        if response.status_code != 200:
            assert_error(response, None, "PUSH_SERVICE_NOT_CONFIGURED")

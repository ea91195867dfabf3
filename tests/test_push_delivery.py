"""Mobile push delivery end to end: a real server sends E2EE payloads to a stand-in push
service on loopback, which opens each registration and decrypts each payload with the key
the device registered, as the phone would; reading the message sends `remove`; test
notifications answer with the push service's errors."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import msgspec
import pytest

from tests.support.api import Api, assert_error
from tests.support.channels import Queue, stream_id, subscribe
from tests.support.people import create_member
from tests.support.push_service import E2EE_NOTIFY, LEGACY_TEST, Phone, PushServiceStub
from tests.support.server import ServerProcess, free_port

ORG_ID = "6cb0d2a5-9d4e-4f3c-8e0b-5d2a1c7f9e31"


class _AppMessage(msgspec.Struct, kw_only=True):
    """zulip-flutter's MessageFcmMessage (lib/api/notifications.dart), strictly typed."""

    type: str
    realm_url: str
    user_id: int
    sender_id: int
    sender_avatar_url: str
    sender_full_name: str
    message_id: int
    time: int
    content: str


class _AppChannel(msgspec.Struct, kw_only=True):
    channel_id: int
    channel_name: str | None
    topic: str


class _AppRemove(msgspec.Struct, kw_only=True):
    type: str
    realm_url: str
    user_id: int
    message_ids: list[int]


def _as_the_app_reads(payload: dict[str, Any]) -> tuple[object, object]:
    """Decode a payload as the mobile app does: FcmMessage.fromJson, then its recipient
    (a channel, else `recipient_user_ids`, else `pm_users`, else string ids of a 1:1 DM)."""
    kind = payload.get("type") or payload.get("event")
    if kind == "remove":
        return msgspec.convert(payload, _AppRemove, strict=True), None
    assert kind == "message", payload
    message = msgspec.convert(payload, _AppMessage, strict=True)
    assert message.realm_url.startswith("http") and message.sender_avatar_url.startswith("http")
    if "channel_id" in payload:
        return message, msgspec.convert(payload, _AppChannel, strict=True)
    if "recipient_user_ids" in payload:
        return message, msgspec.convert(payload["recipient_user_ids"], list[int], strict=True)
    raise AssertionError(f"the app cannot tell the conversation: {payload}")


def _person(server: ServerProcess, owner: Api, name: str) -> Api:
    email = f"{name.lower()}@example.com"
    person = create_member(server.url, owner, name, email=email, password="pw-" + name * 3)
    return person


def _uid(person: Api) -> int:
    return int(person.user_id)  # type: ignore[attr-defined]


def _register(person: Api, stub: PushServiceStub, phone: Phone) -> int:
    device_id = int(person.ok("POST", "/register_client_device")["device_id"])
    person.ok("POST", "/mobile_push/register", device_id=device_id, **stub.registration(phone))
    return device_id


@pytest.fixture
def stub() -> Iterator[PushServiceStub]:
    with PushServiceStub() as service:
        yield service


@pytest.fixture
def world(
    stub: PushServiceStub, start_server: Callable[..., ServerProcess]
) -> tuple[ServerProcess, Api, Api, Api, Api]:
    server = start_server(
        {
            "TEAMCHAT_PUSH_SERVICE_URL": stub.url,
            "TEAMCHAT_PUSH_SERVICE_ORG_ID": ORG_ID,
            "TEAMCHAT_PUSH_SERVICE_ORG_KEY": "org-key",
        }
    )
    owner = Api(server.url, server.owner_email, server.owner_key)
    alice, bob, carol = (_person(server, owner, n) for n in ("Alice", "Bob", "Carol"))
    return server, owner, alice, bob, carol


def _settle(stub: PushServiceStub, count: int) -> None:
    """Give the server time to (wrongly) push more than `count` payloads."""
    time.sleep(1.0)
    assert len(stub.payloads(count, timeout=0.1)) == count


def test_messages_that_should_notify_reach_devices_and_reading_removes_them(
    stub: PushServiceStub, world: tuple[ServerProcess, Api, Api, Api, Api]
) -> None:
    server, owner, alice, bob, _ = world
    bob_phone = Phone("bob-fcm-token", "fcm", key_id=4242)
    _register(bob, stub, bob_phone)
    bob_queue = Queue(bob, event_types=["update_message_flags"])
    dm = alice.ok(
        "POST", "/messages", type="direct", to=json.dumps([_uid(bob)]), content="Lunch at *noon*?"
    )["id"]
    [(token, key_id, payload)] = stub.payloads(1)
    assert (token, key_id) == ("bob-fcm-token", 4242)
    assert payload == {
        "type": "message",
        "realm_url": server.url,
        "realm_name": payload["realm_name"],
        "user_id": _uid(bob),
        "message_id": dm,
        "sender_id": _uid(alice),
        "sender_full_name": "Alice",
        "sender_avatar_url": payload["sender_avatar_url"],
        "time": payload["time"],
        "content": "Lunch at noon?",
        "recipient_type": "direct",
        "recipient_user_ids": sorted([_uid(alice), _uid(bob)]),
    }
    assert payload["realm_name"] and payload["sender_avatar_url"].startswith("http")
    assert _as_the_app_reads(payload)[1] == sorted([_uid(alice), _uid(bob)])
    assert abs(payload["time"] - time.time()) < 60
    # What travelled is ciphertext: the service cannot read the message.
    path, body = stub.requests[0]
    [request] = body["push_requests"]
    assert path == E2EE_NOTIFY and request["fcm_priority"] == "high"
    assert "noon" not in json.dumps(body) and set(request["payload"]) == {
        "push_key_id",
        "encrypted_data",
    }
    # A mention in a channel notifies; a plain channel message does not.
    subscribe(owner, "push-test", principals=json.dumps([_uid(alice), _uid(bob)]))
    sid = stream_id(owner, "push-test")
    alice.ok("POST", "/messages", type="stream", to=sid, topic="plans", content="no ping")
    mention = alice.ok(
        "POST", "/messages", type="stream", to=sid, topic="plans", content="@**Bob** you in?"
    )["id"]
    second = stub.payloads(2)[1][2]
    assert second["message_id"] == mention and second["recipient_type"] == "channel"
    assert (second["channel_id"], second["channel_name"], second["topic"]) == (
        sid,
        "push-test",
        "plans",
    )
    assert second["content"] == "@Bob you in?"
    assert _as_the_app_reads(second)[1] == _AppChannel(
        channel_id=sid, channel_name="push-test", topic="plans"
    )
    _settle(stub, 2)
    # Bob reads the direct message: his clients hear of it, his phone drops the notification.
    bob.ok("POST", "/messages/flags", messages=json.dumps([dm]), op="add", flag="read")
    removal = stub.payloads(3)[2][2]
    assert removal == {
        "type": "remove",
        "realm_url": server.url,
        "realm_name": payload["realm_name"],
        "user_id": _uid(bob),
        "message_ids": [dm],
    }
    assert stub.requests[-1][1]["push_requests"][0]["fcm_priority"] == "normal"
    assert _as_the_app_reads(removal)[0] == _AppRemove(
        type="remove", realm_url=server.url, user_id=_uid(bob), message_ids=[dm]
    )
    [flags] = bob_queue.events()
    assert flags["op"] == "add" and flags["flag"] == "read" and flags["messages"] == [dm]
    # Reading it again, or marking everything read, removes only what is still showing.
    bob.ok("POST", "/messages/flags", messages=json.dumps([dm]), op="add", flag="read")
    bob.ok("POST", "/mark_all_as_read")
    assert stub.payloads(4)[3][2]["message_ids"] == [mention]
    _settle(stub, 4)


def test_settings_senders_and_devices_decide_who_is_pushed(
    stub: PushServiceStub, world: tuple[ServerProcess, Api, Api, Api, Api]
) -> None:
    _, _, alice, bob, carol = world
    _register(bob, stub, Phone("bob-token"))
    # Carol has no registered device; Alice writes to herself: nothing is pushed.
    alice.ok("POST", "/messages", type="direct", to=json.dumps([_uid(carol)]), content="hi")
    alice.ok("POST", "/messages", type="direct", to=json.dumps([_uid(alice)]), content="me")
    # Bob turned mobile notifications off.
    bob.ok("PATCH", "/settings", enable_offline_push_notifications="false")
    alice.ok("POST", "/messages", type="direct", to=json.dumps([_uid(bob)]), content="hi")
    _settle(stub, 0)
    # Online and with online push off: not pushed; with it on (the default): pushed.
    bob.ok(
        "PATCH",
        "/settings",
        enable_offline_push_notifications="true",
        enable_online_push_notifications="false",
    )
    online = Queue(bob, event_types=["message"])
    alice.ok("POST", "/messages", type="direct", to=json.dumps([_uid(bob)]), content="hi")
    _settle(stub, 0)
    bob.ok("PATCH", "/settings", enable_online_push_notifications="true")
    alice.ok("POST", "/messages", type="direct", to=json.dumps([_uid(bob)]), content="now")
    assert stub.payloads(1)[0][2]["content"] == "now"
    assert online.events()


def test_group_dm_to_apns_survives_a_failing_service(
    stub: PushServiceStub, world: tuple[ServerProcess, Api, Api, Api, Api]
) -> None:
    _, _, alice, bob, carol = world
    _register(carol, stub, Phone("c0ffee", "apns", key_id=9))
    stub.fail_next = [503, 502]  # the first two tries fail; the third gets through
    everyone = sorted([_uid(alice), _uid(bob), _uid(carol)])
    group = alice.ok(
        "POST", "/messages", type="direct", to=json.dumps([_uid(bob), _uid(carol)]), content="all"
    )["id"]
    [(token, key_id, payload)] = stub.payloads(1, timeout=15)
    assert (token, key_id) == ("c0ffee", 9)
    assert payload["recipient_user_ids"] == everyone
    assert _as_the_app_reads(payload)[1] == everyone
    assert payload["pm_users"] == ",".join(str(uid) for uid in everyone)
    assert len(stub.requests) == 3
    request = stub.requests[-1][1]["push_requests"][0]
    assert request["http_headers"] == {"apns_priority": 10, "apns_push_type": "alert"}
    assert request["payload"]["aps"]["mutable-content"] == 1
    # Alice deletes the message: Carol's phone drops the notification, quietly.
    alice.ok("DELETE", f"/messages/{group}")
    removal = stub.payloads(2)[1][2]
    assert (removal["type"], removal["message_ids"], removal["user_id"]) == (
        "remove",
        [group],
        _uid(carol),
    )
    request = stub.requests[-1][1]["push_requests"][0]
    assert request["http_headers"] == {"apns_priority": 5, "apns_push_type": "background"}
    assert request["payload"]["aps"] == {"content-available": 1}


def test_devices_the_service_no_longer_reaches_are_forgotten(
    stub: PushServiceStub, world: tuple[ServerProcess, Api, Api, Api, Api]
) -> None:
    _, _, alice, bob, _ = world
    device_id = _register(bob, stub, Phone("stale-token"))
    stub.gone_tokens.add("stale-token")
    alice.ok("POST", "/messages", type="direct", to=json.dumps([_uid(bob)]), content="hi")
    deadline = time.monotonic() + 10
    while len(stub.requests) < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stub.requests[0][1]["push_requests"][0]["device_id"] == device_id
    time.sleep(0.5)
    assert_error(
        bob.post("/mobile_push/e2ee/test_notification"),
        "No active registered push device",
        "NO_ACTIVE_PUSH_DEVICE",
    )
    assert len(stub.requests) == 1


def test_e2ee_test_notification(
    stub: PushServiceStub, world: tuple[ServerProcess, Api, Api, Api, Api]
) -> None:
    server, _, _, bob, carol = world
    assert_error(
        carol.post("/mobile_push/e2ee/test_notification"),
        "No active registered push device",
        "NO_ACTIVE_PUSH_DEVICE",
    )
    device_id = _register(bob, stub, Phone("bob-token", key_id=31))
    body = bob.ok("POST", "/mobile_push/e2ee/test_notification", push_account_id=31, junk=1)
    assert body["ignored_parameters_unsupported"] == ["junk"]
    # The server authenticates to the service with its organization credentials.
    credentials = base64.b64encode(f"{ORG_ID}:org-key".encode()).decode()
    assert stub.authorizations[-1] == f"Basic {credentials}"
    [(_, _, payload)] = stub.payloads(1)
    assert payload == {
        "type": "test",
        "realm_url": server.url,
        "realm_name": payload["realm_name"],
        "user_id": _uid(bob),
        "time": payload["time"],
    }
    bob.ok("POST", "/mobile_push/e2ee/test_notification", device_id=device_id)
    assert len(stub.payloads(2)) == 2
    for params in ({"push_account_id": 32}, {"device_id": device_id + 1000}):
        assert_error(
            bob.post("/mobile_push/e2ee/test_notification", **params),
            "No active registered push device",
            "NO_ACTIVE_PUSH_DEVICE",
        )
    assert_error(
        bob.post("/mobile_push/e2ee/test_notification", device_id="x"),
        "device_id is not valid JSON",
        "BAD_REQUEST",
    )
    stub.fail_next = [500]
    assert_error(
        bob.post("/mobile_push/e2ee/test_notification"),
        "Internal server error on Zulip push notification service, retry later.",
        "INTERNAL_SERVER_ERROR_ON_BOUNCER",
        502,
    )
    stub.fail_next = [401]
    assert_error(
        bob.post("/mobile_push/e2ee/test_notification"),
        "Push notification configuration issue on server, contact the server"
        " administrator or retry later.",
        "ADMIN_ACTION_REQUIRED",
        403,
    )
    assert len(stub.payloads(2)) == 2


def test_unreachable_push_service_is_failed_to_connect(
    stub: PushServiceStub, start_server: Callable[..., ServerProcess]
) -> None:
    server = start_server({"TEAMCHAT_PUSH_SERVICE_URL": f"http://127.0.0.1:{free_port()}"})
    owner = Api(server.url, server.owner_email, server.owner_key)
    bob = _person(server, owner, "Bob")
    _register(bob, stub, Phone("bob-token"))
    assert_error(
        bob.post("/mobile_push/e2ee/test_notification"),
        "Network error while connecting to Zulip push notification service.",
        "FAILED_TO_CONNECT_BOUNCER",
        502,
    )


def test_legacy_test_notification(
    stub: PushServiceStub, world: tuple[ServerProcess, Api, Api, Api, Api]
) -> None:
    server, _, _, bob, _ = world
    bob.ok("POST", "/users/me/android_gcm_reg_id", token="fcm-legacy")
    bob.ok("POST", "/users/me/apns_device_token", token="abcd", appid="org.zulip.Zulip")
    bob.ok("POST", "/mobile_push/test_notification", token="fcm-legacy")
    path, body = stub.requests[-1]
    assert path == LEGACY_TEST
    assert (body["token"], body["token_kind"], body["user_id"]) == ("fcm-legacy", 2, _uid(bob))
    assert body["base_payload"]["realm_url"] == server.url
    bob.ok("POST", "/mobile_push/test_notification")
    assert [b["token_kind"] for _, b in stub.requests[-2:]] == [2, 1]
    assert_error(
        bob.post("/mobile_push/test_notification", token="unknown"),
        "Device not recognized",
        "INVALID_PUSH_DEVICE_TOKEN",
    )
    stub.gone_tokens.add("abcd")
    assert_error(
        bob.post("/mobile_push/test_notification", token="abcd"),
        "Device not recognized by the push bouncer",
        "INVALID_REMOTE_PUSH_DEVICE_TOKEN",
    )


def test_test_notifications_need_a_push_service(make_user: Callable[..., Api]) -> None:
    user = make_user()
    for path in ("/mobile_push/test_notification", "/mobile_push/e2ee/test_notification"):
        assert_error(
            user.post(path),
            "Server is not configured to use push notification service.",
            "PUSH_SERVICE_NOT_CONFIGURED",
        )


def test_channel_settings_followed_and_muted_topics(
    stub: PushServiceStub, world: tuple[ServerProcess, Api, Api, Api, Api]
) -> None:
    _, owner, alice, bob, _ = world
    _register(bob, stub, Phone("bob-token"))
    subscribe(owner, "loud", principals=json.dumps([_uid(alice), _uid(bob)]))
    sid = stream_id(owner, "loud")

    def send(topic: str, content: str) -> int:
        return int(
            alice.ok("POST", "/messages", type="stream", to=sid, topic=topic, content=content)["id"]
        )

    # Channel notifications are off by default; Bob turns them on for this channel.
    send("a", "quiet")
    bob.ok(
        "POST",
        "/users/me/subscriptions/properties",
        subscription_data=json.dumps(
            [{"stream_id": sid, "property": "push_notifications", "value": True}]
        ),
    )
    loud = send("a", "loud now")
    assert [p["message_id"] for _, _, p in stub.payloads(1)] == [loud]
    # A muted topic silences channel notifications and wildcard mentions, not mentions.
    bob.ok("POST", "/user_topics", stream_id=sid, topic="b", visibility_policy=1)
    send("b", "muted chatter")
    send("b", "@**all** muted wildcard")
    named = send("b", "@**Bob** still you")
    _settle(stub, 2)
    assert stub.payloads(2)[1][2]["message_id"] == named
    # A followed topic notifies even with channel notifications off.
    bob.ok(
        "POST",
        "/users/me/subscriptions/properties",
        subscription_data=json.dumps(
            [{"stream_id": sid, "property": "push_notifications", "value": False}]
        ),
    )
    send("c", "not followed")
    bob.ok("POST", "/user_topics", stream_id=sid, topic="c", visibility_policy=3)
    followed = send("c", "followed now")
    _settle(stub, 3)
    assert stub.payloads(3)[2][2]["message_id"] == followed


def test_an_edit_that_mentions_someone_notifies_them_once(
    stub: PushServiceStub, world: tuple[ServerProcess, Api, Api, Api, Api]
) -> None:
    _, owner, alice, bob, _ = world
    _register(bob, stub, Phone("bob-token"))
    subscribe(owner, "edits", principals=json.dumps([_uid(alice), _uid(bob)]))
    sid = stream_id(owner, "edits")
    mid = alice.ok("POST", "/messages", type="stream", to=sid, topic="t", content="draft")["id"]
    dm = alice.ok("POST", "/messages", type="direct", to=json.dumps([_uid(bob)]), content="x")["id"]
    assert len(stub.payloads(1)) == 1
    alice.ok("PATCH", f"/messages/{mid}", content="ping @**Bob**")
    [_, (_, _, edited)] = stub.payloads(2)
    assert (edited["message_id"], edited["content"], edited["topic"]) == (mid, "ping @Bob", "t")
    # Mentioned already, or a direct message (notified when sent): no second notification.
    alice.ok("PATCH", f"/messages/{mid}", content="ping @**Bob** again")
    alice.ok("PATCH", f"/messages/{dm}", content="x @**Bob**")
    _settle(stub, 2)
    # Reading it removes the notification the edit raised.
    bob.ok("POST", "/messages/flags", messages=json.dumps([mid]), op="add", flag="read")
    assert stub.payloads(3)[2][2]["message_ids"] == [mid]


def test_a_limited_guest_is_pushed_an_unknown_sender(
    stub: PushServiceStub, world: tuple[ServerProcess, Api, Api, Api, Api]
) -> None:
    """A guest who may not access a channel message's sender (it writes without being
    subscribed) gets the "Unknown user" placeholder's name and avatar, as in its clients."""
    server, owner, alice, bob, carol = world
    groups = owner.ok("GET", "/user_groups")["user_groups"]
    members = next(g["id"] for g in groups if g["name"] == "role:members")
    owner.ok("PATCH", "/realm", can_access_all_users_group=json.dumps({"new": members}))
    owner.ok("PATCH", f"/users/{_uid(bob)}", role=600)
    names = [s["name"] for s in bob.ok("GET", "/users/me/subscriptions")["subscriptions"]]
    bob.ok("DELETE", "/users/me/subscriptions", subscriptions=json.dumps(names))
    subscribe(owner, "guest-push", principals=json.dumps([_uid(bob), _uid(alice)]))
    _register(bob, stub, Phone("guest-token"))
    sid = stream_id(owner, "guest-push")
    carol.ok("POST", "/messages", type="stream", to=sid, topic="t", content="@**Bob** hi")
    alice.ok("POST", "/messages", type="stream", to=sid, topic="t", content="@**Bob** hey")
    unknown, known = (p for _, _, p in stub.payloads(2))
    assert (unknown["sender_id"], unknown["sender_full_name"]) == (_uid(carol), "Unknown user")
    assert unknown["sender_avatar_url"] == server.url + "/static/images/unknown-user-avatar.png"
    assert (known["sender_id"], known["sender_full_name"]) == (_uid(alice), "Alice")
    _as_the_app_reads(unknown)
    _settle(stub, 2)

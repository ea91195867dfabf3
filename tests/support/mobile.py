"""Talking to the server as the mobile app (zulip-flutter) does, and decoding as it decodes.

Flutter JSON-encodes every parameter except the strings it wraps in `RawParameter` (message
content, topics, anchors, ops, flags, emoji names); `Api` already sends strings raw and JSON-
encodes the rest, so a JSON string parameter is passed here pre-encoded (`json.dumps`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TypeVar

from tests.support.api import Api, assert_success
from tests.support.channels import subscribe, unique_name
from tests.support.flutter_types import decode
from tests.support.realm_emoji import PNG

T = TypeVar("T")

CAPABILITIES = [
    "notification_settings_null",
    "bulk_message_deletion",
    "user_avatar_url_field_optional",
    "stream_typing_notifications",
    "user_settings_object",
    "include_deactivated_groups",
    "empty_topic_name",
    "individual_emoji_changes",
]
# UpdateMachine.load: POST /register, no event_types and no fetch_event_types.
REGISTER: dict[str, Any] = {
    "idle_queue_timeout": json.dumps("mobile"),
    "apply_markdown": True,
    "client_gravatar": False,
    "slim_presence": True,
    "client_capabilities": dict.fromkeys(CAPABILITIES, True),
}


def call(api: Api, method: str, path: str, kind: type[T], **params: Any) -> T:
    """One request: a 200 success that matches Zulip's OpenAPI, decoded as the app decodes."""
    response = api.request(method, path, **params)
    assert_success(response, method, path)
    return decode(response.content, kind)


def events(api: Api, queue_id: str, last_event_id: int = -1) -> list[dict[str, Any]]:
    """Everything queued (the app polls with queue_id and last_event_id)."""
    body = api.ok("GET", "/events", queue_id=queue_id, last_event_id=last_event_id, dont_block=True)
    return list(body["events"])


@dataclass
class World:
    """Data the app's user (alice) sees: people, a channel, messages, and per-user settings."""

    owner: Api
    alice: Api
    bob: Api
    carol: Api
    channel: str
    channel_id: int
    topic_message: int
    dm_message: int
    group_dm_message: int


def build_world(owner: Api, make_user: Any) -> World:
    """Users, a channel with messages, a reaction, a star, a status, alert words, a muted
    user, a custom profile field, a custom emoji and a channel folder: every snapshot key
    the app needs then carries real data."""
    alice, bob = make_user(full_name="Mobile Alice"), make_user(full_name="Mobile Bob")
    carol = make_user(full_name="Mobile Carol")
    channel = unique_name("mobile")
    people = [alice.user_id, bob.user_id, carol.user_id]
    subscribe(owner, channel, principals=people)
    channel_id = assert_success(owner.get("/get_stream_id", stream=channel))["stream_id"]
    for person in (alice, bob, carol):  # the channel's first notice, as if seen
        person.ok("POST", "/mark_stream_as_read", stream_id=channel_id)
    topic = bob.ok(
        "POST",
        "/messages",
        type="stream",
        to=channel,
        topic="lunch",
        content=f"@**Mobile Alice|{alice.user_id}** :smile:",
    )["id"]
    dm = bob.ok("POST", "/messages", type="private", to=[alice.user_id], content="hi")["id"]
    group = bob.ok(
        "POST", "/messages", type="private", to=[alice.user_id, carol.user_id], content="all"
    )["id"]
    bob.ok(
        "POST",
        f"/messages/{topic}/reactions",
        emoji_name="zulip",
        emoji_code="zulip",
        reaction_type="zulip_extra_emoji",
    )
    bob.ok("POST", f"/messages/{topic}/reactions", emoji_name="smile")
    alice.ok("POST", "/messages/flags", messages=[topic], op="add", flag="starred")
    alice.ok("POST", "/users/me/alert_words", alert_words=["deploy"])
    alice.ok("POST", "/saved_snippets", title="Thanks", content="Thank you!")
    alice.ok("POST", f"/users/me/muted_users/{carol.user_id}")
    alice.ok("POST", "/user_topics", stream_id=channel_id, topic="lunch", visibility_policy=3)
    bob.ok("POST", "/users/me/status", status_text="on a train", emoji_name="train")
    bob.ok("POST", "/users/me/presence", status="active")
    owner.ok("POST", "/realm/profile_fields", name=unique_name("Pronouns"), field_type=8)
    owner.http.post(f"/realm/emoji/{unique_name('party')}", files={"f": ("e.png", PNG)})
    owner.ok("POST", "/channel_folders/create", name=unique_name("Folder"), description="")
    return World(owner, alice, bob, carol, channel, channel_id, topic, dm, group)

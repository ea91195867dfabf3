"""Messages meet the rest of the organization: linkifiers, custom emoji, alert words, muted
users, user group mentions, channel folders and Markdown channel descriptions."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from tests.support import rawdb
from tests.support.api import Api, assert_error
from tests.support.channels import Queue, stream_id, subscribe, unique_name
from tests.support.realm_emoji import upload_ok
from tests.support.server import ServerProcess

MakeUser = Callable[..., Api]
_numbers = itertools.count(1)


def send(api: Api, channel: str, topic: str, content: str) -> int:
    body = api.ok("POST", "/messages", type="stream", to=channel, topic=topic, content=content)
    return int(body["id"])


def test_linkifiers_apply_to_content_and_topics(owner: Api, make_user: MakeUser) -> None:
    prefix = f"LNK{next(_numbers)}Z"
    owner.ok(
        "POST",
        "/realm/filters",
        pattern=f"{prefix}-(?P<id>[0-9]+)",
        url_template=f"https://bugs.example.com/{prefix}/{{id}}",
    )
    alice = make_user("Alice Links")
    name = unique_name("Links")
    subscribe(alice, name)
    message_id = send(alice, name, f"fix {prefix}-12", f"see {prefix}-7")
    message = alice.ok("GET", f"/messages/{message_id}")["message"]
    assert f"https://bugs.example.com/{prefix}/7" in message["content"]
    assert message["topic_links"] == [
        {"text": f"{prefix}-12", "url": f"https://bugs.example.com/{prefix}/12"}
    ]


def test_custom_emoji_reactions(owner: Api, make_user: MakeUser) -> None:
    emoji_name = f"party{next(_numbers)}"
    emoji = upload_ok(owner, emoji_name)
    alice = make_user("Alice Custom")
    name = unique_name("Custom")
    subscribe(alice, name)
    message_id = send(alice, name, "t", f"a :{emoji_name}: here")
    assert "emoji" in alice.ok("GET", f"/messages/{message_id}")["message"]["content"]
    assert_error(
        alice.post(
            f"/messages/{message_id}/reactions",
            emoji_name="other",
            emoji_code=emoji["id"],
            reaction_type="realm_emoji",
        ),
        "Invalid custom emoji name.",
    )
    alice.ok("POST", f"/messages/{message_id}/reactions", emoji_name=emoji_name)
    [reaction] = alice.ok("GET", f"/messages/{message_id}")["message"]["reactions"]
    assert reaction["reaction_type"] == "realm_emoji" and reaction["emoji_code"] == emoji["id"]
    alice.ok(
        "DELETE",
        f"/messages/{message_id}/reactions",
        emoji_code=emoji["id"],
        reaction_type="realm_emoji",
    )


def test_alert_words_and_muted_senders(server: ServerProcess, make_user: MakeUser) -> None:
    alice, bob, carol = make_user("Alice Alert"), make_user("Bob Alert"), make_user("Carol Alert")
    name = unique_name("Alerts")
    subscribe(bob, name, principals=[alice.user_id, bob.user_id, carol.user_id])  # type: ignore[attr-defined]
    rawdb.query(
        server.db,
        "INSERT INTO alert_word (user_id, word) VALUES (?, 'pineapple')",
        (alice.user_id,),  # type: ignore[attr-defined]
    )
    rawdb.query(
        server.db,
        "INSERT INTO muted_user (user_id, muted_user_id, date_muted) VALUES (?, ?, 0)",
        (carol.user_id, bob.user_id),  # type: ignore[attr-defined]
    )
    alice_queue, carol_queue = (
        Queue(alice, event_types=["message"]),
        Queue(carol, event_types=["message"]),
    )
    send(bob, name, "t", "who likes Pineapple pizza")
    assert alice_queue.events()[0]["flags"] == ["has_alert_word"]
    assert carol_queue.events()[0]["flags"] == ["read"]


def test_user_group_mentions(owner: Api, make_user: MakeUser) -> None:
    alice, bob = make_user("Alice Group"), make_user("Bob Group")
    group = f"crew{next(_numbers)}"
    owner.ok("POST", "/user_groups/create", name=group, description="d", members=[bob.user_id])  # type: ignore[attr-defined]
    name = unique_name("GroupMention")
    subscribe(alice, name, principals=[alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    queue = Queue(bob, event_types=["message"], apply_markdown=True)
    send(alice, name, "t", f"hello @*{group}*")
    [event] = queue.events()
    assert event["flags"] == ["mentioned"]
    assert "user-group-mention" in event["message"]["content"]


def test_channel_folders_and_rendered_descriptions(owner: Api) -> None:
    folder = owner.ok(
        "POST", "/channel_folders/create", name=f"Messaging folder {next(_numbers)}", description=""
    )["channel_folder_id"]
    name = unique_name("Foldered")
    owner.ok(
        "POST",
        "/users/me/subscriptions",
        subscriptions=[{"name": name, "description": "**bold** words"}],
        folder_id=folder,
    )
    sid = stream_id(owner, name)
    stream = owner.ok("GET", f"/streams/{sid}")["stream"]
    assert stream["folder_id"] == folder
    assert stream["rendered_description"] == "<p><strong>bold</strong> words</p>"
    queue = Queue(owner, event_types=["stream"])
    owner.ok("PATCH", f"/streams/{sid}", folder_id="null")
    [event] = queue.events()
    assert (event["property"], event["value"]) == ("folder_id", None)
    assert_error(owner.patch(f"/streams/{sid}", folder_id=999999), "Invalid channel folder ID")

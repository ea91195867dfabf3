"""zulip-terminal's requests, as 0.7.0 and HEAD send them, decoded with the keys ZT indexes
(tests/support/terminal_types.py). ZT declares no client capabilities, so it must get the
legacy shapes: presences keyed by email, unread DMs with sender_id, top-level settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec
import pytest

from tests.support import terminal_types as zt
from tests.support.api import Api, assert_success
from tests.support.channels import subscribe, unique_name

NO_UNREAD_ANCHOR = 10000000000000000


@dataclass
class Terminal:
    zoe: Api
    yan: Api
    channel: str
    channel_id: int
    topic_message: int
    dm_message: int


@pytest.fixture(scope="module")
def terminal(owner: Api, make_user: Any) -> Terminal:
    zoe, yan = make_user(full_name="Term Zoe"), make_user(full_name="Term Yan")
    channel = unique_name("terminal")
    subscribe(owner, channel, principals=[zoe.user_id, yan.user_id])
    channel_id = owner.ok("GET", "/get_stream_id", stream=channel)["stream_id"]
    zoe.ok("POST", "/mark_stream_as_read", stream_id=channel_id)  # the channel's first notice
    topic = yan.ok("POST", "/messages", type="stream", to=channel, topic="t1", content="**hi**")
    dm = yan.ok("POST", "/messages", type="private", to=[zoe.email], content="psst")
    yan.ok("POST", f"/messages/{topic['id']}/reactions", emoji_name="zulip", emoji_code="zulip",
           reaction_type="zulip_extra_emoji")  # fmt: skip
    zoe.ok("POST", "/user_topics", stream_id=channel_id, topic="muted", visibility_policy=1)
    yan.ok("POST", "/users/me/presence", status="active", new_user_input=True)
    return Terminal(zoe, yan, channel, channel_id, topic["id"], dm["id"])


@pytest.mark.parametrize(
    ("params", "kind"),
    [(zt.REGISTER_0_7_0, zt.InitialData), (zt.REGISTER_HEAD, zt.InitialDataHead)],
    ids=["0.7.0", "HEAD"],
)
def test_register_gives_the_legacy_shapes(
    terminal: Terminal, params: dict[str, Any], kind: type[zt.InitialData]
) -> None:
    t = terminal
    response = t.zoe.request("POST", "/register", **params)
    assert_success(response, "POST", "/register")
    data = msgspec.json.decode(response.content, type=kind)
    assert data.email == t.zoe.email and data.user_id == t.zoe.user_id  # type: ignore[attr-defined]
    assert t.zoe.user_id in {u.user_id for u in data.realm_users}  # type: ignore[attr-defined]
    yan = data.presences[t.yan.email or ""]
    assert yan["aggregated"].status == "active" and yan["website"].timestamp > 0
    assert [(p.sender_id, p.unread_message_ids) for p in data.unread_msgs.pms] == [
        (t.yan.user_id, [t.dm_message])  # type: ignore[attr-defined]
    ]
    assert [(s.stream_id, s.topic) for s in data.unread_msgs.streams] == [(t.channel_id, "t1")]
    assert [topic[:2] for topic in data.muted_topics] == [(t.channel, "muted")]
    sub = next(s for s in data.subscriptions if s.stream_id == t.channel_id)
    assert sub.in_home_view and not sub.is_muted and t.yan.user_id in sub.subscribers  # type: ignore[attr-defined]
    # No user_settings_object: the legacy top-level copies match the object.
    assert data.twenty_four_hour_time == data.user_settings.twenty_four_hour_time
    assert data.max_message_id >= t.dm_message
    # After BAD_EVENT_QUEUE_ID ZT registers again with event_types only.
    again = t.zoe.request("POST", "/register", event_types=params["event_types"])
    assert_success(again)
    msgspec.json.decode(again.content, type=zt.RegisterAgain)


def test_initial_messages_and_anchor(terminal: Terminal, make_user: Any) -> None:
    t = terminal
    response = t.zoe.request("GET", "/messages", **zt.INITIAL_MESSAGES)
    assert_success(response, "GET", "/messages")
    result = msgspec.json.decode(response.content, type=zt.GetMessages)
    assert result.anchor == t.topic_message  # the first unread message
    by_id = {m.id: m for m in result.messages}
    assert by_id[t.topic_message].content == "<p><strong>hi</strong></p>"
    assert by_id[t.topic_message].reactions[0].reaction_type == "zulip_extra_emoji"
    dm = by_id[t.dm_message].display_recipient
    assert isinstance(dm, list) and {r.email for r in dm} == {t.zoe.email, t.yan.email}
    # Nothing unread: the anchor ZT recognises as "no unread message".
    fresh = make_user(full_name="Term Reader")
    fresh.ok("POST", "/mark_all_as_read")
    body = msgspec.json.decode(
        fresh.request("GET", "/messages", **zt.INITIAL_MESSAGES).content, type=zt.GetMessages
    )
    assert body.anchor == NO_UNREAD_ANCHOR


def test_narrows_zt_sends(terminal: Terminal) -> None:
    t = terminal
    pm_with = f"{t.yan.email}, {t.zoe.email}"
    narrows: list[tuple[list[Any], int]] = [
        ([["stream", t.channel]], t.topic_message),
        ([["stream", t.channel], ["topic", "t1"]], t.topic_message),
        ([["is", "private"]], t.dm_message),
        ([["pm-with", pm_with]], t.dm_message),
        ([["is", "private"], ["search", "psst"]], t.dm_message),
        ([["stream", t.channel], ["search", "hi"]], t.topic_message),
    ]
    for narrow, expected in narrows:
        body = t.zoe.ok(
            "GET", "/messages", anchor=10000000000, num_before=30, num_after=0,
            apply_markdown=True, client_gravatar=True, narrow=narrow,
        )  # fmt: skip
        assert expected in [m["id"] for m in body["messages"]], narrow
    latest = t.zoe.ok(
        "GET", "/messages", anchor=NO_UNREAD_ANCHOR, num_before=1, num_after=0,
        narrow=[{"operator": "stream", "operand": t.channel_id},
                {"operator": "topic", "operand": "t1"}],
    )  # fmt: skip
    assert [m["id"] for m in latest["messages"]] == [t.topic_message]
    single = t.zoe.ok("GET", f"/messages/{t.topic_message}", apply_markdown=True)
    assert single["raw_content"] == "**hi**"


def test_events_reach_zt_including_its_own_messages(terminal: Terminal) -> None:
    t = terminal
    queue = t.zoe.ok("POST", "/register", **zt.REGISTER_0_7_0)["queue_id"]
    sent = t.zoe.ok("POST", "/messages", type="stream", to=t.channel, subject="t2",
                    content="from zt", read_by_sender=True)  # fmt: skip
    t.zoe.ok("POST", "/typing", to=[t.yan.user_id], op="start")  # type: ignore[attr-defined]
    t.zoe.ok("POST", "/messages/flags", messages=[sent["id"]], op="add", flag="starred")
    t.zoe.ok("POST", f"/messages/{sent['id']}/reactions", emoji_name="thumbs_up",
             emoji_code="1f44d", reaction_type="unicode_emoji")  # fmt: skip
    t.zoe.ok("PATCH", f"/messages/{sent['id']}", content="edited")
    events = t.zoe.ok("GET", "/events", queue_id=queue, last_event_id=-1, dont_block=True)
    by_type = {e["type"]: e for e in events["events"]}
    event = by_type["message"]
    # Model._handle_message_event: message["flags"] = event.get("flags", [])
    message = msgspec.convert({**event["message"], "flags": event.get("flags", [])}, zt.Message)
    assert message.id == sent["id"] and "read" in message.flags
    flags = by_type["update_message_flags"]
    assert flags["op"] == "add" and flags["all"] is False and flags["messages"] == [sent["id"]]
    reaction = by_type["reaction"]
    assert reaction["user"]["user_id"] == reaction["user_id"] == t.zoe.user_id  # type: ignore[attr-defined]
    edit = by_type["update_message"]
    assert edit["rendered_content"] == "<p>edited</p>" and edit["is_me_message"] is False
    presence = t.zoe.ok("POST", "/users/me/presence", status="active", new_user_input=True)
    legacy = msgspec.convert(presence["presences"], dict[str, dict[str, zt.ClientPresence]])
    assert t.yan.email in legacy

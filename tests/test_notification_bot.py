"""The Notification Bot: a system bot in cross_realm_bots, and its subscription messages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.support.api import Api
from tests.support.channels import stream_id, subscribe, unique_name

MakeUser = Callable[..., Api]


def _last_dm(api: Api, other_email: str) -> dict[str, Any] | None:
    found = api.ok(
        "GET",
        "/messages",
        anchor="newest",
        num_before=5,
        num_after=0,
        narrow=[{"operator": "dm", "operand": [other_email]}],
        apply_markdown=False,
    )["messages"]
    return found[-1] if found else None


def _bot(api: Api, name: str) -> dict[str, Any]:
    state = api.ok("POST", "/register", fetch_event_types=["realm_user"])
    bots = {b["full_name"]: b for b in state["cross_realm_bots"]}
    assert name not in {u["full_name"] for u in state["realm_users"]}
    return bots[name]  # type: ignore[no-any-return]


def test_system_bots_are_cross_realm_bots(owner: Api) -> None:
    for name in ("Notification Bot", "Welcome Bot"):
        bot = _bot(owner, name)
        assert bot["is_system_bot"] and bot["is_bot"] and bot["bot_type"] == 1
        assert bot["bot_owner_id"] is None and "profile_data" not in bot
    realm_bots = owner.ok("POST", "/register", fetch_event_types=["realm_bot"])["realm_bots"]
    assert "Notification Bot" not in {b["full_name"] for b in realm_bots}


def test_someone_else_subscribing_you_sends_a_direct_message(make_user: MakeUser) -> None:
    alice, bob = make_user("Alice Notify"), make_user("Bob Notify")
    bot_email = _bot(alice, "Notification Bot")["email"]
    first, second = unique_name("NotifyA"), unique_name("NotifyB")
    subscribe(alice, first, second)
    subscribe(alice, first, principals=[bob.user_id])  # type: ignore[attr-defined]
    message = _last_dm(bob, bot_email)
    assert message is not None and message["sender_email"] == bot_email
    mention = f"@**Alice Notify|{alice.user_id}**"  # type: ignore[attr-defined]
    assert message["content"] == f"{mention} subscribed you to the channel #**{first}**."
    subscribe(alice, first, second, principals=[bob.user_id])  # type: ignore[attr-defined]
    message = _last_dm(bob, bot_email)
    assert message is not None
    assert message["content"] == f"{mention} subscribed you to the channel #**{second}**."

    third, fourth = unique_name("NotifyC"), unique_name("NotifyD")
    subscribe(alice, third, fourth)
    before = _last_dm(bob, bot_email)
    subscribe(
        alice,
        third,
        fourth,
        principals=[bob.user_id],
        send_new_subscription_messages=False,  # type: ignore[attr-defined]
    )
    assert _last_dm(bob, bot_email) == before
    subscribe(alice, fourth, third, principals=[bob.user_id, alice.user_id])  # type: ignore[attr-defined]
    assert _last_dm(bob, bot_email) == before  # already subscribed: nothing new

    carol = make_user("Carol Notify")
    subscribe(alice, third, fourth, principals=[carol.user_id])  # type: ignore[attr-defined]
    message = _last_dm(carol, bot_email)
    assert message is not None
    assert message["content"] == (
        f"{mention} subscribed you to the following channels:\n\n* #**{third}**\n* #**{fourth}**"
    )
    # New channels: no direct message; subscribing yourself: none either.
    dave = make_user("Dave Notify")
    subscribe(alice, unique_name("NotifyNew"), principals=[dave.user_id])  # type: ignore[attr-defined]
    subscribe(dave, third)
    assert _last_dm(dave, bot_email) is None


def test_announce_posts_in_the_new_channel_announcements_channel(
    owner: Api, make_user: MakeUser
) -> None:
    alice = make_user("Alice Announce")
    announcements = unique_name("Announcements")
    subscribe(owner, announcements)
    sid = stream_id(owner, announcements)
    owner.ok("PATCH", "/realm", new_stream_announcements_stream_id=sid)
    one, two, three = (unique_name("Announced") for _ in range(3))
    subscribe(alice, one, announce=True)
    subscribe(alice, two, three, announce=True)
    subscribe(alice, unique_name("Quiet"))
    found = owner.ok(
        "GET",
        "/messages",
        anchor="newest",
        num_before=10,
        num_after=0,
        narrow=[
            {"operator": "channel", "operand": sid},
            {"operator": "topic", "operand": "new channels"},
        ],
        apply_markdown=False,
    )["messages"]
    mention = f"@_**Alice Announce|{alice.user_id}**"  # type: ignore[attr-defined]
    assert [(m["subject"], m["content"], m["sender_full_name"]) for m in found] == [
        ("new channels", f"{mention} created a new channel #**{one}**.", "Notification Bot"),
        (
            "new channels",
            f"{mention} created the following channels: #**{two}**, #**{three}**.",
            "Notification Bot",
        ),
    ]
    owner.ok("PATCH", "/realm", new_stream_announcements_stream_id=-1)


def _topic(api: Api, channel: str, topic: str) -> list[tuple[str, str]]:
    found = api.ok(
        "GET",
        "/messages",
        anchor="newest",
        num_before=20,
        num_after=0,
        narrow=[
            {"operator": "channel", "operand": channel},
            {"operator": "topic", "operand": topic},
        ],
        apply_markdown=False,
    )["messages"]
    return [(m["sender_full_name"], m["content"]) for m in found]


def test_moves_leave_breadcrumbs_and_resolving_posts_a_notice(make_user: MakeUser) -> None:
    alice = make_user("Alice Mover")
    channel = unique_name("Moves")
    subscribe(alice, channel)
    sid = stream_id(alice, channel)
    ids = [
        alice.ok("POST", "/messages", type="stream", to=channel, topic="t1", content=f"m{i}")["id"]
        for i in range(3)
    ]
    me = f"@_**Alice Mover|{alice.user_id}**"  # type: ignore[attr-defined]
    bot = "Notification Bot"
    alice.ok("PATCH", f"/messages/{ids[0]}", topic="t2", send_notification_to_old_thread=True)
    realm_url = alice.ok("GET", "/server_settings")["realm_url"]
    link = f"{realm_url}/#narrow/channel/{sid}-{channel}/topic/t2/near/{ids[0]}"
    assert _topic(alice, channel, "t2")[-1] == (
        bot,
        f"[A message]({link}) was moved here from #**{channel}>t1** by {me}.",
    )
    assert _topic(alice, channel, "t1")[-1] == (
        bot,
        f"A message was moved from this topic to #**{channel}>t2** by {me}.",
    )
    # Moving the rest (the breadcrumb included) with change_all: the whole topic moved.
    alice.ok("PATCH", f"/messages/{ids[1]}", topic="t3", propagate_mode="change_all")
    t3 = _topic(alice, channel, "t3")
    assert t3[-1] == (bot, f"This topic was moved here from #**{channel}>t1** by {me}.")
    assert len(t3) == 4
    assert _topic(alice, channel, "t1") == []
    alice.ok(
        "PATCH",
        f"/messages/{ids[1]}",
        topic="t4",
        propagate_mode="change_all",
        send_notification_to_new_thread=False,
    )
    assert _topic(alice, channel, "t4") == t3  # no new breadcrumb

    alice.ok("PATCH", f"/messages/{ids[1]}", topic="✔ t4", propagate_mode="change_all")
    assert _topic(alice, channel, "✔ t4")[-1] == (bot, f"{me} has marked this topic as resolved.")
    alice.ok("PATCH", f"/messages/{ids[1]}", topic="t4", propagate_mode="change_all")
    resolved = _topic(alice, channel, "t4")
    assert resolved[-1] == (bot, f"{me} has marked this topic as unresolved.")
    assert not [c for _, c in resolved if "moved" in c and "t3" in c and "t4" in c]


def test_new_channels_start_with_a_channel_events_message(owner: Api, make_user: MakeUser) -> None:
    alice = make_user("Alice Creator")
    bob = make_user("Bob Subscriber")
    mention = f"@_**Alice Creator|{alice.user_id}**"  # type: ignore[attr-defined]
    cases = [
        ({}, "Public", "Team notes"),
        ({"invite_only": True}, "Private, protected history", ""),
        (
            {"invite_only": True, "history_public_to_subscribers": True},
            "Private, shared history",
            "Secret *things*",
        ),
    ]
    for options, policy, description in cases:
        name = unique_name("Created")
        alice.ok(
            "POST",
            "/users/me/subscriptions",
            subscriptions=[{"name": name, "description": description}],
            principals=[alice.user_id, bob.user_id],  # type: ignore[attr-defined]
            **options,
        )
        shown = description or "*No description.*"
        [message] = alice.ok(
            "GET",
            "/messages",
            anchor="oldest",
            num_before=0,
            num_after=5,
            narrow=[{"operator": "channel", "operand": name}],
            apply_markdown=False,
        )["messages"]
        assert (message["subject"], message["sender_full_name"]) == (
            "channel events",
            "Notification Bot",
        )
        assert message["content"] == (
            f"**{policy}** channel created by {mention}. **Description:**\n"
            f"```` quote\n{shown}\n````"
        )
        # Read for the creator, unread for the others.
        assert "read" in message["flags"]
        [seen] = bob.ok("GET", "/messages", anchor=message["id"], num_before=0, num_after=0)[
            "messages"
        ]
        assert "read" not in seen["flags"]

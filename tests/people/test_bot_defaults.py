"""Bots' default channels: set, shown, changed, cleared, and honoured by send and register."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable

from tests.support.api import Api, assert_error
from tests.support.channels import Queue, stream_id, subscribe, unique_name
from tests.support.people import bot_api, verify
from tests.support.server import ServerProcess


def test_default_channels(make_user: Callable[..., Api], server: ServerProcess) -> None:
    creator, other = make_user(full_name="Defaults Maker"), make_user(full_name="Defaults Other")
    news, secret = unique_name("News"), unique_name("Secret")
    subscribe(creator, news)
    subscribe(other, secret, invite_only="true")
    short = f"d{uuid.uuid4().hex[:8]}"
    assert_error(
        creator.post("/users/me/bots", full_name="Nope Bot", short_name=short,
                     default_sending_stream=secret),
        f"Invalid channel name '{secret}'",
    )  # fmt: skip
    created: list[dict] = []  # type: ignore[type-arg]
    [added, *_] = verify(
        creator,
        lambda: created.append(creator.ok(
            "POST", "/users/me/bots", full_name="News Bot", short_name=short,
            default_sending_stream=news, default_events_register_stream=news,
            default_all_public_streams="false",
        )),
        event_types=["realm_bot"],
    )  # fmt: skip
    body = created[0]
    assert (body["default_sending_stream"], body["default_events_register_stream"]) == (news, news)
    assert added["bot"]["default_sending_stream"] == news
    [listed] = [
        b for b in creator.ok("GET", "/users/me/bots")["bots"] if b["user_id"] == body["user_id"]
    ]
    assert listed["default_events_register_stream"] == news
    host = creator.ok("POST", "/register", fetch_event_types=["realm"])["realm_bot_domain"]
    bot = bot_api(server.url, body, f"{short}-bot@{host}")
    # A queue registered without a narrow follows the default channel only.
    queue = Queue(bot, event_types=["message"])
    elsewhere = unique_name("Elsewhere")
    subscribe(creator, elsewhere, principals=json.dumps([creator.user_id, body["user_id"]]))  # type: ignore[attr-defined]
    subscribe(creator, news, principals=json.dumps([body["user_id"]]))
    creator.ok("POST", "/messages", type="stream", to=elsewhere, topic="t", content="not this")
    # A channel message without `to` goes to the default channel.
    sent = bot.ok("POST", "/messages", type="stream", topic="headlines", content="extra!")["id"]
    [event] = queue.events()
    assert event["message"]["id"] == sent and event["message"]["display_recipient"] == news
    # Changing and clearing, with realm_bot/update events.
    [update] = verify(
        creator,
        lambda: creator.ok("PATCH", f"/bots/{body['user_id']}", default_sending_stream=""),
        event_types=["realm_bot"],
    )
    assert update["bot"] == {"user_id": body["user_id"], "default_sending_stream": None}
    assert_error(bot.post("/messages", type="stream", topic="t", content="x"), "Missing channel")
    assert_error(
        creator.patch(f"/bots/{body['user_id']}", default_events_register_stream=secret),
        f"Invalid channel name '{secret}'",
    )
    state = creator.ok("POST", "/register", fetch_event_types=["realm_bot"])
    [mine] = [b for b in state["realm_bots"] if b["user_id"] == body["user_id"]]
    assert (mine["default_sending_stream"], mine["default_events_register_stream"]) == (None, news)
    assert stream_id(creator, news)

"""Embedded bots: zulip_bots bots run by the server (in their own process) when mentioned or
sent a direct message; their storage persists; a broken bot harms nothing."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

from tests.support.api import Api
from tests.support.channels import stream_id, subscribe, unique_name

MakeUser = Callable[..., Api]


def _bot(owner: Api, service: str, name: str) -> dict[str, Any]:
    return owner.ok(
        "POST",
        "/users/me/bots",
        full_name=name,
        short_name=f"e{uuid.uuid4().hex[:6]}",
        bot_type=4,
        service_name=service,
    )


def _answers(api: Api, narrow: list[dict[str, Any]], bot_id: int, count: int) -> list[Any]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = api.ok(
            "GET",
            "/messages",
            anchor="newest",
            num_before=20,
            num_after=0,
            narrow=json.dumps(narrow),
            apply_markdown="false",
        )["messages"]
        mine = [m for m in found if m["sender_id"] == bot_id]
        if len(mine) >= count:
            return found
        time.sleep(0.2)
    raise AssertionError(f"the bot did not answer: {found}")


def test_helloworld_answers_mentions_and_direct_messages(make_user: MakeUser) -> None:
    owner = make_user("Embedded Owner")
    bot = _bot(owner, "helloworld", "Hello Embedded")
    name = unique_name("Embedded")
    subscribe(owner, name)
    sid = stream_id(owner, name)
    asked = owner.ok(
        "POST", "/messages", type="stream", to=sid, topic="hi", content="@**Hello Embedded** hello"
    )["id"]
    narrow = [{"operator": "channel", "operand": sid}]
    found = _answers(owner, narrow, bot["user_id"], 1)
    reply = next(m for m in found if m["sender_id"] == bot["user_id"])
    assert reply["content"] == "beep boop" and reply["subject"] == "hi"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        reactions = owner.ok("GET", f"/messages/{asked}")["message"]["reactions"]
        if reactions:
            break
        time.sleep(0.2)
    assert [(r["emoji_name"], r["user_id"]) for r in reactions] == [("wave", bot["user_id"])]
    owner.ok("POST", "/messages", type="direct", to=json.dumps([bot["user_id"]]), content="hey")
    dm = _answers(owner, [{"operator": "dm", "operand": [bot["user_id"]]}], bot["user_id"], 1)
    assert any(m["content"] == "beep boop" for m in dm)


def test_storage_persists_between_messages(make_user: MakeUser) -> None:
    owner = make_user("Filesystem Owner")
    bot = _bot(owner, "virtual_fs", "Virtual FS")
    to = json.dumps([bot["user_id"]])
    owner.ok("POST", "/messages", type="direct", to=to, content="mkdir /notes")
    narrow = [{"operator": "dm", "operand": [bot["user_id"]]}]
    _answers(owner, narrow, bot["user_id"], 1)
    owner.ok("POST", "/messages", type="direct", to=to, content="ls /")
    found = _answers(owner, narrow, bot["user_id"], 2)
    listing = [m["content"] for m in found if m["sender_id"] == bot["user_id"]][-1]
    assert "notes" in listing  # the directory made by the first run, from the bot's storage


def test_a_broken_bot_harms_nothing(make_user: MakeUser) -> None:
    owner = make_user("Broken Owner")
    # giphy refuses to start without its API key: its process fails, nothing is posted.
    bot = _bot(owner, "giphy", "Broken Giphy")
    sent = owner.ok(
        "POST", "/messages", type="direct", to=json.dumps([bot["user_id"]]), content="cats"
    )["id"]
    time.sleep(3)
    narrow = json.dumps([{"operator": "dm", "operand": [bot["user_id"]]}])
    found = owner.ok("GET", "/messages", anchor="newest", num_before=5, num_after=0, narrow=narrow)[
        "messages"
    ]
    assert [m["id"] for m in found] == [sent]
    assert owner.ok("GET", "/users/me")["user_id"]

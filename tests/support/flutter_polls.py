"""zulip-flutter's poll decoding (lib/api/model/submessage.dart), mirrored strictly.

The app parses a message's `submessages` into a poll: the first is the widget data, each
later one a poll event decoded by its `type` (an unknown type throws); a vote's key must be
"<sender id or canned>,<index>". A value that would throw there raises here.
"""

from __future__ import annotations

import json
from typing import Any

from msgspec import Struct, convert, field

MAX_IDX = 1000


class Submessage(Struct):
    sender_id: int
    msg_type: str
    content: str


class PollExtraData(Struct):
    question: str = ""
    options: list[str] = field(default_factory=list)


class PollWidgetData(Struct):
    widget_type: str
    extra_data: PollExtraData


class NewOption(Struct):
    type: str
    option: str
    idx: int


class Question(Struct):
    type: str
    question: str


class Vote(Struct):
    type: str
    key: str
    vote: int


EVENTS: dict[str, type[Struct]] = {"new_option": NewOption, "question": Question, "vote": Vote}


class Poll(Struct):
    question: str
    # option key -> [text, voter ids]
    options: dict[str, tuple[str, set[int]]]


def _vote_key_parts(key: str) -> None:
    sender, idx = key.split(",")  # exactly two parts, as the app's destructuring demands
    if sender != "canned":
        int(sender)
    int(idx)


def parse_poll(raw: list[dict[str, Any]], message_sender_id: int) -> Poll | None:
    """The poll the app shows for a message's submessages (None: not a poll)."""
    submessages = [convert(item, Submessage) for item in raw]
    if not submessages:
        return None
    assert submessages[0].sender_id == message_sender_id
    first = json.loads(submessages[0].content)
    if first["widget_type"] != "poll":
        return None
    widget = convert(first, PollWidgetData)
    poll = Poll(question=widget.extra_data.question, options={})
    for index, option in enumerate(widget.extra_data.options):
        poll.options[f"canned,{index}"] = (option, set())
    for submessage in submessages[1:]:
        apply_event(poll, submessage.sender_id, json.loads(submessage.content), message_sender_id)
    return poll


def apply_event(poll: Poll, sender_id: int, data: dict[str, Any], message_sender_id: int) -> None:
    """One poll event as the app applies it (from history or a live `submessage` event)."""
    event = convert(data, EVENTS[data["type"]])
    if isinstance(event, NewOption):
        if 0 <= event.idx <= MAX_IDX:
            poll.options.setdefault(f"{sender_id},{event.idx}", (event.option, set()))
    elif isinstance(event, Question):
        if sender_id == message_sender_id:
            poll.question = event.question
    elif isinstance(event, Vote):
        _vote_key_parts(event.key)
        if event.key in poll.options and event.vote in (1, -1):
            voters = poll.options[event.key][1]
            (voters.add if event.vote == 1 else voters.discard)(sender_id)

"""Events about custom emoji (`realm_emoji`), and their per-client shape.

Actions publish an Internal* event carrying both the change and the full emoji dict; each
queue gets `add`/`update_one` if its client declared `individual_emoji_changes`, else the
legacy `update` with every emoji (what zulip-terminal and older clients handle).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import msgspec

from teamchat.events.queue import SHAPERS
from teamchat.events.types import Event, JsonDict, register_event_types

if TYPE_CHECKING:
    from teamchat.events.queue import EventQueue


class RealmEmojiObject(msgspec.Struct, kw_only=True):
    """One custom emoji as GET /realm/emoji, register and events show it."""

    id: str
    name: str
    source_url: str
    still_url: str | None
    deactivated: bool
    author_id: int | None


class RealmEmojiUpdateEvent(Event, tag="realm_emoji", kw_only=True):
    op: Literal["update"] = "update"
    # Every custom emoji of the realm (deactivated ones too), keyed by id string.
    realm_emoji: dict[str, RealmEmojiObject]


class RealmEmojiAddEvent(Event, tag="realm_emoji", kw_only=True):
    op: Literal["add"] = "add"
    emoji: RealmEmojiObject


class RealmEmojiUpdateData(msgspec.Struct, kw_only=True):
    deactivated: bool


class RealmEmojiUpdateOneEvent(Event, tag="realm_emoji", kw_only=True):
    op: Literal["update_one"] = "update_one"
    emoji_id: str
    data: RealmEmojiUpdateData


class InternalRealmEmojiAddEvent(RealmEmojiAddEvent, kw_only=True):
    """Published on add; `realm_emoji` feeds the legacy `update` shape."""

    realm_emoji: dict[str, RealmEmojiObject]


class InternalRealmEmojiUpdateOneEvent(RealmEmojiUpdateOneEvent, kw_only=True):
    """Published on deactivation; `realm_emoji` feeds the legacy `update` shape."""

    realm_emoji: dict[str, RealmEmojiObject]


def shape_realm_emoji(queue: EventQueue, event: JsonDict) -> JsonDict:
    """Return this queue's copy: the single change, or the legacy full-dict update."""
    if queue.caps.individual_emoji_changes:
        return {key: value for key, value in event.items() if key != "realm_emoji"}
    return {"type": "realm_emoji", "op": "update", "realm_emoji": event["realm_emoji"]}


register_event_types(RealmEmojiUpdateEvent, RealmEmojiAddEvent, RealmEmojiUpdateOneEvent)
SHAPERS["realm_emoji"] = shape_realm_emoji

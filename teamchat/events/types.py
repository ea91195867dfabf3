"""Event Structs: the shape of every event a queue can carry, tagged by `type`.

Actions build these; the broker turns them into JSON dicts once per publish. Tests decode
delivered events into EVENT_TYPES[type] to check their shape. No SQLite, no awaiting.
"""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

from teamchat.lib.api_types import JsonDict, UserObject

__all__ = ["EVENT_TYPES", "Event", "JsonDict"]


class Event(msgspec.Struct, kw_only=True, tag_field="type"):
    """Base of all events; `id` is assigned per queue on delivery."""


class HeartbeatEvent(Event, tag="heartbeat", kw_only=True):
    pass


class RealmUserAddEvent(Event, tag="realm_user", kw_only=True):
    op: Literal["add"] = "add"
    person: UserObject


class RealmUserRemoveEvent(Event, tag="realm_user", kw_only=True):
    op: Literal["remove"] = "remove"
    person: JsonDict


class RealmUserUpdateEvent(Event, tag="realm_user", kw_only=True):
    op: Literal["update"] = "update"
    # user_id plus exactly the changed fields (SPEC's `person` forms).
    person: JsonDict


class BotObject(msgspec.Struct, kw_only=True):
    user_id: int
    full_name: str
    api_key: str
    default_sending_stream: str | None = None
    default_events_register_stream: str | None = None
    default_all_public_streams: bool = False
    avatar_url: str
    owner_id: int | None
    services: list[JsonDict] = msgspec.field(default_factory=list)
    email: str
    bot_type: int
    is_active: bool = True


class RealmBotAddEvent(Event, tag="realm_bot", kw_only=True):
    op: Literal["add"] = "add"
    bot: BotObject


class RealmBotUpdateEvent(Event, tag="realm_bot", kw_only=True):
    op: Literal["update"] = "update"
    bot: JsonDict


class RealmBotRemoveEvent(Event, tag="realm_bot", kw_only=True):
    op: Literal["remove", "delete"] = "remove"
    bot: JsonDict
    email: str | UnsetType = UNSET


# type -> op (or None) -> Struct, for tests that check delivered events.
EVENT_TYPES: dict[str, dict[str | None, type[Event]]] = {}


def register_event_types(*classes: type[Event]) -> None:
    for cls in classes:
        tag = cls.__struct_config__.tag
        assert isinstance(tag, str)
        ops = [f.default for f in msgspec.structs.fields(cls) if f.name == "op"]
        op = ops[0] if ops and isinstance(ops[0], str) else None
        EVENT_TYPES.setdefault(tag, {})[op] = cls


register_event_types(
    HeartbeatEvent,
    RealmUserAddEvent,
    RealmUserRemoveEvent,
    RealmUserUpdateEvent,
    RealmBotAddEvent,
    RealmBotUpdateEvent,
    RealmBotRemoveEvent,
)


def _load_area_types() -> None:
    """Import every `types_<area>.py` beside this module so EVENT_TYPES is complete."""
    import importlib
    import pkgutil

    from teamchat import events

    for info in pkgutil.iter_modules(events.__path__):
        if info.name.startswith("types_"):
            importlib.import_module(f"teamchat.events.{info.name}")


_load_area_types()

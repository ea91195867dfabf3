"""Events about uploaded files (`attachment`)."""

from __future__ import annotations

from typing import Literal

import msgspec

from teamchat.events.types import Event, register_event_types


class AttachmentMessage(msgspec.Struct, kw_only=True):
    id: int
    date_sent: int


class AttachmentObject(msgspec.Struct, kw_only=True):
    id: int
    name: str
    path_id: str
    size: int
    create_time: int  # milliseconds, as JavaScript's getTime()
    messages: list[AttachmentMessage]


class AttachmentAddEvent(Event, tag="attachment", kw_only=True):
    op: Literal["add"] = "add"
    attachment: AttachmentObject
    upload_space_used: int


class AttachmentUpdateEvent(Event, tag="attachment", kw_only=True):
    op: Literal["update"] = "update"
    attachment: AttachmentObject
    upload_space_used: int


class AttachmentIdOnly(msgspec.Struct, kw_only=True):
    id: int


class AttachmentRemoveEvent(Event, tag="attachment", kw_only=True):
    op: Literal["remove"] = "remove"
    attachment: AttachmentIdOnly
    upload_space_used: int


register_event_types(AttachmentAddEvent, AttachmentUpdateEvent, AttachmentRemoveEvent)

"""Events about a user's scheduled messages and reminders (to that user only)."""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

from teamchat.events.types import Event, register_event_types


class ScheduledMessageObject(msgspec.Struct, kw_only=True, omit_defaults=True):
    scheduled_message_id: int
    type: Literal["stream", "private"]
    to: int | list[int]
    topic: str | UnsetType = UNSET
    content: str
    rendered_content: str
    scheduled_delivery_timestamp: int
    failed: bool


class ReminderObject(msgspec.Struct, kw_only=True):
    reminder_id: int
    # zulip-compat: Zulip's OpenAPI documents /register's reminders as ScheduledMessage
    # objects; carrying both ids satisfies both readings.
    scheduled_message_id: int
    type: Literal["private"]
    to: list[int]
    content: str
    rendered_content: str
    scheduled_delivery_timestamp: int
    failed: bool
    reminder_target_message_id: int


class ScheduledMessagesAddEvent(Event, tag="scheduled_messages", kw_only=True):
    op: Literal["add"] = "add"
    scheduled_messages: list[ScheduledMessageObject]


class ScheduledMessagesUpdateEvent(Event, tag="scheduled_messages", kw_only=True):
    op: Literal["update"] = "update"
    scheduled_message: ScheduledMessageObject


class ScheduledMessagesRemoveEvent(Event, tag="scheduled_messages", kw_only=True):
    op: Literal["remove"] = "remove"
    scheduled_message_id: int


class RemindersAddEvent(Event, tag="reminders", kw_only=True):
    op: Literal["add"] = "add"
    reminders: list[ReminderObject]


class RemindersRemoveEvent(Event, tag="reminders", kw_only=True):
    op: Literal["remove"] = "remove"
    reminder_id: int


register_event_types(
    ScheduledMessagesAddEvent,
    ScheduledMessagesUpdateEvent,
    ScheduledMessagesRemoveEvent,
    RemindersAddEvent,
    RemindersRemoveEvent,
)

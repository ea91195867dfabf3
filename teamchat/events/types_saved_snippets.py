"""Events about a user's saved snippets (`saved_snippets` add/update/remove)."""

from __future__ import annotations

from typing import Literal

import msgspec

from teamchat.events.types import Event, register_event_types


class SavedSnippetObject(msgspec.Struct, kw_only=True):
    id: int
    title: str
    content: str
    date_created: int


class SavedSnippetAddEvent(Event, tag="saved_snippets", kw_only=True):
    op: Literal["add"] = "add"
    saved_snippet: SavedSnippetObject


class SavedSnippetUpdateEvent(Event, tag="saved_snippets", kw_only=True):
    op: Literal["update"] = "update"
    saved_snippet: SavedSnippetObject


class SavedSnippetRemoveEvent(Event, tag="saved_snippets", kw_only=True):
    op: Literal["remove"] = "remove"
    saved_snippet_id: int


register_event_types(SavedSnippetAddEvent, SavedSnippetUpdateEvent, SavedSnippetRemoveEvent)

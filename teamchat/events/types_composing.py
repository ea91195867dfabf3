"""Events about a user's saved snippets and drafts (`saved_snippets`, `drafts`: add, update,
remove; to that user only)."""

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


class DraftObject(msgspec.Struct, kw_only=True):
    id: int
    type: str
    to: list[int]
    topic: str
    content: str
    timestamp: int


class DraftsAddEvent(Event, tag="drafts", kw_only=True):
    op: Literal["add"] = "add"
    drafts: list[DraftObject]


class DraftsUpdateEvent(Event, tag="drafts", kw_only=True):
    op: Literal["update"] = "update"
    draft: DraftObject


class DraftsRemoveEvent(Event, tag="drafts", kw_only=True):
    op: Literal["remove"] = "remove"
    draft_id: int


register_event_types(DraftsAddEvent, DraftsUpdateEvent, DraftsRemoveEvent)

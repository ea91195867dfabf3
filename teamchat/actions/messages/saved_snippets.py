"""Saved snippets: GET/POST /saved_snippets, PATCH/DELETE /saved_snippets/{id}, the
`saved_snippets` events (to the owner only) and register state."""

from __future__ import annotations

import msgspec

from teamchat.actions.state import MAX_MESSAGE_LENGTH, StateContext, state_fetcher
from teamchat.errors import ResourceNotFoundError
from teamchat.events.types_composing import (
    SavedSnippetAddEvent,
    SavedSnippetObject,
    SavedSnippetRemoveEvent,
    SavedSnippetUpdateEvent,
)
from teamchat.lib.validation import clean_text
from teamchat.records import SavedSnippetRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import saved_snippets as snippet_store

MAX_TITLE_LENGTH = 60
NOT_FOUND = "Saved snippet does not exist."


def snippet_object(row: SavedSnippetRow) -> SavedSnippetObject:
    return SavedSnippetObject(
        id=row.id, title=row.title, content=row.content, date_created=row.date_created
    )


@state_fetcher("saved_snippets")
async def _saved_snippets_state(ctx: StateContext) -> None:
    rows = await snippet_store.list_snippets(ctx.conn, ctx.user.id)
    ctx.state["saved_snippets"] = [snippet_object(row) for row in rows]


def clean_title(value: str) -> str:
    return clean_text("title", value, MAX_TITLE_LENGTH)


def clean_content(value: str) -> str:
    return clean_text("content", value, MAX_MESSAGE_LENGTH, multiline=True)


async def get_saved_snippets(rt: Runtime, user: UserRow) -> list[SavedSnippetObject]:
    """The user's snippets, oldest first."""
    async with rt.db.read() as conn:
        return [snippet_object(row) for row in await snippet_store.list_snippets(conn, user.id)]


async def do_create_saved_snippet(rt: Runtime, user: UserRow, title: str, content: str) -> int:
    """Store a snippet (already cleaned) and send saved_snippets/add to its owner."""
    async with rt.db.write() as tx:
        row = await snippet_store.insert(tx, user.id, title, content, rt.now())
        event = SavedSnippetAddEvent(saved_snippet=snippet_object(row))
        tx.after_commit(lambda: rt.broker.publish(event, [user.id]))
    return row.id


async def do_edit_saved_snippet(
    rt: Runtime, user: UserRow, snippet_id: int, title: str | None, content: str | None
) -> None:
    """Change the title and/or content and send saved_snippets/update.

    Nothing to change sends nothing (Zulip's early exit), but the snippet must still exist:
    an unknown id is "Saved snippet does not exist." either way.
    """
    if title is None and content is None:
        async with rt.db.read() as conn:
            if await snippet_store.get_snippet(conn, user.id, snippet_id) is None:
                raise ResourceNotFoundError(NOT_FOUND)
        return
    async with rt.db.write() as tx:
        row = await snippet_store.get_snippet(tx, user.id, snippet_id)
        if row is None:
            raise ResourceNotFoundError(NOT_FOUND)
        row = msgspec.structs.replace(
            row,
            title=title if title is not None else row.title,
            content=content if content is not None else row.content,
        )
        await snippet_store.update(tx, row)
        event = SavedSnippetUpdateEvent(saved_snippet=snippet_object(row))
        tx.after_commit(lambda: rt.broker.publish(event, [user.id]))


async def do_delete_saved_snippet(rt: Runtime, user: UserRow, snippet_id: int) -> None:
    """Delete one of the user's snippets and send saved_snippets/remove."""
    async with rt.db.write() as tx:
        if await snippet_store.get_snippet(tx, user.id, snippet_id) is None:
            raise ResourceNotFoundError(NOT_FOUND)
        await snippet_store.delete(tx, snippet_id)
        event = SavedSnippetRemoveEvent(saved_snippet_id=snippet_id)
        tx.after_commit(lambda: rt.broker.publish(event, [user.id]))

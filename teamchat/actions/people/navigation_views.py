"""Navigation views: GET/POST /navigation_views, PATCH/DELETE /navigation_views/{fragment},
the `navigation_view` events (to the owner only) and the `navigation_views` register state.

A view is either a setting on one of the web app's built-in views (no name) or a custom
view (a named URL fragment); either may be pinned to the sidebar or hidden in "More views".
"""

from __future__ import annotations

import msgspec

from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import ResourceNotFoundError, ZulipError
from teamchat.events.types_navigation_views import (
    NavigationViewAddEvent,
    NavigationViewData,
    NavigationViewObject,
    NavigationViewRemoveEvent,
    NavigationViewUpdateEvent,
)
from teamchat.lib.validation import clean_text
from teamchat.records import NavigationViewRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import navigation_views as view_store

# The web app's built-in views: they may be pinned or hidden but not renamed.
BUILT_IN_VIEW_FRAGMENTS = frozenset(
    {
        "inbox",
        "recent",
        "feed",
        "drafts",
        "narrow/has/reaction/sender/me",
        "narrow/is/mentioned",
        "narrow/is/starred",
    }
)
# Zulip sets no limits; ours keep one user's sidebar settings bounded.
MAX_FRAGMENT_LENGTH = 1000
MAX_NAME_LENGTH = 100
NOT_FOUND = "Navigation view does not exist."
ALREADY_EXISTS = "Navigation view already exists."
BUILT_IN_NAMED = "Built-in views cannot have a custom name."


def clean_fragment(value: str) -> str:
    return clean_text("fragment", value, MAX_FRAGMENT_LENGTH)


def clean_name(value: str) -> str:
    return clean_text("name", value, MAX_NAME_LENGTH)


def view_object(row: NavigationViewRow) -> NavigationViewObject:
    return NavigationViewObject(fragment=row.fragment, is_pinned=row.is_pinned, name=row.name)


@state_fetcher("navigation_views", "navigation_view")
async def _navigation_views_state(ctx: StateContext) -> None:
    rows = await view_store.list_views(ctx.conn, ctx.user.id)
    ctx.state["navigation_views"] = [view_object(row) for row in rows]


async def get_navigation_views(rt: Runtime, user: UserRow) -> list[NavigationViewObject]:
    """The user's views, in the order they were added."""
    async with rt.db.read() as conn:
        return [view_object(row) for row in await view_store.list_views(conn, user.id)]


async def do_add_navigation_view(
    rt: Runtime, user: UserRow, fragment: str, is_pinned: bool, name: str | None
) -> None:
    """Store a view (fragment and name already cleaned) and send navigation_view/add."""
    if fragment in BUILT_IN_VIEW_FRAGMENTS:
        if name is not None:
            raise ZulipError(BUILT_IN_NAMED)
    elif name is None:
        raise ZulipError("Custom views must have a valid name.")
    row = NavigationViewRow(user_id=user.id, fragment=fragment, is_pinned=is_pinned, name=name)
    async with rt.db.write() as tx:
        if await view_store.get_view(tx, user.id, fragment) is not None:
            raise ZulipError(ALREADY_EXISTS)
        if name is not None and await view_store.name_taken(tx, user.id, name):
            raise ZulipError(ALREADY_EXISTS)
        await view_store.insert(tx, row)
        event = NavigationViewAddEvent(navigation_view=view_object(row))
        tx.after_commit(lambda: rt.broker.publish(event, [user.id]))


async def do_update_navigation_view(
    rt: Runtime, user: UserRow, fragment: str, is_pinned: bool | None, name: str | None
) -> None:
    """Change whether a view is pinned and/or a custom view's name; send navigation_view/update."""
    if fragment in BUILT_IN_VIEW_FRAGMENTS and name is not None:
        raise ZulipError(BUILT_IN_NAMED)
    async with rt.db.write() as tx:
        row = await view_store.get_view(tx, user.id, fragment)
        if row is None:
            raise ResourceNotFoundError(NOT_FOUND)
        if name is not None and name != row.name and await view_store.name_taken(tx, user.id, name):
            raise ZulipError(ALREADY_EXISTS)
        data = NavigationViewData()
        if is_pinned is not None:
            data.is_pinned = is_pinned
        if name is not None:
            data.name = name
        row = msgspec.structs.replace(
            row,
            is_pinned=row.is_pinned if is_pinned is None else is_pinned,
            name=row.name if name is None else name,
        )
        await view_store.update(tx, row)
        event = NavigationViewUpdateEvent(fragment=fragment, data=data)
        tx.after_commit(lambda: rt.broker.publish(event, [user.id]))


async def do_remove_navigation_view(rt: Runtime, user: UserRow, fragment: str) -> None:
    """Delete one of the user's views and send navigation_view/remove."""
    async with rt.db.write() as tx:
        if await view_store.get_view(tx, user.id, fragment) is None:
            raise ResourceNotFoundError(NOT_FOUND)
        await view_store.delete(tx, user.id, fragment)
        event = NavigationViewRemoveEvent(fragment=fragment)
        tx.after_commit(lambda: rt.broker.publish(event, [user.id]))

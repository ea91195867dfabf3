"""Drafts synchronized between a user's clients: GET/POST /drafts, PATCH/DELETE /drafts/{id},
the `drafts` events (to the owner only) and register state. A user who turned off
`enable_drafts_synchronization` gets no drafts and may not store any.
"""

from __future__ import annotations

import msgspec

from teamchat.actions.channels.channel_access import access_stream_by_id
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import ResourceNotFoundError, ZulipError
from teamchat.events.types_composing import (
    DraftObject,
    DraftsAddEvent,
    DraftsRemoveEvent,
    DraftsUpdateEvent,
)
from teamchat.lib import user_settings
from teamchat.lib.messages import MAX_TOPIC_LENGTH, normalize_content, truncate
from teamchat.records import DraftRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import drafts as draft_store
from teamchat.store import users as user_store
from teamchat.store.db import Conn

NOT_FOUND = "Draft does not exist"
DRAFT_TYPES = ("stream", "private", "")


class DraftData(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """One draft as clients send it (Zulip's DraftData)."""

    type: str
    to: list[int]
    topic: str
    content: str
    timestamp: int | float | None = None


def draft_object(row: DraftRow) -> DraftObject:
    return DraftObject(
        id=row.id, type=row.type, to=row.to, topic=row.topic, content=row.content,
        timestamp=row.timestamp,
    )  # fmt: skip


def _syncing(user: UserRow) -> bool:
    return user_settings.load(user.settings_json).enable_drafts_synchronization


@state_fetcher("drafts")
async def _drafts_state(ctx: StateContext) -> None:
    rows = await draft_store.list_drafts(ctx.conn, ctx.user.id) if _syncing(ctx.user) else []
    ctx.state["drafts"] = [draft_object(row) for row in rows]


def require_syncing(user: UserRow) -> None:
    if not _syncing(user):
        raise ZulipError("User has disabled synchronizing drafts.")


async def _checked(
    conn: Conn, user: UserRow, data: DraftData, now: int, where: str = "draft"
) -> DraftRow:
    """Zulip's further_validated_draft_dict: content, time, and an audience the user can reach."""
    if data.type not in DRAFT_TYPES:
        # zulip-compat: pydantic's literal_error at the draft's position.
        raise ZulipError(f'Invalid {where}["type"]')
    content = normalize_content(data.content)
    timestamp = now if data.timestamp is None else round(data.timestamp)
    if timestamp < 0:
        raise ZulipError("Timestamp must not be negative.")
    kind, to, topic = data.type, list(data.to), ""
    if kind == "stream":
        topic = truncate(data.topic, MAX_TOPIC_LENGTH, "...")
        if "\0" in topic:
            raise ZulipError("Topic must not contain null bytes")
        if len(to) != 1:
            raise ZulipError("Must specify exactly 1 channel ID for channel messages")
        await access_stream_by_id(conn, user, to[0])
    elif kind == "private" and to:
        for user_id in sorted(set(to)):
            other = await user_store.get_user_by_id(conn, user_id)
            if other is None:
                raise ZulipError(f"Invalid user ID {user_id}")
        to = sorted(set(to) - {user.id}) or [user.id]
    else:
        kind, to = "", []
    return DraftRow(
        id=0, user_id=user.id, type=kind, to=to, topic=topic, content=content,
        timestamp=timestamp,
    )  # fmt: skip


async def get_drafts(rt: Runtime, user: UserRow) -> list[DraftObject]:
    require_syncing(user)
    async with rt.db.read() as conn:
        return [draft_object(row) for row in await draft_store.list_drafts(conn, user.id)]


async def do_create_drafts(rt: Runtime, user: UserRow, drafts: list[DraftData]) -> list[int]:
    """Store every draft (all or none); send one drafts/add."""
    require_syncing(user)
    async with rt.db.write() as tx:
        rows = [
            await _checked(tx, user, data, rt.now(), f"drafts[{index}]")
            for index, data in enumerate(drafts)
        ]
        created = [await draft_store.insert(tx, row) for row in rows]
        event = DraftsAddEvent(drafts=[draft_object(row) for row in created])
        tx.after_commit(lambda: rt.broker.publish(event, [user.id]))
    return [row.id for row in created]


async def do_edit_draft(rt: Runtime, user: UserRow, draft_id: int, data: DraftData) -> None:
    require_syncing(user)
    async with rt.db.write() as tx:
        if await draft_store.get_draft(tx, user.id, draft_id) is None:
            raise ResourceNotFoundError(NOT_FOUND)
        row = msgspec.structs.replace(await _checked(tx, user, data, rt.now()), id=draft_id)
        await draft_store.update(tx, row)
        event = DraftsUpdateEvent(draft=draft_object(row))
        tx.after_commit(lambda: rt.broker.publish(event, [user.id]))


async def do_delete_draft(rt: Runtime, user: UserRow, draft_id: int) -> None:
    require_syncing(user)
    async with rt.db.write() as tx:
        if await draft_store.get_draft(tx, user.id, draft_id) is None:
            raise ResourceNotFoundError(NOT_FOUND)
        await draft_store.delete(tx, draft_id)
        event = DraftsRemoveEvent(draft_id=draft_id)
        tx.after_commit(lambda: rt.broker.publish(event, [user.id]))

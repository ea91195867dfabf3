"""Channel folders: create, update (rename, describe, archive), reorder; `channel_folder` events.

Administrators only. Channels name their folder (`folder_id`); a folder that still holds
active channels cannot be archived.
"""

from __future__ import annotations

import unicodedata

import msgspec

from teamchat.actions.org import permissions
from teamchat.actions.org.user_group_edit import publish_to_active
from teamchat.actions.state import (
    MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH,
    MAX_CHANNEL_FOLDER_NAME_LENGTH,
    StateContext,
    state_fetcher,
)
from teamchat.errors import ZulipError
from teamchat.events.types_org import (
    ChannelFolderAddEvent,
    ChannelFolderObject,
    ChannelFolderReorderEvent,
    ChannelFolderUpdateEvent,
)
from teamchat.lib.text import check_text
from teamchat.records import ChannelFolderRow, UserRow
from teamchat.render.markdown import render_plain_markdown
from teamchat.runtime import Runtime
from teamchat.store import channel_folders as folder_store
from teamchat.store import streams as stream_store
from teamchat.store.conn import IntegrityError
from teamchat.store.db import Conn


def folder_object(folder: ChannelFolderRow) -> ChannelFolderObject:
    """The channel folder object of the API and of channel_folder events."""
    return ChannelFolderObject(**msgspec.structs.asdict(folder))


def _printable_problem(name: str) -> int | None:
    """1-based position of the first control, surrogate or unassigned character."""
    for position, char in enumerate(name, start=1):
        if unicodedata.category(char) in ("Cc", "Cs", "Cn"):
            return position
    return None


async def _check_name(conn: Conn, name: str, folder_id: int | None = None) -> None:
    """Zulip's check_channel_folder_name (plus the length limit from POST /register)."""
    if len(name) > MAX_CHANNEL_FOLDER_NAME_LENGTH:
        raise ZulipError(f"name is too long (limit: {MAX_CHANNEL_FOLDER_NAME_LENGTH} characters)")
    if not name.strip():
        raise ZulipError("Channel folder name can't be empty.")
    position = _printable_problem(name)
    if position is not None:
        raise ZulipError(f"Invalid character in channel folder name, at position {position}.")
    existing = await folder_store.get_channel_folder_by_name(conn, name)
    if existing is not None and existing.id != folder_id:
        raise ZulipError("Channel folder name already in use")


def _check_description(description: str) -> str:
    check_text(
        "description", description, max_chars=MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH, multiline=True
    )
    return render_plain_markdown(description) if description else ""


async def check_create_channel_folder(
    rt: Runtime, user: UserRow, *, name: str, description: str
) -> int:
    """POST /channel_folders/create: sends channel_folder/add; returns the new id."""
    permissions.require_realm_admin(user)
    rendered = _check_description(description)
    async with rt.db.write() as tx:
        await _check_name(tx, name)
        try:
            folder_id = await folder_store.insert(
                tx,
                name=name,
                description=description,
                rendered_description=rendered,
                date_created=rt.now(),
                creator_id=user.id,
            )
        except IntegrityError:
            raise ZulipError("Channel folder name already in use") from None
        folder = await folder_store.get_channel_folder(tx, folder_id)
        assert folder is not None
        await publish_to_active(
            rt, tx, [ChannelFolderAddEvent(channel_folder=folder_object(folder))]
        )
    return folder_id


async def check_update_channel_folder(
    rt: Runtime,
    user: UserRow,
    folder_id: int,
    *,
    name: str | None = None,
    description: str | None = None,
    is_archived: bool | None = None,
) -> None:
    """PATCH /channel_folders/{id}: one channel_folder/update event per changed field."""
    permissions.require_realm_admin(user)
    if name is None and description is None and is_archived is None:
        raise ZulipError("No new data supplied")
    rendered = _check_description(description) if description is not None else None
    async with rt.db.write() as tx:
        folder = await folder_store.get_channel_folder(tx, folder_id)
        if folder is None:
            raise ZulipError("Invalid channel folder ID")
        changes: list[dict[str, object]] = []
        if name is not None and name != folder.name:
            await _check_name(tx, name, folder_id)
            changes.append({"name": name})
        if description is not None and description != folder.description:
            changes.append({"description": description, "rendered_description": rendered})
        if is_archived is not None and is_archived != folder.is_archived:
            if is_archived and await _in_use(tx, folder_id):
                raise ZulipError(
                    "You need to remove all the channels from this folder to archive it."
                )
            changes.append({"is_archived": is_archived})
        for data in changes:
            await folder_store.update(tx, folder_id, **data)
        events = [ChannelFolderUpdateEvent(channel_folder_id=folder_id, data=d) for d in changes]
        await publish_to_active(rt, tx, events)


async def _in_use(conn: Conn, folder_id: int) -> bool:
    """Whether an active channel is in the folder."""
    streams = await stream_store.list_streams(conn, include_archived=False)
    return any(stream.folder_id == folder_id for stream in streams)


async def check_reorder_channel_folders(rt: Runtime, user: UserRow, order: list[int]) -> None:
    """PATCH /channel_folders: `order` must list every folder exactly once."""
    permissions.require_realm_admin(user)
    async with rt.db.write() as tx:
        folders = await folder_store.list_channel_folders(tx)
        if len(order) != len(set(order)) or set(order) != {f.id for f in folders}:
            raise ZulipError("Invalid order mapping")
        await folder_store.set_order(tx, order)
        await publish_to_active(rt, tx, [ChannelFolderReorderEvent(order=order)])


async def get_channel_folders(rt: Runtime, *, include_archived: bool) -> list[ChannelFolderObject]:
    """GET /channel_folders, in display order."""
    async with rt.db.read() as conn:
        folders = await folder_store.list_channel_folders(conn, include_archived=include_archived)
    return [folder_object(f) for f in folders]


@state_fetcher("channel_folders")
async def _channel_folders_state(ctx: StateContext) -> None:
    folders = await folder_store.list_channel_folders(ctx.conn)
    ctx.state["channel_folders"] = [msgspec.to_builtins(folder_object(f)) for f in folders]

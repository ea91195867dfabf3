"""Default channels: the public channels every new member joins; `default_streams` events.

Administrators manage them; guests see none (Zulip sends them only to non-guests).
"""

from __future__ import annotations

from teamchat import store
from teamchat.actions.channels.channel_access import access_stream_by_id
from teamchat.actions.org import permissions
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import ZulipError
from teamchat.events.types_org import DefaultStreamsEvent
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import default_streams as default_store
from teamchat.store.db import Tx


async def publish_default_streams(rt: Runtime, tx: Tx) -> None:
    """Queue the `default_streams` event (the whole list) to every non-guest, after commit."""
    event = DefaultStreamsEvent(default_streams=await default_store.list_default_stream_ids(tx))
    users = await store.users.list_users(tx, is_active=True)
    audience = [u.id for u in users if not u.is_guest]
    tx.after_commit(lambda: rt.broker.publish(event, audience))


async def check_add_default_stream(rt: Runtime, user: UserRow, stream_id: int) -> None:
    """POST /default_streams: public channels only."""
    permissions.require_realm_admin(user)
    async with rt.db.write() as tx:
        stream, _ = await access_stream_by_id(tx, user, stream_id)
        if stream.invite_only:
            raise ZulipError("Private channels cannot be made default.")
        if stream.is_archived:
            raise ZulipError("Invalid channel ID")
        await default_store.add_default_stream(tx, stream.id)
        await publish_default_streams(rt, tx)


async def check_remove_default_stream(rt: Runtime, user: UserRow, stream_id: int) -> None:
    """DELETE /default_streams."""
    permissions.require_realm_admin(user)
    async with rt.db.write() as tx:
        stream, _ = await access_stream_by_id(tx, user, stream_id, content=False)
        await default_store.remove_default_stream(tx, stream.id)
        await publish_default_streams(rt, tx)


@state_fetcher("default_streams")
async def _default_streams_state(ctx: StateContext) -> None:
    ctx.state["realm_default_streams"] = (
        [] if ctx.user.is_guest else await default_store.list_default_stream_ids(ctx.conn)
    )

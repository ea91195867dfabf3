"""Muted users: POST/DELETE /users/me/muted_users/{id}, `muted_users` events and state."""

from __future__ import annotations

from teamchat.actions.notifications import mobile_push
from teamchat.actions.people.user_access import access_user_by_id
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import ZulipError
from teamchat.events.types_messages import UpdateMessageFlagsAddEvent
from teamchat.events.types_people import MutedUserObject, MutedUsersEvent
from teamchat.lib import flags as fl
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import message_flags as flag_store
from teamchat.store import muted_users as muted_store
from teamchat.store.conn import IntegrityError
from teamchat.store.db import Conn, Tx


async def _muted_objects(conn: Conn, user_id: int) -> list[MutedUserObject]:
    rows = await muted_store.list_muted(conn, user_id)
    return [MutedUserObject(id=row.muted_user_id, timestamp=row.date_muted) for row in rows]


@state_fetcher("muted_users")
async def _muted_users_state(ctx: StateContext) -> None:
    ctx.state["muted_users"] = await _muted_objects(ctx.conn, ctx.user.id)


async def check_mute_user(rt: Runtime, user: UserRow, muted_user_id: int) -> None:
    """POST /users/me/muted_users/{id}: any other user, bots and deactivated users too."""
    if user.id == muted_user_id:
        raise ZulipError("Cannot mute self")
    async with rt.db.read() as conn:
        await access_user_by_id(
            conn, user, muted_user_id, allow_bots=True, allow_deactivated=True, for_admin=False
        )
    await do_mute_user(rt, user, muted_user_id)


async def do_mute_user(rt: Runtime, user: UserRow, muted_user_id: int) -> None:
    """Mute `muted_user_id` for `user` and mark their messages read (update_message_flags);
    send muted_users (the whole list) to `user`."""
    try:
        async with rt.db.write() as tx:
            await muted_store.insert(tx, user.id, muted_user_id, rt.now())
            unread = await muted_store.unread_ids_from(tx, user.id, muted_user_id)
            read = await flag_store.update_user_flag(tx, user.id, unread, fl.READ, add=True)
            await mobile_push.remove_notifications(rt, tx, user, read)
            if read:
                flags = UpdateMessageFlagsAddEvent(flag="read", messages=read, all=False)
                # zulip-compat: `operation` is the deprecated name of `op`.
                flags.operation = "add"
                tx.after_commit(lambda: rt.broker.publish(flags, [user.id]))
            await _publish(rt, tx, user)
    except IntegrityError:
        raise ZulipError("User already muted") from None


async def check_unmute_user(rt: Runtime, user: UserRow, muted_user_id: int) -> None:
    """DELETE /users/me/muted_users/{id}."""
    async with rt.db.read() as conn:
        await access_user_by_id(
            conn, user, muted_user_id, allow_bots=True, allow_deactivated=True, for_admin=False
        )
    await do_unmute_user(rt, user, muted_user_id)


async def do_unmute_user(rt: Runtime, user: UserRow, muted_user_id: int) -> None:
    """Unmute; send muted_users to `user`."""
    async with rt.db.write() as tx:
        if not await muted_store.delete(tx, user.id, muted_user_id):
            raise ZulipError("User is not muted")
        await _publish(rt, tx, user)


async def _publish(rt: Runtime, tx: Tx, user: UserRow) -> None:
    event = MutedUsersEvent(muted_users=await _muted_objects(tx, user.id))
    tx.after_commit(lambda: rt.broker.publish(event, [user.id]))

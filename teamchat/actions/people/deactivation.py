"""Deactivating and reactivating users and bots.

A deactivated user's API key stops working at once (authentication rejects inactive
users), their event queues are dropped, they leave every named user group, and the bots
they own are deactivated with them. Everyone who can access them gets realm_user/update
with `is_active`; a bot's owner and the administrators also get realm_bot/update.
"""

from __future__ import annotations

from teamchat import store
from teamchat.actions.channels.subscriber_events import publish_peer_changes
from teamchat.actions.org.system_bots import is_system_bot
from teamchat.actions.org.system_group_events import publish_system_group_joins
from teamchat.actions.org.user_groups import load_groups
from teamchat.actions.people.user_access import (
    access_bot_by_id,
    access_user_by_id,
    user_ids_who_can_access,
)
from teamchat.actions.people.user_admin import can_create_bot, publish_bot_update
from teamchat.errors import (
    CannotDeactivateLastUserError,
    OrganizationOwnerRequiredError,
    ZulipError,
)
from teamchat.events.types import RealmUserUpdateEvent
from teamchat.events.types_org import UserGroupRemoveMembersEvent
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store.db import Tx

LAST_OWNER_MSG = "Cannot deactivate the only organization owner"


async def check_deactivate_user(rt: Runtime, actor: UserRow, user_id: int) -> None:
    """DELETE /users/{user_id}: administrators; owners only by owners; never the last owner."""
    async with rt.db.read() as conn:
        target = await access_user_by_id(conn, actor, user_id, for_admin=True)
        if target.is_owner and not actor.is_owner:
            raise OrganizationOwnerRequiredError()
        if target.is_owner and await store.users.count_owners(conn) <= 1:
            raise ZulipError(LAST_OWNER_MSG)
    await do_deactivate_user(rt, target)


async def check_deactivate_own_user(rt: Runtime, user: UserRow) -> None:
    """DELETE /users/me: not the only user, not the only owner."""
    async with rt.db.read() as conn:
        realm = await store.realm.get_realm(conn)
        assert realm is not None
        # The system bots belong to no organization (Zulip's cross-realm bots): not counted.
        active = await store.users.list_users(conn, is_active=True)
        if sum(not is_system_bot(u, realm.host) for u in active) <= 1:
            raise CannotDeactivateLastUserError(is_last_owner=False)
        if user.is_owner and await store.users.count_owners(conn) <= 1:
            raise CannotDeactivateLastUserError(is_last_owner=True)
    await do_deactivate_user(rt, user)


async def check_deactivate_bot(rt: Runtime, actor: UserRow, bot_id: int) -> None:
    """DELETE /bots/{bot_id}: the bot's owner or an administrator."""
    async with rt.db.read() as conn:
        bot = await access_bot_by_id(conn, actor, bot_id)
    await do_deactivate_user(rt, bot)


async def do_deactivate_user(rt: Runtime, target: UserRow) -> None:
    """Deactivate `target` (and the active bots it owns); drop their event queues."""
    async with rt.db.write() as tx:
        user = await store.users.get_user_by_id(tx, target.id)
        if user is None or not user.is_active:
            return
        if user.is_owner and not user.is_bot and await store.users.count_owners(tx) <= 1:
            raise ZulipError(LAST_OWNER_MSG)
        affected = [user]
        if not user.is_bot:
            bots = await store.users.list_bots(tx, owner_id=user.id)
            affected += [bot for bot in bots if bot.is_active]
        ids = [u.id for u in affected]
        groups = (await load_groups(tx, rt.now())).members
        await store.users.update_is_active(tx, ids, False)
        await store.users.delete_group_memberships(tx, ids)
        await publish_peer_changes(rt, tx, affected, added=False)
        for changed in affected:
            await _publish_is_active(rt, tx, changed, False)
            member_of = [gid for gid, members in groups.items() if changed.id in members]
            await _publish_group_exits(rt, tx, changed, member_of)

        def drop_queues() -> None:
            for user_id in ids:
                rt.broker.drop_user_queues(user_id)

        tx.after_commit(drop_queues)


async def check_reactivate_user(rt: Runtime, actor: UserRow, user_id: int) -> None:
    """POST /users/{user_id}/reactivate (bots too, under the bot creation policy)."""
    async with rt.db.read() as conn:
        target = await access_user_by_id(
            conn, actor, user_id, allow_deactivated=True, allow_bots=True, for_admin=True
        )
        if target.is_active:
            raise ZulipError("User is already active.")
        if target.is_bot:
            realm = await store.realm.get_realm(conn)
            assert realm is not None and target.bot_type is not None
            if not await can_create_bot(conn, realm, actor, target.bot_type):
                raise ZulipError("Insufficient permission")
            for other in await store.users.list_users(conn, is_active=True):
                if other.full_name == target.full_name.strip():
                    raise ZulipError(
                        f'There is already an active bot named "{target.full_name}" in this'
                        " organization. To reactivate this bot, you must rename or deactivate"
                        " the other one first."
                    )
    await do_reactivate_user(rt, target)


async def do_reactivate_user(rt: Runtime, target: UserRow) -> None:
    """Reactivate `target`; send is_active true and the system groups it rejoins (its named
    group memberships stay removed)."""
    async with rt.db.write() as tx:
        user = await store.users.get_user_by_id(tx, target.id)
        if user is None or user.is_active:
            return
        await store.users.update_is_active(tx, [user.id], True)
        await publish_peer_changes(rt, tx, [user], added=True)
        await _publish_is_active(rt, tx, user, True)
        await publish_system_group_joins(rt, tx, user)


async def _publish_group_exits(rt: Runtime, tx: Tx, user: UserRow, group_ids: list[int]) -> None:
    """user_group/remove_members for the groups `user` left, to those who cannot access
    `user` (the others drop it from groups on the is_active event)."""
    if not group_ids:
        return
    informed = set(await user_ids_who_can_access(tx, user))
    audience = [uid for uid in await store.users.list_active_user_ids(tx) if uid not in informed]
    if not audience:
        return
    events = [UserGroupRemoveMembersEvent(group_id=gid, user_ids=[user.id]) for gid in group_ids]

    def publish() -> None:
        for event in events:
            rt.broker.publish(event, audience)

    tx.after_commit(publish)


async def _publish_is_active(rt: Runtime, tx: Tx, user: UserRow, is_active: bool) -> None:
    """realm_user/update is_active, to those who can access `user` (Zulip since 10.0)."""
    event = RealmUserUpdateEvent(person={"user_id": user.id, "is_active": is_active})
    audience = await user_ids_who_can_access(tx, user)
    tx.after_commit(lambda: rt.broker.publish(event, audience))
    if user.is_bot:
        await publish_bot_update(rt, tx, user, {"is_active": is_active})

"""Deactivating and reactivating the organization (`teamchat admin realm deactivate` and
`reactivate`). While deactivated, every authenticated request and every log-in answers
Zulip's REALM_DEACTIVATED (401); deactivating sends `realm`/`deactivated` to everyone and
drops every event queue, so clients stop and show the organization as gone.
"""

from __future__ import annotations

from teamchat import store
from teamchat.errors import RealmDeactivatedError, ZulipError
from teamchat.events.types_org import RealmDeactivatedEvent
from teamchat.runtime import Runtime
from teamchat.store.db import Conn


async def check_realm_active(conn: Conn) -> None:
    """Refuse requests of a deactivated organization."""
    if await store.realm.is_deactivated(conn):
        raise RealmDeactivatedError()


async def do_deactivate_realm(rt: Runtime) -> None:
    async with rt.db.write() as tx:
        realm = await store.realm.get_realm(tx)
        if realm is None:
            raise ZulipError("This database has no organization yet.")
        if realm.deactivated:
            raise ZulipError("The organization is already deactivated.")
        await store.realm.set_deactivated(tx, realm.id, True)
        users = [u.id for u in await store.users.list_users(tx, is_active=True)]
        event = RealmDeactivatedEvent(realm_id=realm.id)

        def notify_and_drop() -> None:
            rt.broker.publish(event, users)
            for user_id in users:
                rt.broker.drop_user_queues(user_id)

        tx.after_commit(notify_and_drop)


async def do_reactivate_realm(rt: Runtime) -> None:
    async with rt.db.write() as tx:
        realm = await store.realm.get_realm(tx)
        if realm is None:
            raise ZulipError("This database has no organization yet.")
        if not realm.deactivated:
            raise ZulipError("The organization is not deactivated.")
        await store.realm.set_deactivated(tx, realm.id, False)

"""Guests gaining and losing access to people: the `realm_user` add/remove events it causes.

A change that may alter which people a limited guest shares a channel or a conversation
with (subscribing, unsubscribing, a first direct message, changing the setting itself)
takes a `GuestAccess` snapshot of the guests concerned before it writes, and
`publish_changes` after: each guest gets realm_user/add with the full person for everyone
it can now access, and realm_user/remove for everyone it no longer can (its clients then
show them as "Unknown user" or drop them).
With `guest_access_limits_presence`, each add also carries the person's `user_status`,
which the guest's state now includes.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from teamchat import store
from teamchat.actions.people import people
from teamchat.actions.people.user_access import access_restricted
from teamchat.actions.people.user_status import status_dict
from teamchat.events import rules_people  # noqa: F401 (registers realm_user event rules)
from teamchat.events.types import RealmUserAddEvent, RealmUserRemoveEvent
from teamchat.lib import user_settings, wire
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import user_access as access_store
from teamchat.store import user_status as status_store
from teamchat.store.db import Conn, Tx


class GuestAccess(msgspec.Struct, kw_only=True):
    """Whom each concerned guest could access before a change (empty: nothing to track)."""

    before: dict[int, set[int]]


async def snapshot(
    conn: Conn, *, user_ids: Iterable[int] = (), stream_ids: Iterable[int] = ()
) -> GuestAccess:
    """The access of the guests among `user_ids` and the guests subscribed to `stream_ids`."""
    guests = set(await access_store.active_guest_ids(conn, user_ids))
    guests |= set(await access_store.active_guest_subscriber_ids(conn, stream_ids))
    if not guests or not await access_restricted(conn):
        return GuestAccess(before={})
    return GuestAccess(
        before={
            guest_id: await access_store.shared_user_ids(conn, guest_id, include_deactivated=True)
            for guest_id in sorted(guests)
        }
    )


async def snapshot_all_guests(conn: Conn) -> GuestAccess:
    """The access of every active guest, limited or not (before the setting changes)."""
    return await _snapshot_users(conn, await access_store.active_guest_ids(conn))


async def snapshot_user(conn: Conn, user_id: int) -> GuestAccess:
    """The access of one user whose role is about to change (becoming or ceasing to be a
    guest changes whom it may access)."""
    return await _snapshot_users(conn, [user_id])


async def _snapshot_users(conn: Conn, user_ids: list[int]) -> GuestAccess:
    restricted = await access_restricted(conn)
    everyone = await access_store.human_user_ids(conn)
    before = {}
    for user in await store.users.list_users(conn, user_ids=user_ids):
        before[user.id] = await _access(conn, user, restricted, everyone)
    return GuestAccess(before=before)


async def _access(conn: Conn, user: UserRow, restricted: bool, everyone: set[int]) -> set[int]:
    if not restricted or not user.is_guest:
        return everyone
    return await access_store.shared_user_ids(conn, user.id, include_deactivated=True)


async def publish_changes(rt: Runtime, tx: Tx, access: GuestAccess) -> None:
    """Queue realm_user/add and /remove for what each snapshotted guest gained or lost."""
    if not access.before:
        return
    realm = await store.realm.get_realm(tx)
    assert realm is not None
    restricted = await access_restricted(tx)
    everyone = await access_store.human_user_ids(tx)
    for guest_id, before in access.before.items():
        guest = await store.users.get_user_by_id(tx, guest_id)
        assert guest is not None
        after = await _access(tx, guest, restricted, everyone)
        gained, lost = sorted(after - before), sorted(before - after)
        if not gained and not lost:
            continue
        users = await store.users.list_users(tx, user_ids=gained) if gained else []
        objects = await people.user_objects(
            tx, realm, guest, users, client_gravatar=False, include_custom_profile_fields=True
        )
        events: list[JsonDict] = [
            msgspec.to_builtins(RealmUserAddEvent(person=obj)) for obj in objects
        ]
        if rt.settings.guest_access_limits_presence:
            events += await _statuses(tx, users)
        events += [
            # zulip-compat: send_user_remove_events_on_removing_subscriptions's person.
            msgspec.to_builtins(
                RealmUserRemoveEvent(
                    person={"user_id": user_id, "full_name": wire.INACCESSIBLE_USER_NAME}
                )
            )
            for user_id in lost
        ]
        _after(rt, tx, events, guest_id)


async def _statuses(tx: Tx, users: list[UserRow]) -> list[JsonDict]:
    """user_status events carrying the current status of `users` (those that have one)."""
    events = []
    for user in users:
        row = await status_store.get_status(tx, user.id)
        enabled = user_settings.load(user.settings_json).presence_enabled
        status = status_dict(row, enabled)
        if status and user.is_active:
            events.append({"type": "user_status", "user_id": user.id, **status})
    return events


def _after(rt: Runtime, tx: Tx, events: list[JsonDict], guest_id: int) -> None:
    def publish() -> None:
        for event in events:
            rt.broker.publish(event, [guest_id])

    tx.after_commit(publish)

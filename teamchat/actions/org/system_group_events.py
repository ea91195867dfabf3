"""user_group events for system-group membership, which follows a user's role.

Kept apart from the user-group area so that account actions (creation, role changes) can
send them without importing the register-state machinery.
"""

from __future__ import annotations

from collections.abc import Mapping

from teamchat import store
from teamchat.events.types import Event
from teamchat.events.types_org import UserGroupAddMembersEvent, UserGroupRemoveMembersEvent
from teamchat.lib import system_groups as sg
from teamchat.records import Role, UserRow
from teamchat.runtime import Runtime
from teamchat.store.db import Conn, Tx


async def system_group_events_for_role_change(
    conn: Conn, user: UserRow, new_role: Role, now: int
) -> list[Event]:
    """The user_group events a role change sends: leave old system groups, join new ones.

    For the role-change action (issue 4): call inside its transaction and publish each event
    to every active user after commit, as Zulip's do_change_user_role does.
    """
    threshold = await store.groups.waiting_period_days(conn)
    ids = await store.groups.system_group_ids(conn)

    def groups_of(role: Role) -> set[str]:
        full = sg.is_full_member(role, user.date_joined, now, threshold)
        return set(sg.direct_group_for_role(role, is_full_member=full))

    return _membership_events(ids, groups_of(user.role), groups_of(new_role), user.id)


def _membership_events(
    ids: Mapping[str, int], before: set[str], after: set[str], user_id: int
) -> list[Event]:
    events: list[Event] = [
        UserGroupRemoveMembersEvent(group_id=ids[name], user_ids=[user_id])
        for name in sg.SYSTEM_GROUPS
        if name in before - after
    ]
    events += [
        UserGroupAddMembersEvent(group_id=ids[name], user_ids=[user_id])
        for name in sg.SYSTEM_GROUPS
        if name in after - before
    ]
    return events


async def publish_system_group_joins(rt: Runtime, tx: Tx, user: UserRow) -> None:
    """user_group/add_members for the system groups a new user joins, to every active user."""
    threshold = await store.groups.waiting_period_days(tx)
    ids = await store.groups.system_group_ids(tx)
    full = sg.is_full_member(user.role, user.date_joined, rt.now(), threshold)
    events = [
        UserGroupAddMembersEvent(group_id=ids[name], user_ids=[user.id])
        for name in sg.direct_group_for_role(user.role, is_full_member=full)
    ]
    audience = await store.users.list_active_user_ids(tx)

    def send() -> None:
        for event in events:
            rt.broker.publish(event, audience)

    tx.after_commit(send)

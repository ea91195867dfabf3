"""System group membership derives from roles, through nested subgroups."""

from __future__ import annotations

from pathlib import Path

from teamchat import store
from teamchat.actions.org import permissions
from teamchat.actions.people import users
from teamchat.config import Settings
from teamchat.lib import system_groups as sg
from teamchat.records import Role
from teamchat.runtime import Runtime
from tests.support.store_org import create_org


async def test_role_groups_nest_like_zulips(tmp_path: Path) -> None:
    rt = await Runtime.open_offline(Settings(db_path=tmp_path / "g.db"))
    try:
        org, owner = await create_org(rt, "G")
        people = {
            role: await users.do_create_user(
                rt,
                email=f"{role.name.lower()}@example.com",
                full_name=role.name,
                password_hash=None,
                role=role,
            )
            for role in (Role.ADMINISTRATOR, Role.MODERATOR, Role.MEMBER, Role.GUEST)
        }
        people[Role.OWNER] = owner
        async with rt.db.read() as conn:
            ids = await store.groups.system_group_ids(conn)
            assert set(ids) == set(sg.SYSTEM_GROUPS)
            expected = {
                sg.OWNERS: {Role.OWNER},
                sg.ADMINISTRATORS: {Role.OWNER, Role.ADMINISTRATOR},
                sg.MODERATORS: {Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR},
                sg.MEMBERS: {Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR, Role.MEMBER},
                sg.EVERYONE: set(Role),
                sg.INTERNET: set(Role),
                sg.NOBODY: set(),
            }
            for name, roles in expected.items():
                for role, user in people.items():
                    member = await store.groups.is_user_in_groups(conn, user, [ids[name]])
                    assert member == (role in roles), (name, role)
            anonymous = {
                "direct_members": [people[Role.GUEST].id],
                "direct_subgroups": [ids[sg.OWNERS]],
            }
            assert await store.groups.is_user_in_setting(conn, people[Role.GUEST], anonymous)
            assert await store.groups.is_user_in_setting(conn, owner, anonymous)
            assert not await store.groups.is_user_in_setting(conn, people[Role.MEMBER], anonymous)
            assert await permissions.has_realm_permission(
                conn, org, people[Role.ADMINISTRATOR], "can_mention_many_users_group"
            )
            assert not await permissions.has_realm_permission(
                conn, org, people[Role.MEMBER], "can_mention_many_users_group"
            )
    finally:
        await rt.close()

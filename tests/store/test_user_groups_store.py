"""Group queries other areas build on: mentions by name, role-change events, full members."""

from __future__ import annotations

from pathlib import Path

import msgspec

from teamchat import store
from teamchat.actions.org import realm, system_group_events
from teamchat.actions.people import users
from teamchat.config import Settings
from teamchat.lib import system_groups as sg
from teamchat.records import Role
from teamchat.runtime import Runtime
from teamchat.store import user_groups as group_store

DAY_SECS = 86400


async def test_role_change_events_and_group_names(tmp_path: Path) -> None:
    rt = await Runtime.open_offline(Settings(db_path=tmp_path / "g.db"))
    try:
        await realm.check_create_realm(
            rt, name="G", owner_email="o@example.com", owner_full_name="O", owner_password="pw-1234"
        )
        member = await users.do_create_user(
            rt, email="m@example.com", full_name="M", password_hash=None, role=Role.MEMBER
        )
        async with rt.db.read() as conn:
            ids = await store.groups.system_group_ids(conn)
            names = await group_store.groups_by_name(conn)
            assert names[sg.EVERYONE] == ids[sg.EVERYONE]
            events = await system_group_events.system_group_events_for_role_change(
                conn, member, Role.MODERATOR, rt.now()
            )
        shown = [msgspec.to_builtins(e) for e in events]
        assert shown == [
            {"type": "user_group", "op": "remove_members", "group_id": g, "user_ids": [member.id]}
            for g in (ids[sg.FULL_MEMBERS], ids[sg.MEMBERS])
        ] + [
            {
                "type": "user_group",
                "op": "add_members",
                "group_id": ids[sg.MODERATORS],
                "user_ids": [member.id],
            }
        ]
    finally:
        await rt.close()


async def test_full_members_wait_out_the_waiting_period(tmp_path: Path) -> None:
    rt = await Runtime.open_offline(Settings(db_path=tmp_path / "w.db"))
    try:
        await realm.check_create_realm(
            rt, name="W", owner_email="o@example.com", owner_full_name="O", owner_password="pw-1234"
        )
        member = await users.do_create_user(
            rt, email="m@example.com", full_name="M", password_hash=None, role=Role.MEMBER
        )
        async with rt.db.write() as tx:
            await store.realm.update_settings_json(tx, 1, '{"waiting_period_threshold": 3}')
        async with rt.db.read() as conn:
            full = (await store.groups.system_group_ids(conn))[sg.FULL_MEMBERS]
            joined = member.date_joined
            for days, expected in ((0, False), (2, False), (3, True)):
                now = joined + days * DAY_SECS
                assert await store.groups.is_user_in_groups(conn, member, [full], now=now) == (
                    expected
                )
    finally:
        await rt.close()

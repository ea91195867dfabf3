"""An organization made through the actions, for tests that drive the store or the actions
directly (no server)."""

from __future__ import annotations

from teamchat.actions.org import realm
from teamchat.records import RealmRow, UserRow
from teamchat.runtime import Runtime

OWNER_EMAIL = "owner@example.com"


async def create_org(rt: Runtime, name: str = "Org") -> tuple[RealmRow, UserRow]:
    """(the organization, its owner), with the welcome channels and messages of a new one."""
    return await realm.check_create_realm(
        rt,
        name=name,
        owner_email=OWNER_EMAIL,
        owner_full_name="Owner",
        owner_password="pw-123456",
    )

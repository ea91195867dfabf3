"""Creating the organization (one per database) together with its first owner."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from teamchat import store
from teamchat.actions.org.system_bots import create_system_bots
from teamchat.errors import ZulipError
from teamchat.lib import system_groups
from teamchat.lib.lazy import lazy_module
from teamchat.lib.passwords import hash_password, password_problem, random_api_key
from teamchat.lib.validation import full_name_problem, is_valid_email
from teamchat.records import RealmRow, Role, UserRow
from teamchat.runtime import Runtime
from teamchat.store.db import Tx

if TYPE_CHECKING:
    from teamchat.actions.org import onboarding
else:
    # A new organization's first content goes through the send path (Markdown, rendering):
    # a server starting on an existing database does not import it for this.
    onboarding = lazy_module("teamchat.actions.org.onboarding")

DEFAULT_REALM_HOST = "teamchat.local"


async def check_create_realm(
    rt: Runtime,
    *,
    name: str,
    owner_email: str,
    owner_full_name: str,
    owner_password: str,
    host: str = DEFAULT_REALM_HOST,
    realm_url: str = "",
    progress: Callable[[str], None] | None = None,
) -> tuple[RealmRow, UserRow]:
    """Validate, create the realm and its owner in one transaction, then its first content
    (channels, defaults, Welcome Bot messages: `onboarding.do_setup_new_realm`)."""
    if not name.strip():
        raise ZulipError("Organization name can't be empty")
    if not is_valid_email(owner_email):
        raise ZulipError(f"Invalid email '{owner_email}'")
    problem = full_name_problem(owner_full_name) or password_problem(owner_password)
    if problem:
        raise ZulipError(problem)
    step = progress or (lambda _text: None)
    step("hashing the owner's password")
    password_hash = await asyncio.to_thread(hash_password, owner_password)
    step("creating the organization")
    realm, owner = await do_create_realm(
        rt,
        name=name.strip(),
        owner_email=owner_email,
        owner_full_name=owner_full_name.strip(),
        owner_password_hash=password_hash,
        host=host,
    )
    await onboarding.do_setup_new_realm(rt, owner, realm_url=realm_url, progress=progress)
    return realm, owner


async def do_create_realm(
    rt: Runtime,
    *,
    name: str,
    owner_email: str,
    owner_full_name: str,
    owner_password_hash: str,
    host: str,
) -> tuple[RealmRow, UserRow]:
    """Insert the realm and its owner. No events: nobody can be listening yet."""
    async with rt.db.write() as tx:
        if await store.realm.get_realm(tx) is not None:
            raise ZulipError("This database already holds an organization.")
        await store.realm.insert(tx, name=name, description="", host=host, date_created=rt.now())
        await create_system_groups(tx, rt.now())
        await create_system_bots(tx, host, rt.now())
        owner_id = await store.users.insert(
            tx,
            delivery_email=owner_email,
            full_name=owner_full_name,
            api_key=random_api_key(),
            password_hash=owner_password_hash,
            role=Role.OWNER,
            date_joined=rt.now(),
        )
        # The operator who creates an organization can create accounts through the API
        # (Zulip grants can_create_users to no one by default; see docs/moving-in.md).
        await store.users.update_can_create_users(tx, owner_id, True)
        realm = await store.realm.get_realm(tx)
        owner = await store.users.get_user_by_id(tx, owner_id)
    assert realm is not None and owner is not None
    return realm, owner


async def create_system_groups(tx: Tx, now: int) -> None:
    """Zulip's role-based system groups, each with its direct subgroups."""
    ids: dict[str, int] = {}
    for name, (description, _, subgroups) in system_groups.SYSTEM_GROUPS.items():
        ids[name] = await store.groups.insert_group(
            tx, name=name, description=description, is_system_group=True, date_created=now
        )
        await store.groups.insert_subgroups(tx, ids[name], [ids[sub] for sub in subgroups])


async def get_realm(rt: Runtime) -> RealmRow:
    async with rt.db.read() as conn:
        realm = await store.realm.get_realm(conn)
    if realm is None:
        raise ZulipError("This database has no organization yet.")
    return realm

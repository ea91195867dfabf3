"""Administering people: PATCH /users/{id|email} (name, role, email, profile data).

Each change sends its `realm_user`/update `person` form (SPEC: Events) to the users who can
access the changed user; bot changes also send `realm_bot`/update to the bot's audience.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from teamchat import store
from teamchat.actions.channels.subscriber_events import (
    accessible_streams,
    publish_role_stream_changes,
)
from teamchat.actions.org.permissions import realm_group_settings
from teamchat.actions.org.system_group_events import system_group_events_for_role_change
from teamchat.actions.people import guest_access
from teamchat.actions.people.profile_data import (
    ProfileChange,
    apply_profile_changes,
    check_profile_changes,
)
from teamchat.actions.people.user_access import (
    access_user_by_email,
    access_user_by_id,
    bot_owner_user_ids,
    user_ids_who_can_access,
)
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import (
    OrganizationAdministratorRequiredError,
    OrganizationOwnerRequiredError,
    ZulipError,
)
from teamchat.events.types import RealmBotUpdateEvent, RealmUserUpdateEvent
from teamchat.lib import realm_settings, wire
from teamchat.lib.api_types import JsonDict
from teamchat.lib.validation import full_name_problem, is_valid_email
from teamchat.records import RealmRow, Role, UserRow
from teamchat.runtime import Runtime
from teamchat.store.conn import IntegrityError
from teamchat.store.db import Conn, Tx

LAST_OWNER_ROLE_MSG = "The owner permission cannot be removed from the only organization owner."


@dataclass(frozen=True, kw_only=True)
class UserUpdate:
    """PATCH /users/{user_id} parameters; None means "not given"."""

    full_name: str | None = None
    role: Role | None = None
    new_email: str | None = None
    profile_data: list[tuple[int, object]] | None = None


@dataclass(kw_only=True)
class CheckedUpdate:
    """What `do_update_user` will store, after every check passed."""

    full_name: str | None = None
    role: Role | None = None
    new_email: str | None = None
    profile_changes: list[ProfileChange] = field(default_factory=list)


async def check_full_name(conn: Conn, realm: RealmRow, full_name: str, user_id: int) -> str:
    """Zulip's check_full_name: stripped, valid characters, unique when the realm says so."""
    name = full_name.strip()
    problem = full_name_problem(name)
    if problem:
        raise ZulipError(problem)
    if any(unicodedata.category(ch)[0] == "C" for ch in name):
        raise ZulipError("Invalid characters in name!")
    # Names like "Name|15" would be ambiguous in mention syntax.
    if re.search(r"\|\d+$", full_name):
        raise ZulipError("Invalid format!")
    if realm_settings.load(realm.settings_json).require_unique_names:
        folded = unicodedata.normalize("NFKC", name).casefold()
        for other in await store.users.list_users(conn):
            if (
                other.id != user_id
                and unicodedata.normalize("NFKC", other.full_name).casefold() == folded
            ):
                raise ZulipError("Unique names required in this organization.")
    return name


async def check_role_change(conn: Conn, actor: UserRow, target: UserRow, role: Role) -> None:
    """Owners alone grant or remove the owner role; the last owner keeps it."""
    if Role.OWNER in (role, target.role) and not actor.is_owner:
        raise OrganizationOwnerRequiredError()
    if not actor.is_admin:
        raise OrganizationAdministratorRequiredError()
    if target.is_owner and not target.is_bot and await store.users.count_owners(conn) <= 1:
        raise ZulipError(LAST_OWNER_ROLE_MSG)
    # SPEC (Update a user by email): making a guest an administrator is an invalid change.
    if target.is_guest and role <= Role.ADMINISTRATOR:
        raise ZulipError("Guests cannot be organization administrators")


async def check_update_user(
    rt: Runtime, actor: UserRow, update: UserUpdate, *, user_id: int | None, email: str | None
) -> None:
    """PATCH /users/{user_id} and /users/{email}: check every change, then store them all."""
    async with rt.db.read() as conn:
        flags = {"allow_deactivated": True, "allow_bots": True, "for_admin": True}
        if user_id is not None:
            target = await access_user_by_id(conn, actor, user_id, **flags)
        else:
            target = await access_user_by_email(conn, actor, email or "", **flags)
        realm = await store.realm.get_realm(conn)
        assert realm is not None
        checked = CheckedUpdate()
        if update.role is not None and update.role != target.role:
            await check_role_change(conn, actor, target, update.role)
            checked.role = update.role
        name = update.full_name
        if name is not None and name != target.full_name and name.strip():
            name = await check_full_name(conn, realm, name, target.id)
            checked.full_name = name if name != target.full_name else None
        if update.new_email is not None and update.new_email.strip() != target.delivery_email:
            checked.new_email = await _check_new_email(conn, realm, actor, update.new_email)
        if update.profile_data is not None:
            checked.profile_changes = await check_profile_changes(conn, actor, update.profile_data)
    await do_update_user(rt, target, checked)


async def _check_new_email(conn: Conn, realm: RealmRow, actor: UserRow, new_email: str) -> str:
    if not actor.is_owner:
        raise OrganizationOwnerRequiredError()
    if not realm_settings.load(realm.settings_json).can_change_user_emails:
        raise ZulipError("User not authorized to change user emails")
    return await check_email_available(conn, new_email.strip())


async def check_email_available(conn: Conn, email: str) -> str:
    """The address, if it is valid and no account uses it."""
    if not is_valid_email(email):
        raise ZulipError(f"Invalid email '{email}'")
    if await store.users.get_user_by_delivery_email(conn, email) is not None:
        raise ZulipError(f"Email '{email}' already in use")
    return email


async def do_update_user(rt: Runtime, target: UserRow, update: CheckedUpdate) -> None:
    """Store checked changes to `target` in one transaction, each with its events."""
    try:
        async with rt.db.write() as tx:
            user = await _fresh(tx, target.id)
            if update.role is not None:
                user = await apply_role(rt, tx, user, update.role)
            if update.full_name is not None:
                user = await apply_full_name(rt, tx, user, update.full_name)
            if update.new_email is not None:
                await store.users.update_delivery_email(tx, user.id, update.new_email)
                await publish_email_changes(rt, tx, user, await _fresh(tx, user.id))
            await apply_profile_changes(rt, tx, user, update.profile_changes)
    except IntegrityError:
        raise ZulipError(f"Email '{update.new_email}' already in use") from None


async def _fresh(conn: Conn, user_id: int) -> UserRow:
    user = await store.users.get_user_by_id(conn, user_id)
    assert user is not None
    return user


async def apply_role(rt: Runtime, tx: Tx, user: UserRow, role: Role) -> UserRow:
    """Change `user`'s role inside `tx` (the last human owner keeps theirs); send role, the
    user_group events of the system groups the user leaves and joins, and the channels the
    user starts or stops seeing."""
    demotes_owner = user.is_owner and role != Role.OWNER and not user.is_bot
    if demotes_owner and await store.users.count_owners(tx) <= 1:
        raise ZulipError(LAST_OWNER_ROLE_MSG)
    group_events = await system_group_events_for_role_change(tx, user, role, rt.now())
    streams_before = await accessible_streams(tx, user)
    people_before = await guest_access.snapshot_user(tx, user.id)
    await store.users.update_role(tx, user.id, role)
    await publish_person(rt, tx, user, {"role": int(role)})
    audience = await store.users.list_active_user_ids(tx)

    def publish_group_changes() -> None:
        for event in group_events:
            rt.broker.publish(event, audience)

    tx.after_commit(publish_group_changes)
    updated = await _fresh(tx, user.id)
    await publish_role_stream_changes(rt, tx, updated, streams_before)
    await guest_access.publish_changes(rt, tx, people_before)
    return updated


async def apply_full_name(rt: Runtime, tx: Tx, user: UserRow, full_name: str) -> UserRow:
    """Rename `user` inside `tx`; send full_name (and realm_bot/update for a bot)."""
    await store.users.update_full_name(tx, user.id, full_name)
    await publish_person(rt, tx, user, {"full_name": full_name})
    if user.is_bot:
        await publish_bot_update(rt, tx, user, {"full_name": full_name})
    return await _fresh(tx, user.id)


async def publish_person(rt: Runtime, tx: Tx, user: UserRow, fields: JsonDict) -> None:
    """Queue realm_user/update {user_id, **fields} for those who can access `user`."""
    event = RealmUserUpdateEvent(person={"user_id": user.id, **fields})
    audience = await user_ids_who_can_access(tx, user)
    tx.after_commit(lambda: rt.broker.publish(event, audience))


async def publish_bot_update(rt: Runtime, tx: Tx, bot: UserRow, fields: JsonDict) -> None:
    """Queue realm_bot/update {user_id, **fields} for the bot's owner and administrators."""
    event = RealmBotUpdateEvent(bot={"user_id": bot.id, **fields})
    audience = await bot_owner_user_ids(tx, bot)
    tx.after_commit(lambda: rt.broker.publish(event, audience))


async def publish_email_changes(rt: Runtime, tx: Tx, old: UserRow, new: UserRow) -> None:
    """Events for a new real email or email visibility (SPEC: Delivery email, API email).

    Each viewer whose view of `delivery_email` changed gets it (null once hidden); everyone
    gets `new_email` when the API email changed, and the Gravatar when the address did.
    """
    realm = await store.realm.get_realm(tx)
    assert realm is not None
    audience = await user_ids_who_can_access(tx, new)
    viewers = await store.users.list_users(tx, user_ids=audience)
    per_viewer: dict[int, JsonDict] = {}
    for viewer in viewers:
        was = wire.can_see_delivery_email(viewer, old)
        now = wire.can_see_delivery_email(viewer, new)
        if now and (not was or old.delivery_email != new.delivery_email):
            per_viewer[viewer.id] = {
                "person": {"user_id": new.id, "delivery_email": new.delivery_email}
            }
        elif was and not now:
            per_viewer[viewer.id] = {"person": {"user_id": new.id, "delivery_email": None}}
    if per_viewer:
        event = RealmUserUpdateEvent(person={"user_id": new.id})
        tx.after_commit(lambda: rt.broker.publish(event, per_viewer))
    if old.delivery_email != new.delivery_email and new.avatar_source == "G":
        await publish_person(rt, tx, new, avatar_fields(new))
    new_api_email = wire.api_email(new, realm.host)
    if wire.api_email(old, realm.host) != new_api_email:
        await publish_person(rt, tx, new, {"new_email": new_api_email})


def avatar_fields(user: UserRow) -> JsonDict:
    """The avatar form of realm_user/update `person` (without user_id)."""
    url = wire.avatar_url(user, client_gravatar=False, email_visible=True) or ""
    return {
        "avatar_source": user.avatar_source,
        "avatar_url": url,
        "avatar_url_medium": url,
        "avatar_version": user.avatar_version,
    }


async def can_create_bot(conn: Conn, realm: RealmRow, actor: UserRow, bot_type: int) -> bool:
    """Zulip's bot creation policy: can_create_bots_group, or write-only bots' group."""
    if actor.is_admin:
        return True
    settings = await realm_group_settings(conn, realm)
    if await store.groups.is_user_in_setting(conn, actor, settings["can_create_bots_group"]):
        return True
    write_only = settings["can_create_write_only_bots_group"]
    return bot_type == 2 and await store.groups.is_user_in_setting(conn, actor, write_only)


async def do_change_user_role(rt: Runtime, target: UserRow, role: Role) -> None:
    """Give `target` a new role (the last human owner keeps theirs); send role."""
    async with rt.db.write() as tx:
        user = await _fresh(tx, target.id)
        if user.role != role:
            await apply_role(rt, tx, user, role)


@state_fetcher("realm_user")
async def _own_permissions_state(ctx: StateContext) -> None:
    """Zulip's per-user permission summaries, derived from the realm's group settings."""
    settings = await realm_group_settings(ctx.conn, ctx.realm)
    user = ctx.user

    async def allowed(setting: str) -> bool:
        return await store.groups.is_user_in_setting(ctx.conn, user, settings[setting])

    private = await allowed("can_create_private_channel_group")
    public = await allowed("can_create_public_channel_group")
    spectators = realm_settings.load(ctx.realm.settings_json).enable_spectator_access
    web_public = spectators and await allowed("can_create_web_public_channel_group")
    ctx.state.update(
        can_create_private_streams=private,
        can_create_public_streams=public,
        can_create_web_public_streams=web_public,
        # zulip-compat: deprecated summary of the three above (feature level 102).
        can_create_streams=private or public or web_public,
        can_subscribe_other_users=await allowed("can_add_subscribers_group"),
        can_invite_others_to_realm=await allowed("can_invite_users_group"),
    )

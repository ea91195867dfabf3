"""Loading another user for an acting user (Zulip's `access_user_by_id`) and who sees whom.

Every action that targets a user goes through these, so the error messages and the
permission rules are the same everywhere. When the realm's `can_access_all_users_group` is
not role:everyone, a guest sees only the people it shares a channel or a direct-message
conversation with (and every bot); everyone else sees everyone.
"""

from __future__ import annotations

from teamchat import store
from teamchat.actions.people.user_lookup import find_user_by_email
from teamchat.errors import ZulipError
from teamchat.lib import realm_settings, wire
from teamchat.lib import system_groups as sg
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import user_access as access_store
from teamchat.store.db import Conn


class InsufficientPermissionError(ZulipError):
    def __init__(self) -> None:
        super().__init__("Insufficient permission")


def can_admin_user(actor: UserRow, target: UserRow) -> bool:
    """Administrators may administer anyone; a bot's owner may administer the bot."""
    return actor.is_admin or (target.is_bot and target.bot_owner_id == actor.id)


def check_access(
    actor: UserRow,
    target: UserRow,
    *,
    allow_deactivated: bool = False,
    allow_bots: bool = False,
    for_admin: bool,
) -> UserRow:
    """`target` if `actor` may read it (or administer it, with `for_admin`)."""
    if target.is_bot and not allow_bots:
        raise ZulipError("No such user")
    if not target.is_active and not allow_deactivated:
        raise ZulipError("User is deactivated")
    if for_admin and not can_admin_user(actor, target):
        raise InsufficientPermissionError()
    return target


async def access_user_by_id(
    conn: Conn,
    actor: UserRow,
    user_id: int,
    *,
    allow_deactivated: bool = False,
    allow_bots: bool = False,
    for_admin: bool,
) -> UserRow:
    """Load user `user_id` for `actor`, or raise Zulip's error."""
    target = await store.users.get_user_by_id(conn, user_id)
    if target is None:
        raise ZulipError("No such user")
    check_access(
        actor,
        target,
        allow_deactivated=allow_deactivated,
        allow_bots=allow_bots,
        for_admin=for_admin,
    )
    return await _check_can_access(conn, actor, target, for_admin=for_admin)


async def access_user_by_email(
    conn: Conn,
    actor: UserRow,
    email: str,
    *,
    allow_deactivated: bool = False,
    allow_bots: bool = False,
    for_admin: bool,
) -> UserRow:
    """Load a user by real or API email; the real one only if `actor` may see it."""
    target = await find_user_by_email(conn, email)
    if (
        target is not None
        and email.lower() == target.delivery_email.lower()
        and not wire.can_see_delivery_email(actor, target)
    ):
        target = None
    if target is None:
        raise ZulipError("No such user")
    check_access(
        actor,
        target,
        allow_deactivated=allow_deactivated,
        allow_bots=allow_bots,
        for_admin=for_admin,
    )
    return await _check_can_access(conn, actor, target, for_admin=for_admin)


async def _check_can_access(
    conn: Conn, actor: UserRow, target: UserRow, *, for_admin: bool
) -> UserRow:
    # zulip-compat: access_user_common answers "Insufficient permission" for a user the
    # actor may not access under can_access_all_users_group (administrators see everyone).
    if not for_admin and not await can_access_user(conn, actor, target):
        raise InsufficientPermissionError()
    return target


async def access_bot_by_id(conn: Conn, actor: UserRow, bot_id: int) -> UserRow:
    """Load a bot `actor` may administer (its owner or an administrator)."""
    bot = await store.users.get_user_by_id(conn, bot_id)
    if bot is None or not bot.is_bot:
        raise ZulipError("No such bot")
    if not can_admin_user(actor, bot):
        raise InsufficientPermissionError()
    return bot


async def access_restricted(conn: Conn) -> bool:
    """Whether guests may access only some users (`can_access_all_users_group` is not
    role:everyone; Zulip allows only role:everyone and role:members there)."""
    realm = await store.realm.get_realm(conn)
    if realm is None:
        return False
    ids = await store.groups.system_group_ids(conn)
    value = realm_settings.group_settings(realm.settings_json, ids)["can_access_all_users_group"]
    return value != ids[sg.EVERYONE]


async def accessible_user_ids(
    conn: Conn, viewer: UserRow, *, include_deactivated: bool = True
) -> set[int] | None:
    """The people `viewer` may access (bots not listed: always accessible), None for all.

    Zulip's get_accessible_user_ids, with deactivated people counted through channels too
    (see store.user_access.shared_user_ids).
    """
    if not viewer.is_guest or not await access_restricted(conn):
        return None
    return await access_store.shared_user_ids(
        conn, viewer.id, include_deactivated=include_deactivated
    )


async def can_access_user(conn: Conn, viewer: UserRow, target: UserRow) -> bool:
    """Whether `viewer` may see `target` as itself rather than as an "Unknown user"."""
    if target.is_bot or target.id == viewer.id:
        return True
    accessible = await accessible_user_ids(conn, viewer)
    return accessible is None or target.id in accessible


async def inaccessible_user_ids(conn: Conn, viewer: UserRow, users: list[UserRow]) -> set[int]:
    """The ids among `users` that `viewer` may not access."""
    accessible = await accessible_user_ids(conn, viewer)
    if accessible is None:
        return set()
    return {u.id for u in users if not u.is_bot and u.id not in accessible}


async def user_ids_who_can_access(conn: Conn, target: UserRow) -> list[int]:
    """Active users who can see `target` (events about `target` go to them).

    Zulip's get_user_ids_who_can_access_user: everyone unless access is restricted and
    `target` is a person; then non-guests plus the guests sharing something with `target`.
    """
    if target.is_bot or not await access_restricted(conn):
        return await store.users.list_active_user_ids(conn)
    shared = await access_store.shared_user_ids(conn, target.id, include_deactivated=False)
    return sorted(set(await access_store.active_non_guest_ids(conn)) | shared)


async def bot_owner_user_ids(conn: Conn, bot: UserRow) -> list[int]:
    """Who receives `realm_bot` events about `bot`: active administrators and its owner."""
    users = await store.users.list_users(conn, is_active=True)
    return [u.id for u in users if not u.is_bot and (u.is_admin or u.id == bot.bot_owner_id)]


async def presence_audience(rt: Runtime, conn: Conn, target: UserRow) -> list[int]:
    """Who gets `presence` and `user_status` events about `target`: everyone active, or with
    `guest_access_limits_presence` only those who can access `target`."""
    if rt.settings.guest_access_limits_presence:
        return await user_ids_who_can_access(conn, target)
    return await store.users.list_active_user_ids(conn)


async def presence_visible_ids(rt: Runtime, conn: Conn, viewer: UserRow) -> set[int] | None:
    """Whose presence and status `viewer` gets (None: everyone's).

    zulip-compat: limited only with CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE (off by default).
    """
    if not rt.settings.guest_access_limits_presence:
        return None
    return await accessible_user_ids(conn, viewer, include_deactivated=False)

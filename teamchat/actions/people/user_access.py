"""Loading another user for an acting user (Zulip's `access_user_by_id`) and who sees whom.

Every action that targets a user goes through these, so the error messages and the
permission rules are the same everywhere.
"""

from __future__ import annotations

from teamchat import store
from teamchat.actions.people import users as user_actions  # module import: users imports us
from teamchat.errors import ZulipError
from teamchat.lib import wire
from teamchat.records import UserRow
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
    return check_access(
        actor,
        target,
        allow_deactivated=allow_deactivated,
        allow_bots=allow_bots,
        for_admin=for_admin,
    )


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
    target = await user_actions.find_user_by_email(conn, email)
    if (
        target is not None
        and email.lower() == target.delivery_email.lower()
        and not wire.can_see_delivery_email(actor, target)
    ):
        target = None
    if target is None:
        raise ZulipError("No such user")
    return check_access(
        actor,
        target,
        allow_deactivated=allow_deactivated,
        allow_bots=allow_bots,
        for_admin=for_admin,
    )


async def access_bot_by_id(conn: Conn, actor: UserRow, bot_id: int) -> UserRow:
    """Load a bot `actor` may administer (its owner or an administrator)."""
    bot = await store.users.get_user_by_id(conn, bot_id)
    if bot is None or not bot.is_bot:
        raise ZulipError("No such bot")
    if not can_admin_user(actor, bot):
        raise InsufficientPermissionError()
    return bot


async def user_ids_who_can_access(conn: Conn, target: UserRow) -> list[int]:
    """Active users who can see `target` (events about `target` go to them).

    Everyone can access everyone while `can_access_all_users_group` is the default
    (role:everyone); limited guests would also need channel subscriptions to decide.
    """
    return await store.users.list_active_user_ids(conn)


async def bot_owner_user_ids(conn: Conn, bot: UserRow) -> list[int]:
    """Who receives `realm_bot` events about `bot`: active administrators and its owner."""
    users = await store.users.list_users(conn, is_active=True)
    return [u.id for u in users if not u.is_bot and (u.is_admin or u.id == bot.bot_owner_id)]

"""The realm's system bots (Welcome Bot, Notification Bot), as Zulip's cross-realm bots.

They are created with the organization (and, for databases made before a bot existed, the
first time it is needed), never announced with realm_user/add, and listed in the register
state's `cross_realm_bots` (with `is_system_bot`) instead of `realm_users`.
"""

from __future__ import annotations

from teamchat import store
from teamchat.lib import wire
from teamchat.lib.api_types import CrossRealmBot
from teamchat.lib.passwords import random_api_key
from teamchat.records import BotType, RealmRow, Role, UserRow
from teamchat.runtime import Runtime
from teamchat.store.db import Tx

WELCOME_BOT = "welcome-bot"
NOTIFICATION_BOT = "notification-bot"
SYSTEM_BOT_NAMES = {WELCOME_BOT: "Welcome Bot", NOTIFICATION_BOT: "Notification Bot"}


def system_bot_email(key: str, realm_host: str) -> str:
    """The address of the system bot `key` in a realm on `realm_host`."""
    return f"{key}@{realm_host}"


def system_bot_emails(realm_host: str) -> set[str]:
    """The addresses of every system bot of a realm on `realm_host`."""
    return {system_bot_email(key, realm_host) for key in SYSTEM_BOT_NAMES}


def is_system_bot(user: UserRow, realm_host: str) -> bool:
    """Whether `user` is one of the realm's system bots."""
    return (
        user.is_bot
        and user.bot_owner_id is None
        and user.delivery_email in system_bot_emails(realm_host)
    )


async def create_system_bots(tx: Tx, realm_host: str, now: int) -> None:
    """Insert the system bots that do not exist yet (no events: see the module docstring)."""
    for key, name in SYSTEM_BOT_NAMES.items():
        email = system_bot_email(key, realm_host)
        if await store.users.get_user_by_delivery_email(tx, email) is not None:
            continue
        await store.users.insert(
            tx,
            delivery_email=email,
            full_name=name,
            api_key=random_api_key(),
            password_hash=None,
            role=Role.MEMBER,
            date_joined=now,
            is_bot=True,
            bot_type=int(BotType.GENERIC),
        )


async def ensure_system_bot(rt: Runtime, key: str) -> UserRow:
    """The system bot `key`, created (with any other missing one) the first time it is needed."""
    async with rt.db.read() as conn:
        realm = await store.realm.get_realm(conn)
        assert realm is not None
        bot = await store.users.get_user_by_delivery_email(conn, system_bot_email(key, realm.host))
    if bot is not None:
        return bot
    async with rt.db.write() as tx:
        await create_system_bots(tx, realm.host, rt.now())
        bot = await store.users.get_user_by_delivery_email(tx, system_bot_email(key, realm.host))
    assert bot is not None
    return bot


def cross_realm_bot_objects(
    realm: RealmRow, viewer: UserRow, bots: list[UserRow]
) -> list[CrossRealmBot]:
    """`cross_realm_bots` entries for the system bots among `bots`."""
    objects = []
    for bot in bots:
        obj = wire.user_object(bot, viewer=viewer, realm_host=realm.host)
        objects.append(CrossRealmBot(**{f: getattr(obj, f) for f in obj.__struct_fields__}))
    return objects

"""Creating users and changing their credentials; `realm_user`/`realm_bot` events.

Every function here that writes is a `do_*` with one transaction; `check_*` validates first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import msgspec

from teamchat import store
from teamchat.actions.org.system_group_events import publish_system_group_joins
from teamchat.actions.people import user_access
from teamchat.actions.people.password_checks import password_changed
from teamchat.actions.people.user_lookup import find_user_by_email as find_user_by_email
from teamchat.errors import ZulipError
from teamchat.events import rules_people  # noqa: F401 (registers realm_user event rules)
from teamchat.events.internal import IF_CAPS
from teamchat.events.types import BotObject, RealmBotAddEvent, RealmUserAddEvent
from teamchat.lib import user_settings, wire
from teamchat.lib.api_types import JsonDict
from teamchat.lib.passwords import hash_password, password_problem, random_api_key
from teamchat.lib.validation import full_name_problem, is_valid_email
from teamchat.records import BotDefaultsRow, BotType, EmailVisibility, RealmRow, Role, UserRow
from teamchat.runtime import Runtime
from teamchat.store import user_settings as settings_store
from teamchat.store.conn import IntegrityError
from teamchat.store.db import Tx

# The API email of a user with a hidden address: user{id}@{realm host}.


async def access_user_by_id(
    rt: Runtime, user_id: int, *, allow_deactivated: bool = True
) -> UserRow:
    async with rt.db.read() as conn:
        user = await store.users.get_user_by_id(conn, user_id)
    if user is None or (not allow_deactivated and not user.is_active):
        raise ZulipError("No such user")
    return user


async def check_create_user(
    rt: Runtime,
    *,
    email: str,
    full_name: str,
    password: str | None,
    role: Role = Role.MEMBER,
    bot_type: BotType | None = None,
    bot_owner: UserRow | None = None,
) -> UserRow:
    """Validate a new account's fields, hash its password, and create it."""
    email = email.strip()
    if not is_valid_email(email):
        raise ZulipError(f"Invalid email '{email}'")
    problem = full_name_problem(full_name)
    if problem:
        raise ZulipError(problem)
    password_hash = None
    if password is not None:
        problem = password_problem(password)
        if problem:
            raise ZulipError(problem)
        password_hash = await asyncio.to_thread(hash_password, password)
    return await do_create_user(
        rt,
        email=email,
        full_name=full_name.strip(),
        password_hash=password_hash,
        role=role,
        bot_type=bot_type,
        bot_owner=bot_owner,
    )


async def do_create_user(
    rt: Runtime,
    *,
    email: str,
    full_name: str,
    password_hash: str | None,
    role: Role,
    bot_type: BotType | None = None,
    bot_owner: UserRow | None = None,
) -> UserRow:
    """Insert the account and subscribe a person to the default channels; send realm_user/add
    to everyone (and realm_bot/add for bots)."""
    async with rt.db.write() as tx:
        realm = await store.realm.get_realm(tx)
        if realm is None:
            raise ZulipError("This database has no organization yet; create one first.")
        user = await insert_user(
            rt,
            tx,
            realm,
            email=email,
            full_name=full_name,
            password_hash=password_hash,
            role=role,
            bot_type=bot_type,
            bot_owner=bot_owner,
        )
        await publish_user_added(rt, tx, user, realm.host)
        if bot_type is None:
            await join_default_channels(rt, tx, user, [])
    return user


async def join_default_channels(
    rt: Runtime, tx: Tx, user: UserRow, extra_stream_ids: Sequence[int]
) -> None:
    """Subscribe a new account to the realm's default channels (and `extra_stream_ids`),
    as Zulip's do_create_user does."""
    from teamchat.store import default_streams as default_store

    stream_ids = [*await default_store.list_default_stream_ids(tx), *extra_stream_ids]
    await join_first_channels(rt, tx, user, stream_ids)


# zulip-compat: a new account's first feed (Zulip's add_new_user_history): the newest
# messages of the past week in its channels whose history subscribers may read, all of them
# read but the newest few, so the inbox and the feed are not empty on the first day.
FIRST_FEED_SECS = 7 * 24 * 3600
FIRST_FEED_MESSAGES = 1000
FIRST_FEED_UNREAD = 20


async def join_first_channels(
    rt: Runtime, tx: Tx, user: UserRow, stream_ids: Sequence[int]
) -> None:
    """Subscribe a new account to the (unarchived) channels of `stream_ids` and give it
    their recent messages."""
    # Imported here: the subscription actions look users up through this module.
    from teamchat.actions.channels.subscriptions import subscribe_users
    from teamchat.store import message_flags as flag_store
    from teamchat.store import streams as stream_store

    streams = await stream_store.list_streams(tx, stream_ids=sorted(set(stream_ids)))
    active = [stream for stream in streams if not stream.is_archived]
    if not active:
        return
    await subscribe_users(rt, tx, active, [user], {})
    readable = [stream.recipient_id for stream in active if stream.history_public_to_subscribers]
    await flag_store.add_first_feed(
        tx,
        user.id,
        readable,
        since=rt.now() - FIRST_FEED_SECS,
        limit=FIRST_FEED_MESSAGES,
        unread=FIRST_FEED_UNREAD,
    )


async def insert_user(
    rt: Runtime,
    tx: Tx,
    realm: RealmRow,
    *,
    email: str,
    full_name: str,
    password_hash: str | None,
    role: Role,
    bot_type: BotType | None = None,
    bot_owner: UserRow | None = None,
) -> UserRow:
    """Insert a user whose settings start from the realm's current defaults."""
    defaults = user_settings.load(await settings_store.get_realm_defaults_json(tx, realm.id))
    visibility = EmailVisibility(defaults.email_address_visibility)
    if bot_type is not None:
        # zulip-compat: bots always show their real email address.
        visibility = EmailVisibility.EVERYONE
        defaults = user_settings.with_changes(
            defaults, {"email_address_visibility": int(visibility)}
        )
    try:
        user_id = await store.users.insert(
            tx,
            delivery_email=email,
            full_name=full_name,
            api_key=random_api_key(),
            password_hash=password_hash,
            role=role,
            date_joined=rt.now(),
            is_bot=bot_type is not None,
            bot_type=int(bot_type) if bot_type is not None else None,
            bot_owner_id=bot_owner.id if bot_owner else None,
            email_address_visibility=visibility,
            settings_json=user_settings.dump(defaults),
        )
    except IntegrityError:
        raise ZulipError(f"Email '{email}' already in use") from None
    user = await store.users.get_user_by_id(tx, user_id)
    assert user is not None
    return user


async def publish_user_added(
    rt: Runtime,
    tx: Tx,
    user: UserRow,
    realm_host: str,
    services: list[JsonDict] | None = None,
    bot_defaults: BotDefaultsRow | None = None,
) -> None:
    """Queue realm_user/add for every active user, user_group/add_members for the system
    groups the account joins, and realm_bot/add for a bot's audience.

    Guests who may not access the new person get Zulip's "Unknown user" placeholder instead,
    unless their client declared `user_list_incomplete` (then nothing).
    """
    viewers = await store.users.list_users(tx, is_active=True)
    restricted = not user.is_bot and await user_access.access_restricted(tx)
    limited = [v.id for v in viewers if restricted and v.is_guest and v.id != user.id]
    audience = {
        viewer.id: {
            "person": wire.user_object(user, viewer=viewer, realm_host=realm_host, profile_data={})
        }
        for viewer in viewers
        if viewer.id not in limited
    }
    event = RealmUserAddEvent(
        person=wire.user_object(user, viewer=None, realm_host=realm_host, profile_data={})
    )
    tx.after_commit(lambda: rt.broker.publish(event, audience))
    if limited:
        placeholder = msgspec.to_builtins(
            RealmUserAddEvent(person=wire.inaccessible_user_object(user.id, realm_host))
        )
        placeholder[IF_CAPS] = {"user_list_incomplete": False}
        tx.after_commit(lambda: rt.broker.publish(placeholder, limited))
    await publish_system_group_joins(rt, tx, user)
    if user.is_bot and user.bot_type is not None:
        bot_event = RealmBotAddEvent(bot=bot_object(user, services or [], bot_defaults))
        admins = [
            viewer.id
            for viewer in viewers
            if not viewer.is_bot and (viewer.is_admin or viewer.id == user.bot_owner_id)
        ]
        tx.after_commit(lambda: rt.broker.publish(bot_event, admins))


def bot_object(
    bot: UserRow, services: list[JsonDict], defaults: BotDefaultsRow | None = None
) -> BotObject:
    """The `realm_bot` object of `bot` (register's realm_bots and realm_bot/add)."""
    assert bot.bot_type is not None
    defaults = defaults or BotDefaultsRow(bot_id=bot.id)
    return BotObject(
        default_sending_stream=defaults.sending_stream,
        default_events_register_stream=defaults.events_register_stream,
        default_all_public_streams=defaults.all_public_streams,
        user_id=bot.id,
        full_name=bot.full_name,
        api_key=bot.api_key,
        avatar_url=wire.avatar_url(bot, client_gravatar=False, email_visible=True) or "",
        owner_id=bot.bot_owner_id,
        services=services,
        email=bot.delivery_email,
        bot_type=bot.bot_type,
        is_active=bot.is_active,
    )


async def check_set_password(rt: Runtime, user: UserRow, password: str) -> None:
    problem = password_problem(password)
    if problem:
        raise ZulipError(problem)
    password_hash = await asyncio.to_thread(hash_password, password)
    await do_set_password(rt, user, password_hash)


async def do_set_password(rt: Runtime, user: UserRow, password_hash: str) -> None:
    """Store a new password hash (no event: passwords are never sent); the account's failed
    attempts are forgiven and its web sessions end (their fingerprint no longer matches)."""
    async with rt.db.write() as tx:
        await store.users.update_password_hash(tx, user.id, password_hash)
        await password_changed(tx, rt, user)


async def do_regenerate_api_key(rt: Runtime, user: UserRow) -> str:
    """Replace `user`'s API key; the old one stops working at once. Returns the new key."""
    api_key = random_api_key()
    async with rt.db.write() as tx:
        await store.users.update_api_key(tx, user.id, api_key)
    return api_key


async def check_can_create_users(rt: Runtime, user: UserRow) -> None:
    """POST /users: raise unless the server operator let `user` create accounts.

    zulip-compat: since feature level 36, an administrator also needs `can_create_users`.
    """
    async with rt.db.read() as conn:
        allowed = await store.users.get_can_create_users(conn, user.id)
    if not allowed:
        raise ZulipError("User not authorized to create users")


async def do_set_can_create_users(rt: Runtime, user: UserRow, allowed: bool) -> None:
    """Grant or revoke `can_create_users` (no event: Zulip's API does not show it)."""
    async with rt.db.write() as tx:
        await store.users.update_can_create_users(tx, user.id, allowed)

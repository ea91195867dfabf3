"""Bots: creating them (all four types), listing, changing, regenerating their API keys.

A bot is a user with `bot_type` and an owner. Its owner and the administrators hear about
it through `realm_bot` events; everyone who can access it gets `realm_user` events.
Embedded bots run in `teamchat.actions.integrations.embedded_bots`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from teamchat import store
from teamchat.actions.org.system_bots import is_system_bot
from teamchat.actions.people.bot_defaults import (
    DefaultsChange,
    apply_defaults,
    check_defaults,
    defaults_fields,
    get_defaults,
)
from teamchat.actions.people.user_access import access_bot_by_id, bot_owner_user_ids
from teamchat.actions.people.user_admin import (
    apply_full_name,
    apply_role,
    can_create_bot,
    check_full_name,
    check_role_change,
    publish_bot_update,
    publish_person,
)
from teamchat.actions.people.users import bot_object, insert_user, publish_user_added
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import ZulipError
from teamchat.events.types import RealmBotAddEvent, RealmBotUpdateEvent
from teamchat.events.types_people import RealmBotDeleteEvent
from teamchat.lib import wire
from teamchat.lib.api_types import JsonDict
from teamchat.lib.passwords import random_api_key
from teamchat.lib.validation import is_valid_email
from teamchat.records import BotDefaultsRow, BotType, Role, UserRow
from teamchat.runtime import Runtime
from teamchat.store import bot_defaults as defaults_store
from teamchat.store import bots as bots_store
from teamchat.store.db import Conn, Tx

# Zulip's embedded bots (zulip_bots) and their configuration templates.
EMBEDDED_BOTS: dict[str, dict[str, str]] = {
    "converter": {},
    "encrypt": {},
    "helloworld": {},
    "virtual_fs": {},
    "giphy": {"key": ""},
    "followup": {"stream": ""},
}
INTERFACE_TYPES = (1, 2)  # generic, Slack-compatible outgoing webhooks


@dataclass(frozen=True, kw_only=True)
class NewBot:
    """POST /users/me/bots parameters."""

    full_name: str
    short_name: str
    bot_type: int = int(BotType.GENERIC)
    payload_url: str = ""
    service_name: str | None = None
    config_data: dict[str, str] | None = None
    interface_type: int = 1
    defaults: DefaultsChange = field(default_factory=DefaultsChange)


@dataclass(frozen=True, kw_only=True)
class BotUpdate:
    """PATCH /bots/{bot_id} parameters; None means "not given"."""

    full_name: str | None = None
    role: Role | None = None
    bot_owner_id: int | None = None
    config_data: dict[str, str] | None = None
    service_payload_url: str | None = None
    service_interface: int = 1
    defaults: DefaultsChange = field(default_factory=DefaultsChange)


def require_member_or_admin(user: UserRow) -> None:
    """Guests and bots may not manage bots (Zulip's require_member_or_admin)."""
    if user.is_guest:
        raise ZulipError("Not allowed for guest users")
    if user.is_bot:
        raise ZulipError("This endpoint does not accept bot requests.")


def service_dicts(bot: UserRow, services: list[JsonDict], config: dict[str, str]) -> list[JsonDict]:
    """The `services` of a bot object: outgoing webhooks, or the embedded bot's config."""
    if bot.bot_type == BotType.OUTGOING_WEBHOOK:
        return [{k: s[k] for k in ("base_url", "interface", "token")} for s in services]
    if bot.bot_type == BotType.EMBEDDED and services:
        return [{"config_data": config, "service_name": services[0]["name"]}]
    return []


async def _services_of(conn: Conn, bot: UserRow) -> list[JsonDict]:
    rows = await bots_store.list_services(conn, bot.id)
    config = (await bots_store.get_configs(conn)).get(bot.id, {})
    return service_dicts(bot, [_service_fields(row) for row in rows], config)


def _service_fields(row: object) -> JsonDict:
    return {k: getattr(row, k) for k in ("name", "base_url", "interface", "token")}


@state_fetcher("realm_bot")
async def _realm_bots_state(ctx: StateContext) -> None:
    user = ctx.user
    bots = await store.users.list_bots(ctx.conn, owner_id=None if user.is_admin else user.id)
    bots = [bot for bot in bots if not is_system_bot(bot, ctx.realm.host)]
    services: dict[int, list[JsonDict]] = {}
    for row in await bots_store.list_services(ctx.conn):
        services.setdefault(row.bot_id, []).append(_service_fields(row))
    configs = await bots_store.get_configs(ctx.conn)
    defaults = await defaults_store.all_bots(ctx.conn)
    ctx.state["realm_bots"] = [
        bot_object(
            bot,
            service_dicts(bot, services.get(bot.id, []), configs.get(bot.id, {})),
            defaults.get(bot.id),
        )
        for bot in bots
    ]


@state_fetcher("realm_embedded_bots")
async def _embedded_bots_state(ctx: StateContext) -> None:
    ctx.state["realm_embedded_bots"] = [
        {"name": name, "config": dict(config)} for name, config in EMBEDDED_BOTS.items()
    ]


async def check_add_bot(rt: Runtime, owner: UserRow, new: NewBot) -> UserRow:
    """Validate a new bot in Zulip's order, then create it owned by `owner`."""
    require_member_or_admin(owner)
    short_name = new.short_name.strip()
    if not short_name:
        raise ZulipError("Bad name or username")
    service_name = new.service_name
    if new.bot_type != BotType.INCOMING_WEBHOOK:
        service_name = service_name or short_name
    async with rt.db.read() as conn:
        realm = await store.realm.get_realm(conn)
        assert realm is not None
        full_name = await check_full_name(conn, realm, new.full_name, 0)
        email = f"{short_name}-bot@{realm.host}"
        if not is_valid_email(email):
            raise ZulipError("Bad name or username")
        if new.bot_type == BotType.EMBEDDED and service_name not in EMBEDDED_BOTS:
            raise ZulipError("Invalid embedded bot name.")
        if await store.users.get_user_by_delivery_email(conn, email) is not None:
            raise ZulipError("Username already in use")
        await _check_bot_name_available(conn, full_name)
        if not await can_create_bot(conn, realm, owner, new.bot_type):
            raise ZulipError("Insufficient permission")
        defaults = await check_defaults(conn, owner, BotDefaultsRow(bot_id=0), new.defaults)
    if new.bot_type not in tuple(BotType):
        raise ZulipError("Invalid bot type")
    if new.interface_type not in INTERFACE_TYPES:
        raise ZulipError("Invalid interface type")
    return await do_create_bot(
        rt, owner, new, email=email, full_name=full_name, service_name=service_name,
        defaults=defaults,
    )  # fmt: skip


async def _check_bot_name_available(conn: Conn, full_name: str) -> None:
    for user in await store.users.list_users(conn, is_active=True):
        if user.full_name == full_name:
            raise ZulipError("Name is already in use!")


async def do_create_bot(
    rt: Runtime,
    owner: UserRow,
    new: NewBot,
    *,
    email: str,
    full_name: str,
    service_name: str | None,
    defaults: BotDefaultsRow | None = None,
) -> UserRow:
    """Insert the bot, its service, configuration and default channels; send realm_user/add
    and realm_bot/add."""
    bot_type = BotType(new.bot_type)
    async with rt.db.write() as tx:
        realm = await store.realm.get_realm(tx)
        assert realm is not None
        bot = await insert_user(
            rt,
            tx,
            realm,
            email=email,
            full_name=full_name,
            password_hash=None,
            role=Role.MEMBER,
            bot_type=bot_type,
            bot_owner=owner,
        )
        if bot_type in (BotType.OUTGOING_WEBHOOK, BotType.EMBEDDED) and service_name:
            await bots_store.insert_service(
                tx,
                bot_id=bot.id,
                name=service_name,
                base_url=new.payload_url,
                interface=new.interface_type,
                token=random_api_key(),
            )
        if bot_type == BotType.INCOMING_WEBHOOK and service_name:
            await bots_store.set_config(tx, bot.id, {"integration_id": service_name})
        if bot_type in (BotType.INCOMING_WEBHOOK, BotType.EMBEDDED) and new.config_data:
            await bots_store.set_config(tx, bot.id, new.config_data)
        bot_defaults = msgspec.structs.replace(defaults or BotDefaultsRow(bot_id=0), bot_id=bot.id)
        await apply_defaults(rt, tx, bot, bot_defaults, bot_defaults, notify=False)
        services = await _services_of(tx, bot)
        await publish_user_added(rt, tx, bot, realm.host, services, bot_defaults)
    return bot


def bot_response(bot: UserRow, defaults: BotDefaultsRow) -> JsonDict:
    """The fields POST /users/me/bots and GET /users/me/bots share."""
    return {
        "user_id": bot.id,
        "api_key": bot.api_key,
        "avatar_url": wire.avatar_url(bot, client_gravatar=False, email_visible=True),
        **defaults_fields(defaults),
    }


async def bot_defaults(rt: Runtime, bot: UserRow) -> BotDefaultsRow:
    async with rt.db.read() as conn:
        return await get_defaults(conn, bot.id)


async def get_own_bots(rt: Runtime, owner: UserRow) -> list[JsonDict]:
    """GET /users/me/bots: `owner`'s active bots."""
    require_member_or_admin(owner)
    async with rt.db.read() as conn:
        bots = await store.users.list_bots(conn, owner_id=owner.id)
        defaults = await defaults_store.all_bots(conn)
    return [
        {
            "username": bot.delivery_email,
            "full_name": bot.full_name,
            **bot_response(bot, defaults.get(bot.id) or BotDefaultsRow(bot_id=bot.id)),
        }
        for bot in bots
        if bot.is_active
    ]


@dataclass(kw_only=True)
class CheckedBotUpdate:
    full_name: str | None = None
    role: Role | None = None
    new_owner: UserRow | None = None
    payload: tuple[str, int] | None = None
    config_data: dict[str, str] | None = None
    defaults: tuple[BotDefaultsRow, BotDefaultsRow] | None = None


async def check_update_bot(rt: Runtime, actor: UserRow, bot_id: int, update: BotUpdate) -> JsonDict:
    """PATCH /bots/{bot_id}: check every change, store them together, describe the bot."""
    require_member_or_admin(actor)
    checked = CheckedBotUpdate(config_data=update.config_data)
    async with rt.db.read() as conn:
        bot = await access_bot_by_id(conn, actor, bot_id)
        realm = await store.realm.get_realm(conn)
        assert realm is not None
        if update.full_name is not None:
            name = await check_full_name(conn, realm, update.full_name, bot.id)
            if name != bot.full_name:
                await _check_bot_name_available(conn, name)
                checked.full_name = name
        if update.role is not None and update.role != bot.role:
            await check_role_change(conn, actor, bot, update.role)
            checked.role = update.role
        if update.bot_owner_id is not None:
            checked.new_owner = await _check_new_owner(conn, bot, update.bot_owner_id)
        if update.service_payload_url is not None:
            if update.service_interface not in INTERFACE_TYPES:
                raise ZulipError("Invalid interface type")
            if not await bots_store.list_services(conn, bot.id):
                raise ZulipError("This bot has no outgoing webhook service.")
            checked.payload = (update.service_payload_url, update.service_interface)
        old = await get_defaults(conn, bot.id)
        checked.defaults = (old, await check_defaults(conn, actor, old, update.defaults))
    fresh = await do_update_bot(rt, bot, checked)
    response: JsonDict = {
        "full_name": fresh.full_name,
        "avatar_url": wire.avatar_url(fresh, client_gravatar=False, email_visible=True),
        "service_interface": update.service_interface,
        "service_payload_url": update.service_payload_url,
        "config_data": update.config_data,
        **defaults_fields(checked.defaults[1]),
    }
    if fresh.bot_owner_id is not None:
        owner = await _user(rt, fresh.bot_owner_id)
        response["bot_owner"] = owner.delivery_email
    return response


async def _check_new_owner(conn: Conn, bot: UserRow, owner_id: int) -> UserRow | None:
    owner = await store.users.get_user_by_id(conn, owner_id)
    if owner is None:
        raise ZulipError("Failed to change owner, no such user")
    if not owner.is_active:
        raise ZulipError("Failed to change owner, user is deactivated")
    if owner.is_bot:
        raise ZulipError("Failed to change owner, bots can't own other bots")
    return owner if owner.id != bot.bot_owner_id else None


async def _user(rt: Runtime, user_id: int) -> UserRow:
    async with rt.db.read() as conn:
        user = await store.users.get_user_by_id(conn, user_id)
    assert user is not None
    return user


async def do_update_bot(rt: Runtime, bot: UserRow, update: CheckedBotUpdate) -> UserRow:
    """Store checked bot changes in one transaction, each with its events."""
    async with rt.db.write() as tx:
        if update.role is not None:
            bot = await apply_role(rt, tx, bot, update.role)
        if update.full_name is not None:
            bot = await apply_full_name(rt, tx, bot, update.full_name)
        if update.new_owner is not None:
            bot = await _apply_owner(rt, tx, bot, update.new_owner)
        if update.payload is not None:
            [service] = (await bots_store.list_services(tx, bot.id))[:1]
            url, interface = update.payload
            await bots_store.update_service(tx, service.id, base_url=url, interface=interface)
            await publish_bot_update(rt, tx, bot, {"services": await _services_of(tx, bot)})
        if update.defaults is not None:
            old, new = update.defaults
            await apply_defaults(rt, tx, bot, new, old, notify=True)
        if update.config_data is not None:
            await bots_store.set_config(tx, bot.id, update.config_data)
            if bot.bot_type == BotType.EMBEDDED:
                await publish_bot_update(rt, tx, bot, {"services": await _services_of(tx, bot)})
    return bot


async def _apply_owner(rt: Runtime, tx: Tx, bot: UserRow, owner: UserRow) -> UserRow:
    """Zulip's do_change_bot_owner events: the old owner loses the bot, the new one gains it."""
    previous = await store.users.get_user_by_id(tx, bot.bot_owner_id or 0)
    await store.users.update_bot_owner(tx, bot.id, owner.id)
    fresh = await store.users.get_user_by_id(tx, bot.id)
    assert fresh is not None
    await publish_person(rt, tx, fresh, {"bot_owner_id": owner.id})
    update_ids = set(await bot_owner_user_ids(tx, fresh))
    if previous is not None and previous.is_active and not previous.is_admin:
        delete = RealmBotDeleteEvent(bot={"user_id": bot.id})
        tx.after_commit(lambda: rt.broker.publish(delete, [previous.id]))
        update_ids.discard(previous.id)
    if not owner.is_admin:
        add = RealmBotAddEvent(bot=bot_object(fresh, await _services_of(tx, fresh)))
        tx.after_commit(lambda: rt.broker.publish(add, [owner.id]))
        update_ids.discard(owner.id)
    update = RealmBotUpdateEvent(bot={"user_id": bot.id, "owner_id": owner.id})
    tx.after_commit(lambda: rt.broker.publish(update, sorted(update_ids)))
    return fresh


async def check_regenerate_bot_api_key(rt: Runtime, actor: UserRow, bot_id: int) -> str:
    """POST /bots/{bot_id}/api_key/regenerate; returns the new key."""
    require_member_or_admin(actor)
    async with rt.db.read() as conn:
        bot = await access_bot_by_id(conn, actor, bot_id)
    return await do_regenerate_bot_api_key(rt, bot)


async def do_regenerate_bot_api_key(rt: Runtime, bot: UserRow) -> str:
    """A new key for `bot` (the old one stops working at once); send realm_bot/update."""
    api_key = random_api_key()
    async with rt.db.write() as tx:
        await store.users.update_api_key(tx, bot.id, api_key)
        await publish_bot_update(rt, tx, bot, {"api_key": api_key})
    return api_key

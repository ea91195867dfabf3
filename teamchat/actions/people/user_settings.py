"""Personal settings (PATCH /settings) and the realm's defaults for new users
(PATCH /realm/user_settings_defaults), with their register state and events.

New users copy the realm defaults when they are created (actions.users.insert_user);
changing the defaults later never touches existing users.
"""

from __future__ import annotations

import asyncio
import math
import zoneinfo
from collections.abc import Mapping
from functools import cache

from teamchat import store
from teamchat.actions.org.permissions import require_realm_admin
from teamchat.actions.people import presence, web_sessions
from teamchat.actions.people.password_checks import check_password, password_changed
from teamchat.actions.people.setting_events import (
    publish_export_consent,
    publish_setting_change,
    store_settings,
)
from teamchat.actions.people.user_admin import (
    apply_full_name,
    check_full_name,
    publish_email_changes,
    publish_person,
)
from teamchat.actions.people.user_status import NewStatus, apply_status
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import RateLimitedError, ZulipError
from teamchat.events.types_people import RealmUserSettingsDefaultsEvent
from teamchat.lib import realm_settings, user_settings, wire
from teamchat.lib.api_types import JsonDict
from teamchat.lib.passwords import hash_password, password_problem
from teamchat.lib.user_settings import SettingValue
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import user_settings as settings_store
from teamchat.store.db import Conn, Tx

EXTRA_SETTINGS_STATE: JsonDict = {
    "emojiset_choices": user_settings.EMOJISET_CHOICES,
    "available_notification_sounds": user_settings.AVAILABLE_NOTIFICATION_SOUNDS,
}
LEGACY_STATE_SETTINGS = (user_settings.DISPLAY_SETTINGS | user_settings.NOTIFICATION_SETTINGS) - {
    "timezone"
}


@cache
def _timezones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def check_setting_values(
    changes: Mapping[str, SettingValue], *, realm_defaults: bool = False
) -> None:
    """Reject the first unacceptable value with a message naming its parameter."""
    for name, value in changes.items():
        problem = user_settings.setting_problem(name, value, realm_default=realm_defaults)
        if problem:
            raise ZulipError(problem)


@state_fetcher("user_settings", "update_display_settings", "update_global_notifications")
async def _user_settings_state(ctx: StateContext) -> None:
    user = await store.users.get_user_by_id(ctx.conn, ctx.user.id) or ctx.user
    values = user_settings.as_dict(user_settings.load(user.settings_json))
    ctx.state["user_settings"] = {**values, "timezone": user.timezone, **EXTRA_SETTINGS_STATE}
    if not ctx.caps.user_settings_object:
        # zulip-compat: clients without user_settings_object read these at the top level.
        ctx.state.update({name: values[name] for name in LEGACY_STATE_SETTINGS})
        ctx.state.update(timezone=user.timezone, **EXTRA_SETTINGS_STATE)


@state_fetcher("realm_user_settings_defaults")
async def _realm_defaults_state(ctx: StateContext) -> None:
    defaults = await _realm_defaults(ctx.conn, ctx.realm.id)
    ctx.state["realm_user_settings_defaults"] = {
        **user_settings.as_dict(defaults),
        **EXTRA_SETTINGS_STATE,
    }


async def _realm_defaults(conn: Conn, realm_id: int) -> user_settings.UserSettings:
    return user_settings.load(await settings_store.get_realm_defaults_json(conn, realm_id))


async def get_realm_defaults(rt: Runtime) -> dict[str, SettingValue]:
    """The current defaults for new users (every setting)."""
    async with rt.db.read() as conn:
        realm = await store.realm.get_realm(conn)
        if realm is None:
            raise ZulipError("This database has no organization yet.")
        return user_settings.as_dict(await _realm_defaults(conn, realm.id))


async def check_update_realm_defaults(
    rt: Runtime, actor: UserRow, changes: Mapping[str, SettingValue]
) -> None:
    """PATCH /realm/user_settings_defaults (administrators)."""
    require_realm_admin(actor)
    await check_and_update_realm_defaults(rt, changes)


async def check_and_update_realm_defaults(rt: Runtime, changes: Mapping[str, SettingValue]) -> None:
    """Validate defaults (the API and `teamchat admin defaults set` share this) and store them."""
    unknown = [name for name in changes if name not in user_settings.REALM_DEFAULT_SETTINGS]
    if unknown:
        raise ZulipError(f"Unknown setting '{unknown[0]}'")
    check_setting_values(changes, realm_defaults=True)
    await do_update_realm_defaults(rt, changes)


async def do_update_realm_defaults(rt: Runtime, changes: Mapping[str, SettingValue]) -> None:
    """Store the changed defaults; send realm_user_settings_defaults for each to everyone."""
    async with rt.db.write() as tx:
        realm = await store.realm.get_realm(tx)
        assert realm is not None
        current = await _realm_defaults(tx, realm.id)
        changed = {k: v for k, v in changes.items() if getattr(current, k) != v}
        if not changed:
            return
        updated = user_settings.with_changes(current, changed)
        await settings_store.set_realm_defaults_json(tx, realm.id, user_settings.dump(updated))
        audience = await store.users.list_active_user_ids(tx)
        events = [RealmUserSettingsDefaultsEvent(property=k, value=v) for k, v in changed.items()]

        def publish() -> None:
            for event in events:
                rt.broker.publish(event, audience)

        tx.after_commit(publish)


async def check_change_settings(
    rt: Runtime,
    user: UserRow,
    changes: Mapping[str, SettingValue],
    *,
    full_name: str | None = None,
    timezone: str | None = None,
    old_password: str | None = None,
    new_password: str | None = None,
    keep_session: str | None = None,
    client_ip: str = "",
) -> None:
    """PATCH /settings: validate everything first, then store it in one transaction.
    `keep_session` is the cookie token of the browser session making the request: a new
    password ends every other session, but not that one (Zulip's update_session_auth_hash),
    and forgives the account's failed attempts; the API key stays."""
    if user.is_bot:
        raise ZulipError("This endpoint does not accept bot requests.")
    check_setting_values(changes)
    if timezone is not None and timezone and timezone not in _timezones():
        raise ZulipError("Invalid timezone: Value error, Not a recognized time zone")
    password_hash = None
    if new_password is not None:
        password_hash = await _check_new_password(
            rt, user, old_password or "", new_password, client_ip
        )
    name = None
    if full_name is not None and not full_name.strip():
        raise ZulipError("Name must not be empty!")  # zulip-compat: PATCH /settings' own words
    if full_name is not None and full_name != user.full_name:
        async with rt.db.read() as conn:
            realm = await store.realm.get_realm(conn)
            assert realm is not None
            # zulip-compat: when name changes are disabled, members' changes are ignored.
            if user.is_admin or not realm_settings.load(realm.settings_json).name_changes_disabled:
                name = await check_full_name(conn, realm, full_name, user.id)
    await do_change_settings(
        rt,
        user,
        changes,
        full_name=name,
        timezone=timezone,
        password_hash=password_hash,
        keep_session=keep_session,
    )


async def _check_new_password(
    rt: Runtime, user: UserRow, old_password: str, new_password: str, client_ip: str
) -> str:
    # Old passwords are checked as log-ins are, against the same budgets.
    try:
        matches = await check_password(
            rt, user, old_password, username=user.delivery_email, client_ip=client_ip
        )
    except RateLimitedError as error:
        # zulip-compat: Zulip's words for this endpoint (json_change_settings).
        seconds = math.ceil(error.retry_after_secs)
        raise ZulipError(
            f"You're making too many attempts! Try again in {seconds} seconds."
        ) from None
    if not matches:
        raise ZulipError("Wrong password!")
    if password_problem(new_password):
        raise ZulipError("New password is too weak!")
    return await asyncio.to_thread(hash_password, new_password)


async def do_change_settings(
    rt: Runtime,
    user: UserRow,
    changes: Mapping[str, SettingValue],
    *,
    full_name: str | None = None,
    timezone: str | None = None,
    password_hash: str | None = None,
    keep_session: str | None = None,
) -> None:
    """Store changed settings with their events and side effects, in one transaction."""
    async with rt.db.write() as tx:
        fresh = await store.users.get_user_by_id(tx, user.id)
        assert fresh is not None
        await apply_settings(rt, tx, fresh, changes)
        if full_name is not None and full_name != fresh.full_name:
            await apply_full_name(rt, tx, fresh, full_name)
        if timezone is not None and timezone != fresh.timezone:
            await _apply_timezone(rt, tx, fresh, timezone)
        if password_hash is not None:
            await store.users.update_password_hash(tx, user.id, password_hash)
            await password_changed(tx, rt, fresh)
            if keep_session is not None:
                await web_sessions.keep_session(tx, keep_session, user.id, password_hash)


async def apply_settings(
    rt: Runtime, tx: Tx, user: UserRow, changes: Mapping[str, SettingValue]
) -> UserRow:
    """Write the settings that differ inside `tx`; send their events and side effects."""
    current = user_settings.load(user.settings_json)
    changed = {k: v for k, v in changes.items() if getattr(current, k) != v}
    if not changed:
        return user
    fresh = await store_settings(tx, user, changed)
    for name, value in changed.items():
        await publish_setting_change(rt, tx, fresh, name, value)
    if "email_address_visibility" in changed:
        await publish_email_changes(rt, tx, user, fresh)
    if "allow_private_data_export" in changed:
        await publish_export_consent(rt, tx, fresh, bool(changed["allow_private_data_export"]))
    if "presence_enabled" in changed:
        enabled = bool(changed["presence_enabled"])
        await presence.apply_presence_enabled(rt, tx, fresh, enabled)
        await apply_status(rt, tx, fresh, away=not enabled, new=NewStatus(None, None))
    return fresh


async def _apply_timezone(rt: Runtime, tx: Tx, user: UserRow, timezone: str) -> None:
    await store.users.update_timezone(tx, user.id, timezone)
    await publish_setting_change(rt, tx, user, "timezone", timezone)
    realm = await store.realm.get_realm(tx)
    assert realm is not None
    email = wire.api_email(user, realm.host)
    await publish_person(rt, tx, user, {"email": email, "timezone": timezone})

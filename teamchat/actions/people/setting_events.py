"""Storing a user's personal settings and the events one setting change sends.

`user_settings`/update goes to all of the user's clients; clients that registered without
the `user_settings_object` capability get the legacy `update_display_settings` or
`update_global_notifications` event instead (the queue filters by capability).
"""

from __future__ import annotations

from collections.abc import Mapping

from teamchat import store
from teamchat.events.types_people import (
    UpdateDisplaySettingsEvent,
    UpdateGlobalNotificationsEvent,
    UserSettingsUpdateEvent,
)
from teamchat.events.types_realm_export import RealmExportConsentEvent
from teamchat.lib import user_settings, wire
from teamchat.lib.user_settings import SettingValue
from teamchat.records import EmailVisibility, UserRow
from teamchat.runtime import Runtime
from teamchat.store.db import Tx


async def store_settings(tx: Tx, user: UserRow, changes: Mapping[str, SettingValue]) -> UserRow:
    """Write `changes` into the user's settings (and the email visibility column)."""
    settings = user_settings.with_changes(user_settings.load(user.settings_json), changes)
    await store.users.update_settings(
        tx,
        user.id,
        user_settings.dump(settings),
        EmailVisibility(settings.email_address_visibility),
    )
    fresh = await store.users.get_user_by_id(tx, user.id)
    assert fresh is not None
    return fresh


async def publish_setting_change(
    rt: Runtime, tx: Tx, user: UserRow, name: str, value: SettingValue
) -> None:
    """Queue user_settings/update and, for legacy clients, the matching legacy event."""
    language = user_settings.LANGUAGES.get(str(value)) if name == "default_language" else None
    event = UserSettingsUpdateEvent(property=name, value=value)
    if language is not None:
        event.language_name = language
    audience = [user.id]
    tx.after_commit(lambda: rt.broker.publish(event, audience))
    realm = await store.realm.get_realm(tx)
    assert realm is not None
    email = wire.api_email(user, realm.host)
    legacy: UpdateDisplaySettingsEvent | UpdateGlobalNotificationsEvent | None = None
    if name in user_settings.DISPLAY_SETTINGS:
        legacy = UpdateDisplaySettingsEvent(user=email, setting_name=name, setting=value)
        if language is not None:
            legacy.language_name = language
    elif name in user_settings.NOTIFICATION_SETTINGS:
        legacy = UpdateGlobalNotificationsEvent(user=email, notification_name=name, setting=value)
    if legacy is not None:
        legacy_event = legacy
        tx.after_commit(lambda: rt.broker.publish(legacy_event, audience))


async def publish_export_consent(rt: Runtime, tx: Tx, user: UserRow, consented: bool) -> None:
    """Queue realm_export_consent for the administrators (Zulip's do_change_user_setting)."""
    event = RealmExportConsentEvent(user_id=user.id, consented=consented)
    admins = await store.realm_exports.human_admin_ids(tx)
    tx.after_commit(lambda: rt.broker.publish(event, admins))

"""Permission checks backed by the realm's group-valued settings (Zulip's system groups)."""

from __future__ import annotations

from teamchat import store
from teamchat.errors import (
    OrganizationAdministratorRequiredError,
    OrganizationOwnerRequiredError,
)
from teamchat.lib import realm_settings
from teamchat.lib.group_permissions import REALM_PERMISSIONS
from teamchat.lib.realm_settings import GroupSettingValue
from teamchat.records import RealmRow, UserRow
from teamchat.store.db import Conn


def require_realm_admin(user: UserRow) -> None:
    if not user.is_admin:
        raise OrganizationAdministratorRequiredError()


def require_realm_owner(user: UserRow) -> None:
    if not user.is_owner:
        raise OrganizationOwnerRequiredError()


async def realm_group_settings(conn: Conn, realm: RealmRow) -> dict[str, GroupSettingValue]:
    """Every permission setting of the realm, system defaults resolved to group ids."""
    ids = await store.groups.system_group_ids(conn)
    return realm_settings.group_settings(realm.settings_json, ids)


async def has_realm_permission(
    conn: Conn, realm: RealmRow, user: UserRow, setting: str, *, now: int | None = None
) -> bool:
    """Whether `user` is in the group that the realm setting `setting` names.

    Guests never have a permission whose setting may not be `role:everyone` (Zulip's
    user_has_permission_for_group_setting).
    """
    if user.is_guest and not REALM_PERMISSIONS[setting].allow_everyone_group:
        return False
    value = (await realm_group_settings(conn, realm))[setting]
    return await store.groups.is_user_in_setting(conn, user, value, now=now)

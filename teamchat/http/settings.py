"""PATCH /settings (and its legacy aliases) and PATCH /realm/user_settings_defaults."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from litestar import Request

from teamchat.actions.org import permissions
from teamchat.actions.people import email_change
from teamchat.actions.people import user_settings as settings_actions
from teamchat.http.auth import session_token
from teamchat.http.params import Params, Parser, as_bool, as_int, as_str
from teamchat.http.routing import patch
from teamchat.http.urls import realm_url
from teamchat.lib.api_types import JsonDict
from teamchat.lib.user_settings import REALM_DEFAULT_SETTINGS, SETTING_TYPES, SettingValue
from teamchat.records import UserRow
from teamchat.runtime import Runtime

PARSERS: dict[type, Parser[SettingValue]] = {bool: as_bool, int: as_int, str: as_str}


def read_settings(params: Params, names: Iterable[str]) -> dict[str, SettingValue]:
    """The settings among `names` that the request sets, parsed by their type."""
    return {
        name: params.required(name, PARSERS[SETTING_TYPES[name]])
        for name in names
        if params.has(name)
    }


@patch(["/settings", "/settings/display", "/settings/notifications"])
async def update_settings(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    changes = read_settings(params, SETTING_TYPES)
    new_email = params.optional("email", as_str, None)
    await settings_actions.check_change_settings(
        rt,
        user,
        changes,
        full_name=params.optional("full_name", as_str, None),
        timezone=params.optional("timezone", as_str, None),
        old_password=params.optional("old_password", as_str, None),
        new_password=params.optional("new_password", as_str, None),
        keep_session=session_token(request),
        client_ip=request.client.host if request.client is not None else "",
    )
    if new_email is not None:
        account_email = await email_change.check_start_email_change(
            rt, user, new_email, realm_url(request, rt)
        )
        return params.success(account_email=account_email)
    return params.success()


@patch("/realm/user_settings_defaults")
async def update_realm_user_settings_defaults(
    params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    permissions.require_realm_admin(user)
    changes = read_settings(params, REALM_DEFAULT_SETTINGS)
    await settings_actions.check_update_realm_defaults(rt, user, changes)
    return params.success()

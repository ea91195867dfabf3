"""PATCH /realm: organization settings and permission groups (administrators)."""

from __future__ import annotations

from teamchat.actions.org import realm_settings, realm_state
from teamchat.http.params import Params
from teamchat.http.routing import patch
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime

__all__ = ["realm_state"]  # imported for its POST /register state fetcher


@patch("/realm")
async def update_realm(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    changes = {
        name: params.required(name, realm_settings.decode)
        for name in sorted(params.values)
        if realm_settings.is_setting(name)
    }
    data = await realm_settings.check_update_realm(rt, user, changes)
    return params.success(**data)

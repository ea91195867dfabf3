"""PATCH /realm: organization settings and permission groups (administrators);
POST /realm/test_welcome_bot_custom_message."""

from __future__ import annotations

from typing import Any

from litestar import Request

from teamchat.actions.org import realm_settings, realm_state, welcome
from teamchat.http.params import Params, as_str
from teamchat.http.routing import get, patch, post
from teamchat.http.urls import realm_url
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


@post("/realm/test_welcome_bot_custom_message")
async def test_welcome_bot_custom_message(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    text = params.required("welcome_message_custom_text", as_str)
    message_id = await welcome.check_test_welcome_message(
        rt, user, text, realm_url=realm_url(request, rt)
    )
    return params.success(message_id=message_id)


@get("/realm/domains")
async def list_realm_domains(params: Params, user: UserRow) -> JsonDict:
    # The organization restricts no email domains: the list Zulip serves here is empty.
    return params.success(domains=realm_state.realm_domains())

"""POST/GET /users/me/bots, PATCH/DELETE /bots/{bot_id}, POST /bots/{bot_id}/api_key/regenerate."""

from __future__ import annotations

from teamchat.actions.people import bots, deactivation
from teamchat.actions.people.bot_defaults import DefaultsChange
from teamchat.errors import ZulipError
from teamchat.http.params import (
    Params,
    as_bool,
    as_int,
    as_int_in,
    as_json_dict,
    as_json_str,
    as_str,
)
from teamchat.http.routing import delete, get, patch, post
from teamchat.lib.api_types import JsonDict
from teamchat.lib.profile_fields import is_url
from teamchat.records import Role, UserRow
from teamchat.runtime import Runtime

ROLES = tuple(int(role) for role in Role)


def as_url(name: str, raw: str) -> str:
    """A URL, sent raw or JSON-encoded (Zulip's check_url)."""
    value = as_json_str(name, raw)
    if not is_url(value):
        raise ZulipError(f"{name} is not a URL")
    return value


def as_config_data(name: str, raw: str) -> dict[str, str]:
    value = as_json_dict(name, raw)
    for key, item in value.items():
        if not isinstance(item, str):
            raise ZulipError(f'{name}["{key}"] is not a string')
    return value  # type: ignore[return-value]


# zulip-compat: Zulip's web app and clients use /bots; /users/me/bots is the same operation.
@post(["/bots", "/users/me/bots"])
async def add_bot(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    new = bots.NewBot(
        full_name=params.required("full_name", as_str),
        short_name=params.required("short_name", as_str),
        bot_type=params.optional("bot_type", as_int, 1),
        payload_url=params.optional("payload_url", as_url, ""),
        service_name=params.optional("service_name", as_str, None),
        config_data=params.optional("config_data", as_config_data, None),
        interface_type=params.optional("interface_type", as_int, 1),
        defaults=_defaults(params),
    )
    bot = await bots.check_add_bot(rt, user, new)
    return params.success(**bots.bot_response(bot, await bots.bot_defaults(rt, bot)))


def _defaults(params: Params) -> DefaultsChange:
    return DefaultsChange(
        sending_stream=params.optional("default_sending_stream", as_str, None),
        events_register_stream=params.optional("default_events_register_stream", as_str, None),
        all_public_streams=params.optional("default_all_public_streams", as_bool, None),
    )


@get(["/bots", "/users/me/bots"])
async def get_bots(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    return params.success(bots=await bots.get_own_bots(rt, user))


@patch("/bots/{bot_id:int}")
async def update_bot(bot_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    role = params.optional("role", as_int_in(*ROLES), None)
    update = bots.BotUpdate(
        full_name=params.optional("full_name", as_str, None),
        role=Role(role) if role is not None else None,
        bot_owner_id=params.optional("bot_owner_id", as_int, None),
        config_data=params.optional("config_data", as_config_data, None),
        service_payload_url=params.optional("service_payload_url", as_url, None),
        service_interface=params.optional("service_interface", as_int, 1),
        defaults=_defaults(params),
    )
    result = await bots.check_update_bot(rt, user, bot_id, update)
    return params.success(**result)


@delete("/bots/{bot_id:int}")
async def deactivate_bot(bot_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    await deactivation.check_deactivate_bot(rt, user, bot_id)
    return params.success()


@post("/bots/{bot_id:int}/api_key/regenerate")
async def regenerate_bot_api_key(
    bot_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    api_key = await bots.check_regenerate_bot_api_key(rt, user, bot_id)
    return params.success(api_key=api_key)

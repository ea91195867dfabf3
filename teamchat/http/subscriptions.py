"""GET/POST/DELETE /users/me/subscriptions, subscription properties, membership checks."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request

from teamchat.actions.channels import stream_admin, stream_reads, streams, subscriptions
from teamchat.actions.channels.subscriptions import Principals
from teamchat.errors import RequestVariableConversionError, ZulipError
from teamchat.http.params import (
    Params,
    as_bool,
    as_int,
    as_json,
    as_json_list,
    as_str,
    as_str_list,
    at_most,
    one_of,
)
from teamchat.http.routing import delete, get, patch, post
from teamchat.http.urls import realm_url
from teamchat.lib import limits
from teamchat.lib.api_types import JsonDict
from teamchat.lib.channels import CHANNEL_GROUP_SETTING_DEFAULTS, TOPICS_POLICIES
from teamchat.lib.integers import parse_int
from teamchat.lib.json_input import decode_json
from teamchat.lib.limits import check_count
from teamchat.lib.realm_settings import GroupSettingValue
from teamchat.records import UserRow
from teamchat.runtime import Runtime

RETENTION_SPECIAL = {"realm_default": None, "unlimited": -1}


def as_channel_requests(name: str, raw: str) -> list[streams.ChannelRequest]:
    requests = []
    items = as_json_list(name, raw)
    check_count(name, len(items), limits.MAX_CHANNELS_PER_REQUEST)
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise ZulipError(f"{name}[{index}] is not a dict")
        if not isinstance(item.get("name"), str):
            raise ZulipError(f"{name}[{index}]['name'] is not a string")
        for key in ("description", "color"):
            if item.get(key) is not None and not isinstance(item[key], str):
                raise ZulipError(f"{name}[{index}]['{key}'] is not a string")
        requests.append(
            streams.ChannelRequest(
                name=item["name"], description=item.get("description"), color=item.get("color")
            )
        )
    return requests


def as_principals(name: str, raw: str) -> Principals:
    items = as_json_list(name, raw)
    check_count(name, len(items), limits.MAX_USERS_PER_REQUEST)
    if all(isinstance(i, str) for i in items):
        return items  # type: ignore[return-value]
    if all(isinstance(i, int) and not isinstance(i, bool) for i in items):
        return items  # type: ignore[return-value]
    raise ZulipError(f"{name} is not a list of strings or a list of integers")


def as_retention_days(name: str, raw: str) -> int | None:
    value = raw.strip().strip('"')
    if value in RETENTION_SPECIAL:
        return RETENTION_SPECIAL[value]
    days = parse_int(value)
    if days is None or days <= 0:
        raise RequestVariableConversionError(name, value)
    return days


def as_group_setting(name: str, raw: str) -> GroupSettingValue:
    value = as_json(name, raw)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, dict):
        try:
            members = msgspec.convert(value, dict[str, list[int]], strict=True)
        except msgspec.ValidationError:
            members = {}
        if set(members) == {"direct_members", "direct_subgroups"}:
            return members
    raise ZulipError(f"{name} is not a valid group setting value")


def as_group_setting_change(name: str, raw: str) -> stream_admin.GroupSettingChange:
    value = as_json(name, raw)
    if not isinstance(value, dict) or "new" not in value:
        raise ZulipError(f"{name} is not a valid group setting change")
    old = value.get("old")
    return stream_admin.GroupSettingChange(
        new=as_group_setting(name, msgspec.json.encode(value["new"]).decode()),
        old=None if old is None else as_group_setting(name, msgspec.json.encode(old).decode()),
    )


def parse_create_options(params: Params) -> streams.CreateOptions:
    group_settings = {}
    for setting in CHANNEL_GROUP_SETTING_DEFAULTS:
        value = params.optional(setting, as_group_setting, None)
        if value is not None:
            group_settings[setting] = value
    return streams.CreateOptions(
        invite_only=params.optional("invite_only", as_bool, False),
        is_web_public=params.optional("is_web_public", as_bool, False),
        history_public_to_subscribers=params.optional(
            "history_public_to_subscribers", as_bool, None
        ),
        message_retention_days=params.optional("message_retention_days", as_retention_days, None),
        topics_policy=params.optional("topics_policy", one_of(*TOPICS_POLICIES), "inherit"),
        folder_id=params.optional("folder_id", as_int, None),
        group_settings=group_settings,
    )


def parse_notify(params: Params, request: Request[Any, Any, Any], rt: Runtime) -> streams.Notify:
    """Which Notification Bot messages a request creating channels or subscriptions wants."""
    return streams.Notify(
        announce=params.optional("announce", as_bool, False),
        send_new_subscription_messages=params.optional(
            "send_new_subscription_messages", as_bool, True
        ),
        realm_url=realm_url(request, rt),
    )


@post("/users/me/subscriptions")
async def subscribe(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    requests = params.required("subscriptions", as_channel_requests)
    options = parse_create_options(params)
    principals = params.optional("principals", as_principals, None)
    fatal = params.optional("authorization_errors_fatal", as_bool, True)
    notify = parse_notify(params, request, rt)
    result = await streams.check_add_subscriptions(
        rt,
        user,
        requests,
        options,
        principals=principals,
        authorization_errors_fatal=fatal,
        notify=notify,
    )
    return params.success(**result)


@delete("/users/me/subscriptions")
async def unsubscribe(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    names = params.required("subscriptions", at_most(limits.MAX_CHANNELS_PER_REQUEST, as_str_list))
    principals = params.optional("principals", as_principals, None)
    result = await subscriptions.check_remove_subscriptions(rt, user, names, principals)
    return params.success(**result)


@patch("/users/me/subscriptions")
async def update_subscriptions(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    """Zulip's update_subscriptions_backend: subscribe to `add`, unsubscribe from `delete`."""
    add: list[streams.ChannelRequest] = params.optional("add", as_channel_requests, [])
    names: list[str] = params.optional(
        "delete", at_most(limits.MAX_CHANNELS_PER_REQUEST, as_str_list), []
    )
    if not add and not names:
        raise ZulipError('Nothing to do. Specify at least one of "add" or "delete".')
    result: JsonDict = {"subscribed": {}, "already_subscribed": {}}
    if add:
        notify = streams.Notify(
            announce=False, send_new_subscription_messages=True, realm_url=realm_url(request, rt)
        )
        result |= await streams.check_add_subscriptions(
            rt,
            user,
            add,
            streams.CreateOptions(),
            principals=None,
            authorization_errors_fatal=True,
            notify=notify,
        )
    removed: JsonDict = {"removed": [], "not_removed": []}
    if names:
        removed = await subscriptions.check_remove_subscriptions(rt, user, names, None)
    return params.success(**result, **removed)


@get("/users/me/subscriptions")
async def get_subscriptions(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    include_subscribers = params.optional("include_subscribers", as_bool, False)
    subs = await stream_reads.get_subscriptions(rt, user, include_subscribers=include_subscribers)
    return params.success(subscriptions=subs)


def as_property_changes(name: str, raw: str) -> list[tuple[int, str, object]]:
    changes = []
    for index, item in enumerate(as_json_list(name, raw)):
        if not isinstance(item, dict):
            raise ZulipError(f"{name}[{index}] is not a dict")
        stream_id, prop = item.get("stream_id"), item.get("property")
        if not isinstance(stream_id, int) or isinstance(stream_id, bool):
            raise ZulipError(f"{name}[{index}]['stream_id'] is not an integer")
        if not isinstance(prop, str):
            raise ZulipError(f"{name}[{index}]['property'] is not a string")
        if "value" not in item:
            raise ZulipError(f"{name}[{index}]['value'] is missing")
        changes.append((stream_id, prop, item["value"]))
    return changes


@post("/users/me/subscriptions/properties")
async def update_subscription_properties(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    changes = params.required("subscription_data", as_property_changes)
    for stream_id, prop, value in changes:
        await subscriptions.check_subscription_property(rt, user, stream_id, prop, value)
    return params.success()


def as_bool_or_str(name: str, raw: str) -> object:
    try:
        value = decode_json(raw)
    except msgspec.DecodeError:
        return raw
    return value if isinstance(value, bool | str) else raw


@patch("/users/me/subscriptions/{stream_id:int}")
async def update_subscription_property(
    stream_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    prop = params.required("property", as_str)
    value = params.required("value", as_bool_or_str)
    await subscriptions.check_subscription_property(rt, user, stream_id, prop, value)
    return params.success()


@get("/users/{user_id:int}/subscriptions/{stream_id:int}")
async def get_subscription_status(
    user_id: int, stream_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    subscribed = await stream_reads.is_user_subscribed(rt, user, user_id, stream_id)
    return params.success(is_subscribed=subscribed)

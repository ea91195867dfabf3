"""POST /register, GET /events, DELETE /events."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, Response

from teamchat.actions import register
from teamchat.errors import ZulipError
from teamchat.events.queue import ClientCapabilities
from teamchat.http import peers
from teamchat.http.auth import request_client
from teamchat.http.params import (
    Params,
    as_bool,
    as_int,
    as_json,
    as_json_dict,
    as_optional_str_list,
    as_str,
)
from teamchat.http.routing import delete, get, post
from teamchat.http.urls import realm_url
from teamchat.lib.api_types import JsonDict
from teamchat.lib.narrow import BadNarrowError, parse_narrow
from teamchat.records import UserRow
from teamchat.runtime import Runtime

CAPABILITY_NAMES = (
    "notification_settings_null",
    "bulk_message_deletion",
    "user_avatar_url_field_optional",
    "stream_typing_notifications",
    "user_settings_object",
    "include_deactivated_groups",
    "empty_topic_name",
    "individual_emoji_changes",
    "archived_channels",
    "user_list_incomplete",
    "linkifier_url_template",
    "simplified_presence_events",
)
# zulip-compat: the mobile app asks for a long-lived queue with idle_queue_timeout="mobile".
MOBILE_QUEUE_TIMEOUT_SECS = 7 * 24 * 3600


def as_include_subscribers(name: str, raw: str) -> bool:
    value = raw.strip().strip('"').lower()
    if value == "partial":
        return True
    return as_bool(name, value)


def as_idle_timeout(name: str, raw: str) -> float:
    if raw.strip().strip('"') == "mobile":
        return MOBILE_QUEUE_TIMEOUT_SECS
    value = as_int(name, raw)
    if value <= 0:
        raise ZulipError(f"Invalid {name}")
    return value


def parse_register_params(
    params: Params, request: Request[Any, Any, Any]
) -> tuple[ClientCapabilities, frozenset[str] | None, float | None]:
    """Read every POST /register parameter (also accepted by GET /events)."""
    event_types = params.first_of(("event_types", "eventTypes"), as_optional_str_list, None)
    fetch_types = params.optional("fetch_event_types", as_optional_str_list, None)
    try:
        narrow = parse_narrow(params.optional("narrow", as_json, None) or [])
    except BadNarrowError as exc:
        raise ZulipError(str(exc)) from None
    declared = params.optional("client_capabilities", as_json_dict, None) or {}
    caps = ClientCapabilities(
        event_types=frozenset(event_types) if event_types is not None else None,
        narrow=tuple((t.operator, t.operand, t.negated) for t in narrow),
        all_public_streams=params.optional("all_public_streams", as_bool, False),
        apply_markdown=params.optional("apply_markdown", as_bool, False),
        client_gravatar=params.optional("client_gravatar", as_bool, True),
        slim_presence=params.optional("slim_presence", as_bool, False),
        include_subscribers=params.optional("include_subscribers", as_include_subscribers, False),
        client_name=request_client(request, None),
        presence_last_update_id=params.optional("presence_last_update_id", as_int, None),
        presence_history_limit_days=params.optional("presence_history_limit_days", as_int, None),
        **{name: bool(declared.get(name, False)) for name in CAPABILITY_NAMES},
    )
    params.mark_read("queue_lifespan_secs")
    idle_timeout = params.optional("idle_queue_timeout", as_idle_timeout, None)
    if fetch_types is None:
        fetch_types = event_types  # zulip-compat: fetch_event_types defaults to event_types
    return caps, frozenset(fetch_types) if fetch_types is not None else None, idle_timeout


@post("/register")
async def register_queue(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    caps, fetch_types, idle_timeout = parse_register_params(params, request)
    caps = await register.with_bot_defaults(
        rt, user, caps, all_public_given=params.has("all_public_streams")
    )
    state = await register.do_register(
        rt,
        user,
        caps,
        fetch_event_types=fetch_types,
        realm_url=realm_url(request, rt),
        idle_timeout_secs=idle_timeout,
    )
    return params.success(**state)


@get("/events")
async def get_events(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    dont_block = params.optional("dont_block", as_bool, False)
    queue_id = params.optional("queue_id", as_str, None)
    last_event_id = params.optional("last_event_id", as_int, None)
    if queue_id is None:
        # Register parameters may be passed instead of queue_id; a queue is registered.
        # zulip-compat: only with dont_block, as Zulip's Tornado does; a blocking poll
        # without a queue is an error there (a plain JsonableError, no var_name).
        if not dont_block:
            raise ZulipError("Missing 'queue_id' argument")
        caps, _fetch_types, idle_timeout = parse_register_params(params, request)
        caps = await register.with_bot_defaults(
            rt, user, caps, all_public_given=params.has("all_public_streams")
        )
        state = await register.do_register(
            rt,
            user,
            caps,
            fetch_event_types=frozenset(),
            realm_url=realm_url(request, rt),
            idle_timeout_secs=idle_timeout,
        )
        queue_id = str(state["queue_id"])
    if not dont_block:
        request.scope["state"]["longpoll"] = True  # the access log marks long waits as such
    events = await register.get_events(rt, user, queue_id, last_event_id, dont_block=dont_block)
    return params.success(events=[msgspec.Raw(event) for event in events], queue_id=queue_id)


@delete("/events")
async def delete_events(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict | Response[bytes]:
    queue_id = params.required("queue_id", as_str)
    owner = peers.owner_url(rt, request, queue_id)
    if owner is not None:  # another process holds it (a queue id the proxy could not see)
        return await peers.forward(request, owner, queue_id)
    register.delete_queue(rt, user, queue_id)
    return params.success()

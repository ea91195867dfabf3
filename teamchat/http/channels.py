"""POST /channels/create."""

from __future__ import annotations

from typing import Any

from litestar import Request

from teamchat.actions.channels import channel_create, streams
from teamchat.http.params import Params, as_bool, as_int_list, as_str, at_most
from teamchat.http.routing import post
from teamchat.http.subscriptions import parse_create_options, parse_notify
from teamchat.lib import limits
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@post("/channels/create")
async def create_channel(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    channel = streams.ChannelRequest(
        name=params.required("name", as_str),
        description=params.optional("description", as_str, None),
    )
    subscribers = params.required("subscribers", at_most(limits.MAX_USERS_PER_REQUEST, as_int_list))
    notify = parse_notify(params, request, rt)
    channel_id = await channel_create.check_create_channel(
        rt,
        user,
        channel,
        parse_create_options(params),
        subscribers,
        is_default_stream=params.optional("is_default_stream", as_bool, False),
        notify=notify,
    )
    return params.success(id=channel_id)

"""POST /channels/create."""

from __future__ import annotations

from typing import Any

from litestar import Request

from teamchat.actions.channels import channel_create, streams
from teamchat.http.params import Params, as_bool, as_int_list, as_str
from teamchat.http.routing import post
from teamchat.http.subscriptions import parse_create_options
from teamchat.http.urls import realm_url
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
    subscribers = params.required("subscribers", as_int_list)
    notify = streams.Notify(
        announce=params.optional("announce", as_bool, False),
        send_new_subscription_messages=params.optional(
            "send_new_subscription_messages", as_bool, True
        ),
        realm_url=realm_url(request, rt),
    )
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

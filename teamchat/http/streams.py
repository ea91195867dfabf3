"""GET /streams, /streams/{id}, /get_stream_id, /streams/{id}/members; PATCH and DELETE
/streams/{id}."""

from __future__ import annotations

import msgspec

from teamchat.actions.channels import stream_admin, stream_reads
from teamchat.http.params import Params, as_bool, as_int, as_json_str, one_of
from teamchat.http.routing import delete, get, patch
from teamchat.http.subscriptions import as_group_setting_change, as_retention_days
from teamchat.lib.api_types import JsonDict
from teamchat.lib.channels import CHANNEL_GROUP_SETTING_DEFAULTS, TOPICS_POLICIES
from teamchat.records import UserRow
from teamchat.runtime import Runtime


def as_optional_int(name: str, raw: str) -> int | None:
    """An integer or JSON null."""
    return None if raw.strip() == "null" else as_int(name, raw)


@get("/streams")
async def get_streams(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    flags = {
        field.name: params.optional(field.name, as_bool, field.default)
        for field in msgspec.structs.fields(stream_reads.StreamsQuery)
    }
    if params.optional("include_all_active", as_bool, False):
        flags["include_all"] = True
    streams = await stream_reads.get_streams(rt, user, stream_reads.StreamsQuery(**flags))
    return params.success(streams=streams)


@get("/streams/{stream_id:int}")
async def get_stream_by_id(stream_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    stream = await stream_reads.get_stream(rt, user, stream_id)
    return params.success(stream=stream)


@get("/get_stream_id")
async def get_stream_id(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    name = params.required("stream", as_json_str)
    stream_id = await stream_reads.get_stream_id(rt, user, name)
    return params.success(stream_id=stream_id)


@get("/streams/{stream_id:int}/members")
async def get_subscribers(stream_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    subscribers = await stream_reads.get_subscribers(rt, user, stream_id)
    return params.success(subscribers=subscribers)


@patch("/streams/{stream_id:int}")
async def update_stream(stream_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    change = stream_admin.StreamChange(
        description=params.optional("description", as_json_str, None),
        new_name=params.optional("new_name", as_json_str, None),
        is_private=params.optional("is_private", as_bool, None),
        is_web_public=params.optional("is_web_public", as_bool, None),
        history_public_to_subscribers=params.optional(
            "history_public_to_subscribers", as_bool, None
        ),
        message_retention_days=params.optional(
            "message_retention_days", as_retention_days, stream_admin.UNCHANGED
        ),
        topics_policy=params.optional("topics_policy", one_of(*TOPICS_POLICIES), None),
        is_archived=params.optional("is_archived", as_bool, None),
        folder_id=params.optional("folder_id", as_optional_int, stream_admin.UNCHANGED),
        group_settings={
            name: value
            for name in CHANNEL_GROUP_SETTING_DEFAULTS
            if (value := params.optional(name, as_group_setting_change, None)) is not None
        },
    )
    await stream_admin.check_update_stream(rt, user, stream_id, change)
    return params.success()


@delete("/streams/{stream_id:int}")
async def archive_stream(stream_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    await stream_admin.check_archive_stream(rt, user, stream_id)
    return params.success()

"""GET /users/me/{stream_id}/topics, POST /user_topics,
PATCH /users/me/subscriptions/muted_topics."""

from __future__ import annotations

from teamchat.actions.channels import stream_reads
from teamchat.actions.messages import topics, user_topics
from teamchat.errors import RequestVariableMissingError, ZulipError
from teamchat.http.params import Params, as_bool, as_int, as_json_str, as_str, one_of
from teamchat.http.routing import get, patch, post
from teamchat.lib.api_types import JsonDict
from teamchat.lib.messages import normalize_topic
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@get("/users/me/{stream_id:int}/topics")
async def get_stream_topics(stream_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    allow_empty = params.optional("allow_empty_topic_name", as_bool, False)
    result = await topics.get_topics(rt, user, stream_id, allow_empty_topic_name=allow_empty)
    return params.success(topics=result)


@post("/user_topics")
async def update_user_topic(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    stream_id = params.required("stream_id", as_int)
    topic = normalize_topic(params.required("topic", as_str))
    policy = params.required("visibility_policy", as_int)
    await user_topics.check_set_user_topic(rt, user, stream_id, topic, policy)
    return params.success()


@patch("/users/me/subscriptions/muted_topics")
async def update_muted_topic(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    stream_id = params.optional("stream_id", as_int, None)
    stream_name = params.optional("stream", as_json_str, None)
    if stream_id is None and stream_name is None:
        raise RequestVariableMissingError("stream_id")
    if stream_id is not None and stream_name is not None:
        raise ZulipError("Unsupported parameter combination: stream_id, stream")
    topic = normalize_topic(params.required("topic", as_str))
    mute = params.required("op", one_of("add", "remove")) == "add"
    stream = await stream_reads.stream_for_topic_mute(rt, user, stream_id, stream_name, mute=mute)
    await user_topics.check_legacy_mute(rt, user, stream, topic, mute=mute)
    return params.success()

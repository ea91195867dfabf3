"""PATCH and DELETE /messages/{id}, GET /messages/{id}/history,
POST /streams/{id}/delete_topic."""

from __future__ import annotations

from typing import Any

from litestar import Request

from teamchat.actions.messages import message_delete, message_edit, message_history
from teamchat.http.params import Params, as_bool, as_int, as_str, one_of
from teamchat.http.routing import delete, get, patch, post
from teamchat.http.urls import realm_url
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@patch("/messages/{message_id:int}")
async def update_message(
    message_id: int, request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    edit = message_edit.EditRequest(
        content=params.optional("content", as_str, None),
        topic=params.first_of(("topic", "subject"), as_str, None),
        stream_id=params.optional("stream_id", as_int, None),
        propagate_mode=params.optional(
            "propagate_mode", one_of(*message_edit.PROPAGATE_MODES), "change_one"
        ),
        prev_content_sha256=params.optional("prev_content_sha256", as_str, None),
        realm_url=realm_url(request, rt),
        send_notification_to_old_thread=params.optional(
            "send_notification_to_old_thread", as_bool, False
        ),
        send_notification_to_new_thread=params.optional(
            "send_notification_to_new_thread", as_bool, True
        ),
    )
    await message_edit.check_update_message(rt, user, message_id, edit)
    return params.success()


@delete("/messages/{message_id:int}")
async def delete_message(message_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    await message_delete.check_delete_message(rt, user, message_id)
    return params.success()


@get("/messages/{message_id:int}/history")
async def get_message_history(
    message_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    allow_empty = params.optional("allow_empty_topic_name", as_bool, False)
    history = await message_history.get_message_history(
        rt, user, message_id, allow_empty_topic_name=allow_empty
    )
    return params.success(message_history=history)


@post("/streams/{stream_id:int}/delete_topic")
async def delete_topic(stream_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    topic = params.required("topic_name", as_str)
    complete = await message_delete.check_delete_topic(rt, user, stream_id, topic)
    return params.success(complete=complete)

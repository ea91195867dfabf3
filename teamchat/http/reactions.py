"""POST and DELETE /messages/{message_id}/reactions."""

from __future__ import annotations

from teamchat.actions.messages import reactions
from teamchat.http.params import Params, as_str
from teamchat.http.routing import delete, post
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@post("/messages/{message_id:int}/reactions")
async def add_reaction(message_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    emoji_name = params.required("emoji_name", as_str)
    emoji_code = params.optional("emoji_code", as_str, None)
    reaction_type = params.optional("reaction_type", as_str, None)
    await reactions.check_add_reaction(rt, user, message_id, emoji_name, emoji_code, reaction_type)
    return params.success()


@delete("/messages/{message_id:int}/reactions")
async def remove_reaction(message_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    emoji_name = params.optional("emoji_name", as_str, None)
    emoji_code = params.optional("emoji_code", as_str, None)
    reaction_type = params.optional("reaction_type", as_str, None)
    await reactions.check_remove_reaction(
        rt, user, message_id, emoji_name, emoji_code, reaction_type
    )
    return params.success()

"""GET /messages/matches_narrow."""

from __future__ import annotations

from teamchat.actions.messages import message_matches
from teamchat.http.messages import as_narrow
from teamchat.http.params import Params, as_int_list
from teamchat.http.routing import get
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@get("/messages/matches_narrow")
async def messages_match_narrow(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    message_ids = params.required("msg_ids", as_int_list)
    narrow = params.required("narrow", as_narrow)
    matches = await message_matches.messages_matching_narrow(rt, user, message_ids, narrow)
    return params.success(messages=matches)

"""GET /messages/{message_id}/read_receipts."""

from __future__ import annotations

from teamchat.actions.messages import read_receipts
from teamchat.http.params import Params
from teamchat.http.routing import get
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@get("/messages/{message_id:int}/read_receipts")
async def get_read_receipts(
    message_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    user_ids = await read_receipts.get_read_receipts(rt, user, message_id)
    return params.success(user_ids=user_ids)

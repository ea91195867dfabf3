"""GET /calls/bigbluebutton/create."""

from __future__ import annotations

from teamchat.actions.org import video_calls
from teamchat.http.params import Params, as_str
from teamchat.http.routing import get
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow


@get("/calls/bigbluebutton/create")
async def create_bigbluebutton_call(params: Params, user: UserRow) -> JsonDict:
    meeting_name = params.required("meeting_name", as_str)
    url = video_calls.check_create_bigbluebutton_call(user, meeting_name)
    return params.success(url=url)

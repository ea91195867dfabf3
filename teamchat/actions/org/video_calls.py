"""Video calls: BigBlueButton rooms (GET /calls/bigbluebutton/create) need a BigBlueButton
server and its shared secret, which teamchat does not configure; the endpoint answers Zulip's
"not configured" error, and clients offer the other providers (Jitsi works without a server
of ours)."""

from __future__ import annotations

from teamchat.errors import ZulipError
from teamchat.records import UserRow


def check_create_bigbluebutton_call(user: UserRow, meeting_name: str) -> str:
    raise ZulipError("BigBlueButton is not configured.")

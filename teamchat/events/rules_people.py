"""Per-queue rules for `realm_user` events (imported by the actions that publish them).

An "Unknown user" `realm_user`/`add` (a new person a limited guest may not access) carries
`_if_caps` so that clients declaring `user_list_incomplete` never receive it.
"""

from __future__ import annotations

from teamchat.events.internal import caps_match, public_copy
from teamchat.events.queue import ACCEPT_RULES, SHAPERS

ACCEPT_RULES["realm_user"] = caps_match
SHAPERS["realm_user"] = lambda queue, event: public_copy(event)

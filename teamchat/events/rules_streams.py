"""Per-queue rules for channel events (imported by the actions that publish them).

Legacy clients (without `notification_settings_null`) get the user's defaults in place of
null notification settings; archived-channel changes reach each queue in the form it declared.
Kept apart from the event types: `events.types` imports those before `events.queue` exists.
"""

from __future__ import annotations

from teamchat.events.internal import caps_match, public_copy
from teamchat.events.queue import ACCEPT_RULES, SHAPERS, EventQueue
from teamchat.events.types import JsonDict
from teamchat.events.types_streams import NOTIFICATION_DEFAULTS


def _shape_subscription(queue: EventQueue, event: JsonDict) -> JsonDict:
    shaped = public_copy(event)
    defaults = event.get(NOTIFICATION_DEFAULTS)
    if isinstance(defaults, dict) and not queue.caps.notification_settings_null:
        # zulip-compat: clients without notification_settings_null never see null here.
        subs = shaped["subscriptions"]
        assert isinstance(subs, list)
        shaped["subscriptions"] = [
            {k: (defaults.get(k, v) if v is None else v) for k, v in sub.items()} for sub in subs
        ]
    return shaped


def _shape_stream(queue: EventQueue, event: JsonDict) -> JsonDict:
    return public_copy(event)


ACCEPT_RULES["stream"] = caps_match
ACCEPT_RULES["subscription"] = caps_match
SHAPERS["stream"] = _shape_stream
SHAPERS["subscription"] = _shape_subscription

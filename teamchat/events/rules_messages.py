"""Per-queue rules for message events (imported by the actions that publish them).

A message event carries the rendered content; each queue gets its own copy with raw Markdown
(apply_markdown=false), a null avatar (client_gravatar), the empty topic's display name for
clients without `empty_topic_name`, and `local_message_id` only for the queue that sent it.
Queues registered with a narrow only get the messages that match it.
"""

from __future__ import annotations

from teamchat.events.internal import FOR_QUEUE, IF_CAPS, caps_match, public_copy, targets_queue
from teamchat.events.queue import ACCEPT_RULES, SHAPERS, EventQueue
from teamchat.events.types import JsonDict
from teamchat.lib.messages import display_topic
from teamchat.lib.narrow_match import message_matches

# Private keys of message events.
RAW_CONTENT = "_raw_content"
SENDER_GRAVATAR = "_sender_gravatar"
EMAIL_VISIBLE = "_email_visible"
LOCAL = FOR_QUEUE
# The sender fields a viewer who may not access the sender sees instead ("Unknown user").
SENDER_PLACEHOLDER = "_sender_placeholder"


def _accept_message(queue: EventQueue, event: JsonDict) -> bool:
    if not caps_match(queue, event):
        return False
    message, flags = event.get("message"), event.get("flags", [])
    if not queue.caps.narrow or not isinstance(message, dict) or not isinstance(flags, list):
        return True
    return message_matches(queue.caps.narrow, message, flags)


def _shape_message(queue: EventQueue, event: JsonDict) -> JsonDict:
    shaped = public_copy(event)
    if not isinstance(event.get("message"), dict):
        return shaped
    message = dict(event["message"])  # type: ignore[call-overload]
    caps = queue.caps
    if not caps.apply_markdown:
        message["content"] = event[RAW_CONTENT]
        message["content_type"] = "text/x-markdown"
    if caps.client_gravatar and event.get(SENDER_GRAVATAR) and event.get(EMAIL_VISIBLE):
        message["avatar_url"] = None
    placeholder = event.get(SENDER_PLACEHOLDER)
    if isinstance(placeholder, dict):
        message.update(placeholder)
    if message["type"] == "stream":
        message["subject"] = display_topic(message["subject"], caps.empty_topic_name)
    shaped["message"] = message
    if targets_queue(event, queue.queue_id):
        shaped["local_message_id"] = event[LOCAL]["local_id"]  # type: ignore[index]
    return shaped


def _topic_shaper(*keys: str) -> object:
    def shape(queue: EventQueue, event: JsonDict) -> JsonDict:
        shaped = public_copy(event)
        if not queue.caps.empty_topic_name:
            for key in keys:
                if shaped.get(key) == "" and _is_channel_event(shaped):
                    shaped[key] = display_topic("", False)
        return shaped

    return shape


def _is_channel_event(event: JsonDict) -> bool:
    return event.get("message_type") != "private" and (
        "stream_id" in event or event["type"] == "user_topic"
    )


def _shape_flags(queue: EventQueue, event: JsonDict) -> JsonDict:
    shaped = public_copy(event)
    details = shaped.get("message_details")
    if isinstance(details, dict) and not queue.caps.empty_topic_name:
        shaped["message_details"] = {
            mid: {**d, "topic": display_topic(d["topic"], False)} if "topic" in d else d
            for mid, d in details.items()
        }
    return shaped


def _accept_typing(queue: EventQueue, event: JsonDict) -> bool:
    # zulip-compat: channel typing only reaches clients declaring stream_typing_notifications.
    if event.get("message_type") == "stream" and not queue.caps.stream_typing_notifications:
        return False
    return caps_match(queue, event)


ACCEPT_RULES["message"] = _accept_message
SHAPERS["message"] = _shape_message
for _type in ("update_message", "delete_message", "reaction", "user_topic", "muted_topics"):
    ACCEPT_RULES[_type] = caps_match
ACCEPT_RULES["typing"] = _accept_typing
SHAPERS["update_message"] = _topic_shaper("orig_subject", "subject")  # type: ignore[assignment]
SHAPERS["delete_message"] = _topic_shaper("topic")  # type: ignore[assignment]
SHAPERS["typing"] = _topic_shaper("topic")  # type: ignore[assignment]
SHAPERS["user_topic"] = _topic_shaper("topic_name")  # type: ignore[assignment]
SHAPERS["update_message_flags"] = _shape_flags
SHAPERS["reaction"] = lambda queue, event: public_copy(event)
SHAPERS["muted_topics"] = lambda queue, event: public_copy(event)
__all__ = ["EMAIL_VISIBLE", "IF_CAPS", "LOCAL", "RAW_CONTENT", "SENDER_GRAVATAR"]

"""Whether a message event matches a queue's narrow (Zulip's build_narrow_predicate).

Supports the operators Zulip supports for event queues: channel, topic, sender, dm and `is`
(dm, starred, unread, mentioned, alerted, resolved). Negated terms invert the match.
"""

from __future__ import annotations

from collections.abc import Sequence

from teamchat.lib.api_types import JsonDict
from teamchat.lib.messages import RESOLVED_TOPIC_PREFIX

Term = tuple[str, object, bool]


def _is_term(operand: object, message: JsonDict, flags: Sequence[str]) -> bool:
    if operand in ("dm", "private"):
        return message["type"] == "private"
    if operand == "starred":
        return "starred" in flags
    if operand == "unread":
        return "read" not in flags
    if operand in ("mentioned", "alerted"):
        return "mentioned" in flags or "has_alert_word" in flags or "wildcard_mentioned" in flags
    if operand == "resolved":
        topic = str(message.get("subject", ""))
        return message["type"] == "stream" and topic.startswith(RESOLVED_TOPIC_PREFIX)
    return True


def _dm_term(operand: object, message: JsonDict) -> bool:
    if message["type"] != "private":
        return False
    recipients = message["display_recipient"]
    assert isinstance(recipients, list)
    if isinstance(operand, str):
        wanted: set[object] = {e.strip().lower() for e in operand.split(",") if e.strip()}
        have: set[object] = {str(r["email"]).lower() for r in recipients}
    elif isinstance(operand, list):
        wanted, have = set(operand), {r["id"] for r in recipients}
    else:
        return False
    # The viewer is a participant; the operand may or may not name them.
    return wanted <= have and len(have - wanted) <= 1


def _term_matches(operator: str, operand: object, message: JsonDict, flags: Sequence[str]) -> bool:
    is_stream = message["type"] == "stream"
    if operator == "channel":
        if isinstance(operand, int):
            return is_stream and message.get("stream_id") == operand
        return is_stream and str(operand).lower() == str(message["display_recipient"]).lower()
    if operator == "topic":
        return is_stream and str(operand).lower() == str(message["subject"]).lower()
    if operator == "sender":
        if isinstance(operand, int):
            return message["sender_id"] == operand
        return str(operand).lower() == str(message["sender_email"]).lower()
    if operator == "dm":
        return _dm_term(operand, message)
    if operator == "is":
        return _is_term(operand, message, flags)
    return True


def message_matches(terms: Sequence[Term], message: JsonDict, flags: Sequence[str]) -> bool:
    """Whether every term of the narrow holds for the message and the viewer's flags."""
    return all(
        _term_matches(operator, operand, message, flags) != negated
        for operator, operand, negated in terms
    )

"""Message rules that need no I/O: content and topic normalization, client names, limits."""

from __future__ import annotations

import re

from teamchat.errors import ZulipError
from teamchat.lib.text import first_unprintable

MAX_MESSAGE_LENGTH = 10000
MAX_TOPIC_LENGTH = 60
EMPTY_TOPIC_DISPLAY_NAME = "general chat"
RESOLVED_TOPIC_PREFIX = "✔ "
# GET /messages: an anchor beyond every message id (Zulip's LARGER_THAN_MAX_MESSAGE_ID).
LARGER_THAN_MAX_MESSAGE_ID = 10000000000000000
MAX_MESSAGES_PER_FETCH = 5000
# zulip-compat: Client.default_read_by_sender: messages sent from these clients start read.
_READ_BY_SENDER_CLIENTS = frozenset(
    {
        "zulipandroid",
        "zulipios",
        "zulipdesktop",
        "zulipmobile",
        "zulipelectron",
        "zulipterminal",
        "snipe",
        "website",
        "ios",
        "android",
    }
)
_USER_AGENT = re.compile(r"^(?P<name>[^/ ]*[^0-9/(]*)(/(?P<version>[^/ ]*))?([ /].*)?$")


def normalize_content(content: str) -> str:
    """Zulip's normalize_body: trim, refuse empty or NUL, truncate past the limit."""
    content = content.rstrip().lstrip("\n")
    if not content:
        raise ZulipError("Message must not be empty")
    if "\x00" in content:
        raise ZulipError("Message must not contain null bytes")
    return truncate(content, MAX_MESSAGE_LENGTH, "\n[message truncated]")


def truncate(text: str, limit: int, marker: str) -> str:
    if len(text) > limit:
        return text[: limit - len(marker)] + marker
    return text


def normalize_topic(topic: str) -> str:
    """A channel message's topic: the empty-topic aliases become "", then checked and cut."""
    # zulip-compat: "(no topic)" and the empty topic's display name mean the empty topic.
    if topic in ("(no topic)", EMPTY_TOPIC_DISPLAY_NAME):
        topic = ""
    topic = topic.strip()
    position = first_unprintable(topic)
    if position is not None:
        raise ZulipError(f"Invalid character in topic, at position {position}!")
    return truncate(topic, MAX_TOPIC_LENGTH, "...")


def display_topic(topic: str, allow_empty_topic_name: bool) -> str:
    """The topic a client sees: the empty topic is "general chat" unless it understands ""."""
    if topic == "" and not allow_empty_topic_name:
        return EMPTY_TOPIC_DISPLAY_NAME
    return topic


def client_name(explicit: str | None, user_agent: str) -> str:
    """Zulip's sending-client name: the `client` parameter, else the User-Agent's product."""
    if explicit:
        return explicit
    match = _USER_AGENT.match(user_agent) if user_agent else None
    if match is None or not match.group("name"):
        return "Unspecified"
    return match.group("name")


def default_read_by_sender(client: str) -> bool:
    """Whether a message sent from `client` starts read for its sender (Zulip's heuristic)."""
    name = client.lower()
    return name in _READ_BY_SENDER_CLIENTS or "desktop app" in name


def is_resolved(topic: str) -> bool:
    return topic.startswith(RESOLVED_TOPIC_PREFIX)

"""Channel links `#**channel**`, topic links `#**channel>topic**` and message links
`#**channel>topic@123**`, with Zulip's narrow URLs (`/#narrow/channel/1-name/topic/...`)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote
from xml.etree.ElementTree import Element, SubElement

from teamchat.render.context import CurrentRender, StreamTarget
from teamchat.render.links import BEFORE_ALLOWED_RE
from teamchat.render.md import AtomicString, CompiledInlineProcessor, MatchResult

STREAM_LINK_RE = re.compile(BEFORE_ALLOWED_RE + r"\#\*\*(?P<stream_name>[^*]+)\*\*")
STREAM_TOPIC_LINK_RE = re.compile(
    BEFORE_ALLOWED_RE + r"\#\*\*(?P<stream_name>[^*>]+)>(?P<topic_name>[^*]*)\*\*"
)
STREAM_TOPIC_MESSAGE_LINK_RE = re.compile(
    BEFORE_ALLOWED_RE
    + r"\#\*\*(?P<stream_name>[^*>]+)>(?P<topic_name>[^*]*)@(?P<message_id>[0-9]+)\*\*"
)
# zulip-compat: how Zulip shows the empty topic ("general chat") inside topic links.
EMPTY_TOPIC_DISPLAY_NAME = "general chat"

# zulip-compat: Zulip's hash encoding (web/shared internal_url.encodeHashComponent): percent
# encoding, then "%" -> ".", and ".", "(", ")" spelled out so the fragment survives copy/paste.
_HASH_REPLACEMENTS = {"%": ".", "(": ".28", ")": ".29", ".": ".2E"}


def encode_hash_component(text: str) -> str:
    """Encode one part of a `#narrow/...` URL the way Zulip's clients expect."""
    return "".join(_HASH_REPLACEMENTS.get(ch, ch) for ch in quote(text, safe="*"))


def encode_stream(stream_id: int, name: str) -> str:
    """Return Zulip's channel slug `<id>-<name>`: spaces become dashes, the rest hash-encoded."""
    return f"{stream_id}-{encode_hash_component(name.replace(' ', '-'))}"


def channel_url(stream: StreamTarget) -> str:
    """Return the relative narrow URL of a channel."""
    return f"/#narrow/channel/{encode_stream(stream.stream_id, stream.name)}"


def topic_url(stream: StreamTarget, topic: str) -> str:
    """Return the relative narrow URL of a topic in a channel."""
    return f"{channel_url(stream)}/topic/{encode_hash_component(topic)}"


def _topic_text(element: Element, stream_name: str, topic: str, suffix: str = "") -> None:
    if topic:
        element.text = AtomicString(f"#{stream_name} > {topic}{suffix}")
        return
    element.text = AtomicString(f"#{stream_name} > ")
    fallback = SubElement(element, "em")
    fallback.text = AtomicString(EMPTY_TOPIC_DISPLAY_NAME)
    fallback.tail = AtomicString(suffix) if suffix else None


class _StreamLinkBase(CurrentRender, CompiledInlineProcessor):
    pass


class StreamLinkProcessor(_StreamLinkBase):
    """`#**channel**` becomes `<a class="stream" data-stream-id=... href=...>#channel</a>`."""

    def __init__(self) -> None:
        super().__init__(STREAM_LINK_RE)

    def handleMatch(self, m: Any, data: str) -> MatchResult:
        stream = self.ctx.streams_by_name.get(m.group("stream_name"))
        if stream is None:
            return None, None, None
        element = Element("a")
        element.set("class", "stream")
        element.set("data-stream-id", str(stream.stream_id))
        element.set("href", channel_url(stream))
        element.text = AtomicString(f"#{stream.name}")
        return element, m.start(), m.end()


class StreamTopicLinkProcessor(_StreamLinkBase):
    """`#**channel>topic**` becomes `<a class="stream-topic" ...>#channel &gt; topic</a>`."""

    def __init__(self) -> None:
        super().__init__(STREAM_TOPIC_LINK_RE)

    def handleMatch(self, m: Any, data: str) -> MatchResult:
        stream = self.ctx.streams_by_name.get(m.group("stream_name"))
        if stream is None:
            return None, None, None
        topic = m.group("topic_name")
        element = Element("a")
        element.set("class", "stream-topic")
        element.set("data-stream-id", str(stream.stream_id))
        element.set("href", topic_url(stream, topic))
        _topic_text(element, stream.name, topic)
        return element, m.start(), m.end()


class StreamTopicMessageLinkProcessor(_StreamLinkBase):
    """`#**channel>topic@123**` becomes `<a class="message-link" ...>... @ 💬</a>`."""

    def __init__(self) -> None:
        super().__init__(STREAM_TOPIC_MESSAGE_LINK_RE)

    def handleMatch(self, m: Any, data: str) -> MatchResult:
        stream = self.ctx.streams_by_name.get(m.group("stream_name"))
        if stream is None:
            return None, None, None
        topic = m.group("topic_name")
        element = Element("a")
        element.set("class", "message-link")
        element.set("href", f"{topic_url(stream, topic)}/near/{m.group('message_id')}")
        _topic_text(element, stream.name, topic, " @ 💬")
        return element, m.start(), m.end()

"""What the renderer may know (RenderContext), what it reports (Rendered), and per-call state.

Plain values only: the message action fetches the context from the database (Zulip's DbData)
and hands it in; nothing here does I/O.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date


@dataclass(frozen=True)
class MentionTarget:
    """A user the renderer may mention."""

    user_id: int
    full_name: str


@dataclass(frozen=True)
class StreamTarget:
    """A channel the renderer may link to."""

    stream_id: int
    name: str


@dataclass(frozen=True)
class Linkifier:
    """A realm linkifier: an RE2 pattern with named groups and an RFC 6570 URL template."""

    pattern: str
    url_template: str


@dataclass(frozen=True)
class RealmEmoji:
    """A custom emoji of the realm, keyed by name in RenderContext.realm_emoji."""

    id: int
    source_url: str
    deactivated: bool = False


@dataclass(frozen=True)
class UploadPreview:
    """An uploaded image the renderer may preview: its size as shown, type and frames, the
    URL of its default thumbnail (None while it is being made), and for a type browsers do
    not show (HEIC) the format name of its full picture in WebP."""

    width: int
    height: int
    content_type: str
    animated: bool
    thumbnail_url: str | None
    transcoded: str | None = None


@dataclass(frozen=True)
class RenderContext:
    """Everything the renderer may know about the realm, fetched by the caller."""

    users_by_name: Mapping[str, list[MentionTarget]]  # key: full_name.casefold()
    users_by_id: Mapping[int, MentionTarget]
    groups_by_name: Mapping[str, int]  # user group name -> group id
    streams_by_name: Mapping[str, StreamTarget]  # key: channel name, exact
    realm_emoji: Mapping[str, RealmEmoji]
    linkifiers: Sequence[Linkifier] = ()
    alert_words: Mapping[int, Sequence[str]] = field(default_factory=dict)
    realm_url: str = ""  # e.g. "https://chat.example.com", to make own links relative
    default_code_block_language: str = ""  # the realm's language for fences that name none
    translate_emoticons: bool = False  # the sender's setting: `:)` becomes an emoji
    # Inline image previews (the realm's inline_image_preview; off outside messages): uploads
    # by path id, and the key that signs links to other sites' images (lib/camo.py).
    image_preview: bool = False
    upload_previews: Mapping[str, UploadPreview] = field(default_factory=dict)
    camo_key: bytes = b""
    # The day (UTC) a `<time:10:00>` without a date falls on: the send's; None rejects those.
    today: date | None = None

    @classmethod
    def empty(cls) -> RenderContext:
        """Return a context that knows no users, groups, channels or custom emoji."""
        return cls(
            users_by_name={}, users_by_id={}, groups_by_name={}, streams_by_name={}, realm_emoji={}
        )

    # Indexes derived once per context (a context may serve many renders); cached_property
    # writes the instance __dict__ directly, which a frozen dataclass allows.
    @functools.cached_property
    def alert_word_index(self) -> Mapping[str, frozenset[int]]:
        """Return casefolded alert word -> ids of the users who set it."""
        index: dict[str, set[int]] = {}
        for user_id, words in self.alert_words.items():
            for word in words:
                if word.strip():
                    index.setdefault(word.strip().casefold(), set()).add(user_id)
        return {word: frozenset(user_ids) for word, user_ids in index.items()}

    @functools.cached_property
    def group_index(self) -> Mapping[str, tuple[str, int]]:
        """Return casefolded group name -> (group name, group id)."""
        return {name.casefold(): (name, group_id) for name, group_id in self.groups_by_name.items()}


@dataclass(frozen=True)
class Rendered:
    """The HTML of one message and the facts the message action needs from it."""

    html: str
    mentioned_user_ids: frozenset[int]  # @**Name** and @**Name|id**, not silent ones
    mentioned_group_ids: frozenset[int]  # @*group*, not silent ones
    stream_wildcard: bool  # @**all**, @**everyone**, @**channel**, @**stream**
    topic_wildcard: bool  # @**topic**
    alert_word_user_ids: frozenset[int]
    has_link: bool
    has_image: bool
    has_attachment: bool  # links to /user_uploads/...
    is_me_message: bool
    links: tuple[str, ...]
    attachment_path_ids: tuple[str, ...] = ()  # "2/ab/file.png" of each /user_uploads/ link


@dataclass
class RenderState:
    """What processors found while rendering one message; owned by a single render call."""

    mentioned_user_ids: set[int] = field(default_factory=set)
    mentioned_group_ids: set[int] = field(default_factory=set)
    stream_wildcard: bool = False
    topic_wildcard: bool = False
    alert_word_user_ids: set[int] = field(default_factory=set)
    links: list[str] = field(default_factory=list)
    has_image: bool = False
    attachment_path_ids: list[str] = field(default_factory=list)
    # HTML made by trusted code (KaTeX) that goes in after sanitizing; see render/math.py.
    trusted_html: list[str] = field(default_factory=list)
    trusted_nonce: str = ""


class CurrentRender:
    """Processors that need the message's context or state read them through this, at run
    time, from the parser doing the render (`md.ctx`, `md.state`): parsers are pooled and
    reused, so nothing may keep the context or state of one render for the next."""

    @property
    def ctx(self) -> RenderContext:
        ctx: RenderContext = getattr(self, "md").ctx  # noqa: B009 (md comes from the processor)
        return ctx

    @property
    def state(self) -> RenderState:
        state: RenderState = getattr(self, "md").state  # noqa: B009
        return state

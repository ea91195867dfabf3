"""Zulip-flavoured Markdown to HTML: `render_markdown(content, ctx)`. Pure and synchronous.

Each call builds a fresh python-markdown instance (they are stateful) from the processors in
PRIORITIES, one module per Zulip syntax, then sanitizes the HTML with an allow-list. It never
does I/O: the caller fetches the RenderContext (users, groups, channels, emoji, linkifiers).
Raw HTML in messages is never passed through: there is no html_block preprocessor and no html
inline pattern, so `<script>` comes out as text.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final, TypeVar

from teamchat.render import code_blocks, emphasis, linkifiers, plain
from teamchat.render.alert_words import AlertWordsPreprocessor
from teamchat.render.blockquote import QuoteProcessor
from teamchat.render.code_spans import CodeSpanProcessor
from teamchat.render.context import (
    Linkifier,
    MentionTarget,
    RealmEmoji,
    RenderContext,
    Rendered,
    RenderState,
    StreamTarget,
    UploadPreview,
)
from teamchat.render.emoji import EmojiProcessor, UnicodeEmojiProcessor
from teamchat.render.emoticons import EmoticonProcessor
from teamchat.render.fenced_blocks import FencedBlockPreprocessor
from teamchat.render.headings import HeadingProcessor
from teamchat.render.inline_images import (
    IMAGE_LINK_RE,
    ImageLinkProcessor,
    InlineImagesTreeprocessor,
)
from teamchat.render.link_flags import LinkFlagsTreeprocessor
from teamchat.render.linkifiers import (
    BadLinkifierError,
    BadPlaygroundTemplateError,
    compile_linkifier,
    topic_links,
    validate_playground_template,
)
from teamchat.render.links import AutoLinkProcessor, LinkProcessor
from teamchat.render.lists import (
    HangingListPreprocessor,
    TwoSpaceListIndentProcessor,
    TwoSpaceOListProcessor,
    TwoSpaceUListProcessor,
)
from teamchat.render.math import TexProcessor, has_math, restore_trusted
from teamchat.render.md import (
    ENTITY_RE,
    LINK_RE,
    AndSubstitutePostprocessor,
    BlockParser,
    BlockProcessor,
    CodeBlockProcessor,
    EmptyBlockProcessor,
    HRProcessor,
    HtmlInlineProcessor,
    InlineProcessor,
    InlineTreeprocessor,
    Markdown,
    NormalizeWhitespace,
    ParagraphProcessor,
    Postprocessor,
    Preprocessor,
    PrettifyTreeprocessor,
    RawHtmlPostprocessor,
    Registry,
    SubstituteTagInlineProcessor,
    TableProcessor,
    Treeprocessor,
    UnescapeTreeprocessor,
)
from teamchat.render.mentions import UserGroupMentionProcessor, UserMentionProcessor
from teamchat.render.sanitize import sanitize_html
from teamchat.render.stream_links import (
    StreamLinkProcessor,
    StreamTopicLinkProcessor,
    StreamTopicMessageLinkProcessor,
)
from teamchat.render.timestamps import TimestampProcessor

__all__ = [
    "PRIORITIES",
    "BadLinkifierError",
    "BadPlaygroundTemplateError",
    "Linkifier",
    "MentionTarget",
    "RealmEmoji",
    "RenderContext",
    "Rendered",
    "StreamTarget",
    "UploadPreview",
    "compile_linkifier",
    "has_math",
    "render_markdown",
    "render_plain_markdown",
    "topic_links",
    "validate_playground_template",
]

# Every processor and its priority (higher runs first), by python-markdown stage. The order
# follows Zulip's ZulipMarkdown.build_parser; linkifiers all share one priority, in realm order.
PRIORITIES: Final = MappingProxyType(
    {
        "preprocessors": {
            "hanging_lists": 35,
            "normalize_whitespace": 30,
            "fenced_blocks": 25,
            "alert_words": 20,
        },
        "blockprocessors": {
            "empty": 95,
            "list_indent": 90,
            "indented_code": 85,
            "heading": 80,
            "table": 75,
            "hr": 70,
            "olist": 65,
            "ulist": 60,
            "quote": 55,
            "paragraph": 50,
        },
        "inlinepatterns": {
            "code_span": 105,
            "strong_em": 100,
            "user_mention": 95,
            "tex": 90,
            "stream_topic_message_link": 89,
            "stream_topic_link": 87,
            "stream_link": 85,
            "timestamp": 75,
            "user_group_mention": 65,
            "image_link": 61,
            "link": 60,
            "autolink": 55,
            "linkifier": 45,
            "entity": 40,
            "strong": 35,
            "emphasis": 30,
            "strikethrough": 25,
            "emoji": 15,
            "emoticon": 10,
            "nl2br": 5,
            "unicode_emoji": 0,
        },
        "treeprocessors": {
            "inline": 25,
            "prettify": 20,
            "indented_code": 19,
            "unescape": 18,
            "link_flags": 15,
            "inline_images": 14,
        },
        "postprocessors": {"raw_html": 20, "amp_substitute": 15},
    }
)


_T = TypeVar("_T")


def _registry(stage: str, items: dict[str, _T]) -> Registry[_T]:
    registry: Registry[_T] = Registry()
    priorities = PRIORITIES[stage]
    for name, item in items.items():
        base_name = name.split("/")[0]
        registry.register(item, name, priorities[base_name])
    return registry


class _ZulipMarkdown(Markdown):
    """python-markdown wired with Zulip's syntax. Building one costs more than most renders,
    so parsers are pooled: `ctx` and `state` are set for each render, and processors read
    them from here at run time (CurrentRender). What the processors themselves hold depends
    only on the pool key: the realm URL and the linkifiers."""

    def __init__(self, ctx: RenderContext, state: RenderState) -> None:
        self.ctx = ctx
        self.state = state
        self.realm_url = ctx.realm_url
        self.linkifiers = tuple(ctx.linkifiers)
        super().__init__(output_format="html")

    def build_parser(self) -> Markdown:
        self.preprocessors = _registry("preprocessors", self._preprocessors())
        self.parser = BlockParser(self)
        self.parser.blockprocessors = _registry("blockprocessors", self._blockprocessors())
        self.inlinePatterns = _registry("inlinepatterns", self._inlinepatterns())
        self.treeprocessors = _registry("treeprocessors", self._treeprocessors())
        self.postprocessors = _registry("postprocessors", self._postprocessors())
        return self

    def _preprocessors(self) -> dict[str, Preprocessor]:
        return {
            "hanging_lists": HangingListPreprocessor(self),
            "normalize_whitespace": NormalizeWhitespace(self),
            "fenced_blocks": FencedBlockPreprocessor(self),
            "alert_words": AlertWordsPreprocessor(self),
        }

    def _blockprocessors(self) -> dict[str, BlockProcessor]:
        parser = self.parser
        return {
            "empty": EmptyBlockProcessor(parser),
            "list_indent": TwoSpaceListIndentProcessor(parser),
            "indented_code": CodeBlockProcessor(parser),
            "heading": HeadingProcessor(parser),
            "table": TableProcessor(parser, {"use_align_attribute": False}),
            "hr": HRProcessor(parser),
            "olist": TwoSpaceOListProcessor(parser),
            "ulist": TwoSpaceUListProcessor(parser),
            "quote": QuoteProcessor(parser),
            "paragraph": ParagraphProcessor(parser),
        }

    def _inlinepatterns(self) -> dict[str, InlineProcessor]:
        patterns: dict[str, InlineProcessor] = {
            "code_span": CodeSpanProcessor(),
            "strong_em": emphasis.strong_em(),
            "user_mention": UserMentionProcessor(),
            "tex": TexProcessor(),
            "stream_topic_message_link": StreamTopicMessageLinkProcessor(),
            "stream_topic_link": StreamTopicLinkProcessor(),
            "stream_link": StreamLinkProcessor(),
            "timestamp": TimestampProcessor(),
            "user_group_mention": UserGroupMentionProcessor(),
            "image_link": ImageLinkProcessor(IMAGE_LINK_RE, self.realm_url),
            "link": LinkProcessor(LINK_RE, self.realm_url),
            "autolink": AutoLinkProcessor(self.realm_url),
        }
        for index, linkifier in enumerate(linkifiers.compiled_linkifiers(self.linkifiers)):
            patterns[f"linkifier/{index}"] = linkifiers.LinkifierProcessor(
                linkifier, self.realm_url
            )
        patterns |= {
            "entity": HtmlInlineProcessor(ENTITY_RE, self),
            "strong": emphasis.strong(),
            "emphasis": emphasis.emphasis(),
            "strikethrough": emphasis.strikethrough(),
            "emoji": EmojiProcessor(),
            "emoticon": EmoticonProcessor(),
            # zulip-compat: every newline inside a paragraph is a line break (nl2br).
            "nl2br": SubstituteTagInlineProcessor(r"\n", "br"),
            "unicode_emoji": UnicodeEmojiProcessor(),
        }
        for pattern in patterns.values():
            pattern.md = self
        return patterns

    def _treeprocessors(self) -> dict[str, Treeprocessor]:
        return {
            "indented_code": code_blocks.IndentedCodeTreeprocessor(self),
            "inline": InlineTreeprocessor(self),
            "prettify": PrettifyTreeprocessor(self),
            "unescape": UnescapeTreeprocessor(self),
            "link_flags": LinkFlagsTreeprocessor(self),
            "inline_images": InlineImagesTreeprocessor(self),
        }

    def _postprocessors(self) -> dict[str, Postprocessor]:
        return {
            "raw_html": RawHtmlPostprocessor(self),
            "amp_substitute": AndSubstitutePostprocessor(),
        }


# Idle parsers by (realm URL, linkifiers). Lists are used with pop/append only (atomic), so
# renders in other threads (imports) never share a parser.
_POOL: dict[tuple[str, tuple[Linkifier, ...]], list[_ZulipMarkdown]] = {}
POOL_KEYS, POOL_PER_KEY = 8, 4


def _convert(content: str, ctx: RenderContext, state: RenderState) -> str:
    key = (ctx.realm_url, tuple(ctx.linkifiers))
    idle = _POOL.get(key)
    if idle is None:
        if len(_POOL) >= POOL_KEYS:
            _POOL.clear()  # linkifiers changed many times: forget the old parsers
        idle = _POOL.setdefault(key, [])
    try:
        md = idle.pop()
        md.ctx, md.state = ctx, state
    except IndexError:
        md = _ZulipMarkdown(ctx, state)
    html = md.convert(content)  # a parser that raised is not reused
    md.reset()
    md.ctx, md.state = _EMPTY_CONTEXT, RenderState()
    if len(idle) < POOL_PER_KEY:
        idle.append(md)
    return html


def render_markdown(content: str, ctx: RenderContext) -> Rendered:
    """Render a message's Markdown `content` to Zulip's HTML, with what it mentions and links."""
    if not ctx.linkifiers and not ctx.translate_emoticons and plain.is_plain(content):
        # Plain text (most messages): the same HTML without the parser (see render.plain).
        return Rendered(
            html=plain.render_plain(content),
            mentioned_user_ids=frozenset(),
            mentioned_group_ids=frozenset(),
            stream_wildcard=False,
            topic_wildcard=False,
            alert_word_user_ids=frozenset(plain.alerted(content, ctx.alert_word_index)),
            has_link=False,
            has_image=False,
            has_attachment=False,
            is_me_message=False,
            links=(),
        )
    return render_full(content, ctx)


def render_full(content: str, ctx: RenderContext) -> Rendered:
    """`render_markdown` through the parser, whatever the content (the plain-text path's
    reference)."""
    state = RenderState()
    html = restore_trusted(sanitize_html(_convert(content, ctx, state)), state)
    return Rendered(
        html=html,
        mentioned_user_ids=frozenset(state.mentioned_user_ids),
        mentioned_group_ids=frozenset(state.mentioned_group_ids),
        stream_wildcard=state.stream_wildcard,
        topic_wildcard=state.topic_wildcard,
        alert_word_user_ids=frozenset(state.alert_word_user_ids),
        has_link=bool(state.links),
        has_image=state.has_image,
        has_attachment=bool(state.attachment_path_ids),
        # zulip-compat: Zulip marks a message as a /me message by its raw content alone.
        is_me_message=content.startswith("/me "),
        links=tuple(state.links),
        attachment_path_ids=tuple(state.attachment_path_ids),
    )


_EMPTY_CONTEXT: Final = RenderContext.empty()


def render_plain_markdown(content: str) -> str:
    """Render Markdown that mentions nobody (descriptions, profile fields) to HTML."""
    return render_markdown(content, _EMPTY_CONTEXT).html

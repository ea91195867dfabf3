"""Slack's message text ("mrkdwn") to Zulip Markdown, for `teamchat import` of a Slack export.

Pure: no I/O. What Zulip's Slack importer converts (zerver/data_import/slack_message_conversion):
`*bold*` -> `**bold**`, `_italic_` -> `*italic*`, `~strike~` -> `~~strike~~` (markers at word
boundaries only, as Slack draws them); `<@U123>` -> `@**Full Name**`; `<#C123|name>` ->
`#**name**`; `<https://x|text>` -> `[text](https://x)`; `<mailto:a@b|a@b>` -> a mailto link.
Wildcards: `<!channel>` and `<!here>` -> `@**channel**`, `<!everyone>` -> `@**all**` (Zulip's
importer writes `@**all**` for the three; ours keeps the narrower meaning where Zulip has it).
Unlike Zulip's, nothing inside code spans or `<...>` links is reformatted, and Slack's HTML
escapes (`&lt;`, `&gt;`, `&amp;`) become the characters they stand for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

# Code blocks and spans, and Slack's <...> entities, are set aside before formatting.
_PROTECTED = re.compile(r"```.*?```|`[^`\n]+`|<[^<>\n]*>", re.DOTALL)
_PLACEHOLDER = re.compile("\ue000([0-9]+)\ue001")
# A marker pair around text that neither starts nor ends with a space, not inside a word.
_BOLD = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?![\w*])")
_ITALIC = re.compile(r"(?<![\w_])_(?=[^\s_])([^_\n]*?[^\s_])_(?![\w_])")
_STRIKE = re.compile(r"(?<![\w~])~(?=[^\s~])([^~\n]*?[^\s~])~(?![\w~])")
_WILDCARDS = {"here": "@**channel**", "channel": "@**channel**", "everyone": "@**all**"}
_URL_SCHEMES = ("http://", "https://", "ftp://", "mailto:")


@dataclass(frozen=True)
class SlackNames:
    """What a message's mentions and links point to: Slack ids -> (our id, name)."""

    users: Mapping[str, tuple[int, str]]
    channels: Mapping[str, str]


@dataclass
class Converted:
    """A message's Zulip Markdown and what the conversion found in it."""

    content: str
    mentioned_user_ids: set[int] = field(default_factory=set)
    wildcard: bool = False
    has_link: bool = False


def unescape(text: str) -> str:
    """Slack's three HTML escapes in message text, undone (`&amp;` last)."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def convert(text: str, names: SlackNames) -> Converted:
    """Zulip Markdown for the mrkdwn `text`."""
    result = Converted(content="")
    pieces: list[str] = []

    def protect(match: re.Match[str]) -> str:
        token = match.group(0)
        if token.startswith("<"):
            pieces.append(_entity(token[1:-1], names, result))
        elif token.startswith("```"):
            pieces.append(_code_block(unescape(token[3:-3])))
        else:
            pieces.append(unescape(token))
        return f"\ue000{len(pieces) - 1}\ue001"

    plain = _PROTECTED.sub(protect, text.replace("\ue000", "").replace("\ue001", ""))
    plain = _BOLD.sub(r"**\1**", unescape(plain))
    plain = _ITALIC.sub(r"*\1*", plain)
    plain = _STRIKE.sub(r"~~\1~~", plain)
    content = _PLACEHOLDER.sub(lambda m: pieces[int(m.group(1))], plain)
    result.content = content.strip("\n")
    return result


def _code_block(inner: str) -> str:
    """A fenced block on lines of its own (Slack allows ```code``` inside a line)."""
    return "\n```\n" + inner.strip("\n") + "\n```\n"


def _entity(inner: str, names: SlackNames, result: Converted) -> str:
    """One Slack `<...>` entity in Zulip's syntax."""
    target, _, label = inner.partition("|")
    label = unescape(label)
    if target.startswith("@"):
        user = names.users.get(target[1:])
        if user is None:
            return "@" + (label.lstrip("@") or target[1:])
        result.mentioned_user_ids.add(user[0])
        return f"@**{user[1]}**"
    if target.startswith("#"):
        channel = names.channels.get(target[1:]) or label.lstrip("#")
        return f"#**{channel}**" if channel else "#" + target[1:]
    if target.startswith("!"):
        command = target[1:].split("^", 1)[0]
        if command in _WILDCARDS:
            result.wildcard = True
            return _WILDCARDS[command]
        # <!subteam^S1|@team>, <!date^...|fallback>: the text Slack shows.
        return label or command
    url = unescape(target)
    if url.startswith(_URL_SCHEMES):
        result.has_link = True
        if label and label != url and label != url.removeprefix("mailto:"):
            return f"[{label}]({url})"
        return url.removeprefix("mailto:") if url.startswith("mailto:") else url
    return unescape(inner)

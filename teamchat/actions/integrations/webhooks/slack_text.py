"""Slack's message formatting into Zulip Markdown, as Zulip converts it: mrkdwn emphasis,
`<url|label>` links, Block Kit blocks and legacy attachments. Pure."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from itertools import zip_longest

from msgspec import Struct

# A Slack link: <https://host/path> or <https://host/path|label>.
_LINK_RE = re.compile(
    r"<(?:https?://www\.|https?://|ftp://)?[a-z0-9]+(?:[-.][a-z0-9]+)*\.[a-z]{2,63}(?::[0-9]{1,5})?"
    r"(?:/[^>]*)?\|?(?:\|[^>]+)?>"
)
_MAILTO_RE = re.compile(
    r"<((?:mailto:)?[\w.-]+@[\w.-]+(?:\.\w+)+)\|?(?:[\w.-]+@[\w.-]+(?:\.\w+)+)?>"
)


def _emphasis(before: str, delimiter: str, inner_first: str, inner_rest: str, after: str) -> str:
    """Slack's single-character emphasis: the delimiter must follow the start or one of
    `before`'s characters and precede the end or one of `after`'s."""
    d = re.escape(delimiter)
    return rf"(^|[{before}]){d}([{inner_first}]*)([{inner_rest}]+){d}($|[{after}])"


# The character classes are Zulip's: they decide which words Slack would have formatted.
_BOLD_RE = re.compile(
    _emphasis(r" -(+-/:-?{\[_|^~", "*", r" -)+-~—", r" -)+-~", r" -'+-/:-?})\]_|^~")
)
_STRIKE_RE = re.compile(
    _emphasis(r" -(+-/*_:-?{\[|^", "~", r" -)+-}—", r" -}", r" -'+-/:-?*_})\]|^")
)
_ITALIC_RE = re.compile(
    _emphasis(r" -*+-/:-?{\[|^~", "_", r" -^`~—", r" -^`-~", r" -'+-/:-?})\]*|^~")
)


def convert_formatting(text: str) -> str:
    """*bold* -> **bold**, ~strike~ -> ~~strike~~, _italic_ -> *italic*."""
    for pattern, marker in ((_BOLD_RE, "**"), (_STRIKE_RE, "~~"), (_ITALIC_RE, "*")):
        text = pattern.sub(_marked(marker), text)
    return text


def _marked(marker: str) -> Callable[[re.Match[str]], str]:
    def replace(m: re.Match[str]) -> str:
        return f"{m[1]}{marker}{m[2]}{m[3]}{marker}{m[4]}"

    return replace


def replace_links(text: str) -> str:
    """<url|label> -> [label](url), <url> -> url, <mailto:a@b|a@b> -> mailto:a@b."""

    def link(match: re.Match[str]) -> str:
        url, _, label = match[0][1:-1].partition("|")
        return f"[{label}]({url})" if label else url

    text = _LINK_RE.sub(link, text)
    return _MAILTO_RE.sub(lambda m: m[1], text)


class TextObject(Struct, frozen=True):
    type: str
    text: str


class Element(Struct, frozen=True):
    type: str
    image_url: str = ""
    alt_text: str = ""
    text: TextObject | str | None = None


class Block(Struct, frozen=True):
    type: str
    text: TextObject | None = None
    elements: list[Element] | None = None
    accessory: Element | None = None
    fields: list[TextObject] | None = None
    image_url: str = ""
    alt_text: str = ""
    title: TextObject | None = None


def render_element(element: Element) -> str:
    """Images only: Zulip has no interactive elements."""
    return f"[{element.alt_text}]({element.image_url})" if element.type == "image" else ""


def _join(pieces: list[str]) -> str:
    return "\n\n".join(piece.strip() for piece in pieces if piece.strip())


def _fields_table(fields: list[TextObject]) -> str:
    if len(fields) == 1:
        return fields[0].text
    cells = [f.text.replace("\n", " ").replace("|", " ") for f in fields]
    table = "| | |\n|-|-|\n"
    pairs = zip_longest(cells[0::2], cells[1::2], fillvalue="")
    return table + "".join(f"| {left} | {right} |\n" for left, right in pairs)


def render_block(block: Block) -> str:
    if block.type == "context" and block.elements:
        texts = [
            render_element(e) if e.type == "image" else (e.text if isinstance(e.text, str) else "")
            for e in block.elements
        ]
        return _join(texts)
    if block.type == "divider":
        return "----"
    if block.type == "header" and block.text is not None:
        return "## " + block.text.text
    if block.type == "image":
        alt = block.title.text if block.title is not None else block.alt_text
        return f"[{alt}]({block.image_url})"
    if block.type == "section":
        pieces = [block.text.text] if block.text is not None else []
        if block.accessory is not None:
            pieces.append(render_element(block.accessory))
        if block.fields is not None:
            pieces.append(_fields_table(block.fields))
        return _join(pieces)
    return ""  # actions and input blocks have nothing to show


class Field(Struct, frozen=True):
    title: str | None = None
    value: str | None = None


class Attachment(Struct, frozen=True):
    title: str | None = None
    title_link: str | None = None
    pretext: str | None = None
    text: str | None = None
    fields: list[Field] | None = None
    blocks: list[Block] | None = None
    image_url: str | None = None
    footer: str | None = None
    ts: int | float | None = None


def _field_line(field: Field) -> str | None:
    if field.title and field.value:
        return f"*{field.title}*: {field.value}"
    if field.title:
        return f"*{field.title}*"
    return field.value or None


def render_attachment(item: Attachment) -> str:
    """A legacy attachment: title (linked), pretext, text, fields, blocks, image, footer, time."""
    pieces: list[str] = []
    if item.title:
        pieces.append(
            f"## [{item.title}]({item.title_link})" if item.title_link else f"## {item.title}"
        )
    pieces += [text for text in (item.pretext, item.text) if text]
    if item.fields is not None:
        pieces.append("\n".join(line for f in item.fields if (line := _field_line(f))))
    pieces += [render_block(block) for block in item.blocks or []]
    if item.image_url:
        pieces.append(f"[]({item.image_url})")
    if item.footer:
        pieces.append(item.footer)
    if item.ts:
        try:
            moment = datetime.fromtimestamp(int(item.ts), tz=UTC)
        except (ValueError, OverflowError, OSError):
            moment = None  # not a time Slack could have sent
        if moment is not None:
            pieces.append(f"<time:{moment.isoformat()}>")
    return _join(pieces)

"""How user content (uploads, avatars, custom emoji) is served: its type from its bytes.

Pure decisions only; the HTTP layer's one response helper applies them. The type an uploader
declared and the file name are never trusted: a script dressed as `x.png` stays a download.
"""

from __future__ import annotations

import codecs
import urllib.parse

import msgspec

from teamchat.lib.images import sniff_image_type

OCTET_STREAM = "application/octet-stream"
# Litestar adds "; charset=utf-8" to text types.
TEXT_PLAIN = "text/plain"
# Formats a browser shows inline without running anything from our origin.
INLINE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"})
# Enough of the start of a file to recognise it and to judge whether it is text.
SNIFF_BYTES = 4096
# Nothing may run or load: `sandbox` gives the document a unique origin even if a browser
# renders it as something active. Images and PDF viewers need inline styles and their own bytes.
_CSP_DOWNLOAD = "default-src 'none'; sandbox"
_CSP_INLINE = (
    "default-src 'none'; img-src 'self'; object-src 'self'; style-src 'unsafe-inline'; sandbox"
)
# C0 controls except tab, newline, carriage return and form feed; DEL; C1 controls.
_TEXT_CONTROLS = (frozenset(range(0x20)) - {0x09, 0x0A, 0x0C, 0x0D}) | frozenset(range(0x7F, 0xA0))


class Presentation(msgspec.Struct, frozen=True, kw_only=True):
    """How to serve one piece of user content: its type and whether a browser shows it."""

    content_type: str
    inline: bool


def sniff_content_type(head: bytes, *, complete: bool = True) -> str:
    """Return the served type of content starting with `head`, from its magic numbers.

    One of the inline raster images or PDF, plain text, or application/octet-stream.
    `complete` says whether `head` is the whole content or only its start.
    """
    image = sniff_image_type(head)
    if image is not None:
        return image
    if head.startswith(b"%PDF-"):
        return "application/pdf"
    if _looks_like_text(head[:SNIFF_BYTES], complete and len(head) <= SNIFF_BYTES):
        return TEXT_PLAIN
    return OCTET_STREAM


def _looks_like_text(head: bytes, complete: bool) -> bool:
    # A sample may end inside a multi-byte character: only the whole file must end cleanly.
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(head, final=complete)
    except UnicodeDecodeError:
        return False
    return not any(ord(ch) in _TEXT_CONTROLS for ch in text)


def presentation(head: bytes, size: int) -> Presentation:
    """Decide type and disposition of `size` bytes of content from the first (SNIFF_BYTES)."""
    content_type = sniff_content_type(head, complete=len(head) >= size)
    return Presentation(content_type=content_type, inline=content_type in INLINE_TYPES)


def security_headers(shown: Presentation) -> dict[str, str]:
    """The headers every user-content response carries."""
    return {
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": _CSP_INLINE if shown.inline else _CSP_DOWNLOAD,
        "Referrer-Policy": "no-referrer",
    }


def content_disposition(inline: bool, file_name: str | None) -> str:
    """A Content-Disposition value, the name as RFC 6266 wants it: ASCII fallback + filename*."""
    kind = "inline" if inline else "attachment"
    if not file_name:
        return kind
    fallback = "".join(
        ch if 0x20 <= ord(ch) < 0x7F and ch not in '"\\%;' else "_" for ch in file_name
    )
    value = f'{kind}; filename="{fallback}"'
    if fallback != file_name:
        value += "; filename*=UTF-8''" + urllib.parse.quote(file_name, safe="")
    return value

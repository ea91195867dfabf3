"""The one response helper for user content: uploads, temporary upload URLs, avatars, emoji.

Every route that serves bytes someone uploaded goes through `user_content_response`, which
decides type and disposition from the bytes (teamchat.lib.user_content) and adds the
security headers. Routes must not build such responses themselves.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from litestar.response import Stream

from teamchat.lib.user_content import (
    SNIFF_BYTES,
    content_disposition,
    presentation,
    security_headers,
)


async def _from_bytes(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def _peek(chunks: AsyncIterator[bytes]) -> tuple[bytes, AsyncIterator[bytes]]:
    """Read enough of `chunks` to sniff; return it and an iterator over all the bytes."""
    head = b""
    async for chunk in chunks:
        head += chunk
        if len(head) >= SNIFF_BYTES:
            break

    async def replay() -> AsyncIterator[bytes]:
        yield head
        async for chunk in chunks:
            yield chunk

    return head, replay()


async def user_content_response(
    content: bytes | AsyncIterator[bytes],
    *,
    size: int,
    cache_control: str,
    file_name: str | None = None,
) -> Stream:
    """Serve user content as what its bytes are, never as what the uploader declared.

    Known-safe raster images and PDF are shown inline; everything else is a download.
    """
    chunks = _from_bytes(content) if isinstance(content, bytes) else content
    head, body = await _peek(chunks)
    shown = presentation(head, size)
    headers = {
        **security_headers(shown),
        "Content-Length": str(size),
        "Content-Disposition": content_disposition(shown.inline, file_name),
        "Cache-Control": cache_control,
    }
    return Stream(body, media_type=shown.content_type, headers=headers)

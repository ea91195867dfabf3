"""Images from other sites, shown through our own origin (Zulip's camo role).

Rendered messages point such images at `/external_content/<digest>/<hex URL>` (lib/camo.py),
signed with a server secret. Serving one fetches it with the URL previews' SSRF guard (public
addresses only, checked after DNS and on every redirect), within a size and time limit, and
only if the bytes are a PNG, GIF, JPEG or WebP image: our visitors' browsers never contact the
other site, and the server is no open proxy.
"""

from __future__ import annotations

import asyncio
import http.client
import logging
import secrets
import urllib.parse
import weakref

from teamchat.actions.integrations import url_previews
from teamchat.actions.messages.preview_context import CAMO_SECRET_NAME, camo_key
from teamchat.errors import ZulipError
from teamchat.lib.camo import verified_url
from teamchat.lib.images import sniff_image_type
from teamchat.runtime import Runtime
from teamchat.store import uploads as secret_store

log = logging.getLogger("teamchat.external_content")
MAX_IMAGE_BYTES = 10 * 1024 * 1024
TIMEOUT_SECS = 5.0
MAX_REDIRECTS = 3
# Remote fetches at once (each holds a thread and up to MAX_IMAGE_BYTES).
CONCURRENT_FETCHES = 4
_GATES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


async def ensure_camo_key(rt: Runtime) -> None:
    """Create the secret that signs camo URLs, once per database."""
    async with rt.db.read() as conn:
        if await secret_store.get_secret(conn, CAMO_SECRET_NAME) is not None:
            return
    async with rt.db.write() as tx:
        await secret_store.insert_secret(tx, CAMO_SECRET_NAME, secrets.token_hex(32))


def fetch_image(url: str, *, allow_private: bool) -> tuple[str, bytes]:
    """(content type, bytes) of an image on another site, through the URL previews' SSRF
    guard; url_previews.FetchRefusedError when it may not or could not be had. Blocking.

    The one place external images are fetched: switch it here to another HTTP client."""
    for _ in range(MAX_REDIRECTS + 1):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise url_previews.FetchRefusedError("only http(s) images are shown")
        https = parts.scheme == "https"
        port = parts.port or (443 if https else 80)
        connection = url_previews._connect(parts.hostname, port, https, allow_private)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        try:
            connection.request("GET", path, headers={
                "Host": parts.netloc, "User-Agent": "teamchat-external-content",
                "Accept": "image/png, image/gif, image/jpeg, image/webp",
            })  # fmt: skip
            response = connection.getresponse()
            if response.status in (301, 302, 303, 307, 308):
                url = urllib.parse.urljoin(url, response.getheader("Location") or "")
                continue
            if response.status != 200:
                raise url_previews.FetchRefusedError(f"status {response.status}")
            length = int(response.getheader("Content-Length") or 0)
            if length > MAX_IMAGE_BYTES:
                raise url_previews.FetchRefusedError(f"{length} bytes is too large")
            body = response.read(MAX_IMAGE_BYTES + 1)
            if len(body) > MAX_IMAGE_BYTES:
                raise url_previews.FetchRefusedError("too large")
            kind = sniff_image_type(body[:16])
            if kind is None:
                raise url_previews.FetchRefusedError("not a PNG, GIF, JPEG or WebP image")
            return kind, body
        finally:
            connection.close()
    raise url_previews.FetchRefusedError("too many redirects")


def _gate() -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    gate = _GATES.get(loop)
    if gate is None:
        gate = _GATES[loop] = asyncio.Semaphore(CONCURRENT_FETCHES)
    return gate


async def access_external_image(rt: Runtime, digest: str, hex_url: str) -> tuple[str, bytes]:
    """The image a camo path names, if we signed it and it can be fetched; else
    "File not found"."""
    async with rt.db.read() as conn:
        key = await camo_key(conn)
    url = verified_url(key, digest, hex_url)
    if url is None:
        raise ZulipError("File not found")
    allow_private = rt.settings.url_preview_allow_private
    try:
        async with _gate():
            return await asyncio.wait_for(
                asyncio.to_thread(fetch_image, url, allow_private=allow_private),
                timeout=3 * TIMEOUT_SECS,
            )
    except (
        url_previews.FetchRefusedError, OSError, http.client.HTTPException, ValueError,
        TimeoutError,
    ) as error:  # fmt: skip
        log.info("external image %s not shown: %s", url, error)
        raise ZulipError("File not found") from None

"""Images from other sites, shown through our own origin (Zulip's camo role).

Rendered messages point such images at `/external_content/<digest>/<hex URL>` (lib/camo.py),
signed with a server secret. Serving one fetches it through the server's one outbound client
(public addresses only, checked after DNS and on every redirect), within a size and time limit, and
only if the bytes are a PNG, GIF, JPEG or WebP image: our visitors' browsers never contact the
other site, and the server is no open proxy.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import weakref

from teamchat.actions.messages.preview_context import CAMO_SECRET_NAME, camo_key
from teamchat.errors import ZulipError
from teamchat.lib.camo import verified_url
from teamchat.lib.images import sniff_image_type
from teamchat.lib.outbound import OutboundError
from teamchat.runtime import Runtime
from teamchat.store import uploads as secret_store

log = logging.getLogger("teamchat.external_content")
MAX_IMAGE_BYTES = 10 * 1024 * 1024
TIMEOUT_SECS = 5.0
MAX_REDIRECTS = 3
# Remote fetches at once (each holds up to MAX_IMAGE_BYTES).
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


async def fetch_image(rt: Runtime, url: str) -> tuple[str, bytes]:
    """(content type, bytes) of an image on another site, through the server's one outbound
    client (public addresses only, every hop checked, one deadline, a size bound);
    ExternalImageRefusedError when it may not or could not be had."""
    try:
        answer = await rt.outbound.fetch(
            url, headers={"Accept": "image/png, image/gif, image/jpeg, image/webp"},
            max_bytes=MAX_IMAGE_BYTES,
            deadline_secs=min(TIMEOUT_SECS, rt.settings.outbound_deadline_secs),
            purpose="external-content", max_redirects=MAX_REDIRECTS,
        )  # fmt: skip
    except OutboundError as error:
        raise ExternalImageRefusedError(str(error)) from None
    if answer.status != 200:
        raise ExternalImageRefusedError(f"status {answer.status}")
    if answer.truncated:
        raise ExternalImageRefusedError("too large")
    kind = sniff_image_type(answer.body[:16])
    if kind is None:
        raise ExternalImageRefusedError("not a PNG, GIF, JPEG or WebP image")
    return kind, answer.body


class ExternalImageRefusedError(Exception):
    """The image is not shown: why, for the log."""


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
    try:
        async with _gate():
            return await fetch_image(rt, url)
    except ExternalImageRefusedError as error:
        log.info("external image %s not shown: %s", url, error)
        raise ZulipError("File not found") from None

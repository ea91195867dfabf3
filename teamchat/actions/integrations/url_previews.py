"""URL previews: when the organization enables `inline_url_embed_preview`, the links of a
new message are fetched in the background and a preview of each page (its title and
description) is added under the message, sent to clients as `update_message` with
`rendering_only`. Only public internet addresses are fetched (never this server's own
network: the address is checked after DNS resolution, on every redirect, and the checked
address is the one connected to); pages are read up to a size and time limit.
"""

from __future__ import annotations

import asyncio
import http.client
import logging
import socket
import ssl
import urllib.parse

from teamchat.actions.messages.message_deliver import Delivered, send_hook
from teamchat.actions.messages.preview_context import camo_key
from teamchat.lib import flags as fl
from teamchat.lib import realm_settings
from teamchat.lib.api_types import JsonDict
from teamchat.lib.camo import camo_url
from teamchat.lib.url_preview import Preview, embed_html, is_public_address, parse_preview
from teamchat.render.sanitize import sanitize_html
from teamchat.runtime import Runtime
from teamchat.store import message_flags as flag_store
from teamchat.store import messages as message_store
from teamchat.store.db import Tx

log = logging.getLogger("teamchat.url_previews")
MAX_LINKS = 5
MAX_PAGE_BYTES = 512 * 1024
TIMEOUT_SECS = 5.0
MAX_REDIRECTS = 3


class FetchRefusedError(Exception):
    """The URL may not or could not be fetched; the message says why."""


def _connect(host: str, port: int, https: bool, allow_private: bool) -> http.client.HTTPConnection:
    """A connection to a checked address of `host` (TLS verified against `host`)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        raise FetchRefusedError(f"cannot resolve {host}: {error}") from None
    addresses = [str(info[4][0]) for info in infos]
    if not addresses or not (allow_private or all(map(is_public_address, addresses))):
        raise FetchRefusedError(f"{host} is not on the public internet")
    sock = socket.create_connection((addresses[0], port), timeout=TIMEOUT_SECS)
    if https:
        sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
    connection = http.client.HTTPConnection(host, port, timeout=TIMEOUT_SECS)
    connection.sock = sock
    return connection


def fetch_page(url: str, *, allow_private: bool = False) -> tuple[str, str]:
    """(final URL, page text) of an HTML page; FetchRefusedError when it may not be had."""
    for _ in range(MAX_REDIRECTS + 1):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise FetchRefusedError("only http(s) URLs are previewed")
        https = parts.scheme == "https"
        port = parts.port or (443 if https else 80)
        connection = _connect(parts.hostname, port, https, allow_private)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        try:
            connection.request("GET", path, headers={
                "Host": parts.netloc, "User-Agent": "teamchat-url-preview", "Accept": "text/html",
            })  # fmt: skip
            response = connection.getresponse()
            if response.status in (301, 302, 303, 307, 308):
                url = urllib.parse.urljoin(url, response.getheader("Location") or "")
                continue
            kind = response.getheader("Content-Type") or ""
            if response.status != 200 or "html" not in kind:
                raise FetchRefusedError(f"status {response.status}, type {kind!r}")
            body = response.read(MAX_PAGE_BYTES)
            charset = response.headers.get_content_charset() or "utf-8"
            return url, body.decode(charset, errors="replace")
        finally:
            connection.close()
    raise FetchRefusedError("too many redirects")


async def previews_for(links: list[str], *, allow_private: bool) -> list[Preview]:
    previews = []
    for link in links[:MAX_LINKS]:
        try:
            _, page = await asyncio.to_thread(fetch_page, link, allow_private=allow_private)
        except (FetchRefusedError, OSError, http.client.HTTPException, ValueError) as error:
            log.info("no preview for %s: %s", link, error)
            continue
        preview = parse_preview(link, page)
        if preview is not None:
            previews.append(preview)
    return previews


def _previewable(links: tuple[str, ...] | list[str], realm_url: str) -> list[str]:
    own = realm_url.rstrip("/")
    found = []
    for link in links:
        external = link.startswith(("http://", "https://")) and not (own and link.startswith(own))
        if external and link not in found:
            found.append(link)
    return found


@send_hook
async def _on_send(rt: Runtime, tx: Tx, sent: Delivered) -> None:
    if not realm_settings.load(sent.realm.settings_json).inline_url_embed_preview:
        return
    links = _previewable(sent.draft.rendered.links, sent.draft.realm_url)
    message_id = sent.message["id"]
    assert isinstance(message_id, int)
    if links:
        tx.after_commit(lambda: rt.spawn(add_previews(rt, message_id, links)))


async def add_previews(rt: Runtime, message_id: int, links: list[str]) -> None:
    """Fetch the previews and add them under the message (unless it changed meanwhile)."""
    async with rt.db.read() as conn:
        found = await message_store.list_messages(conn, [message_id])
    if not found:
        return
    before = found[0]
    previews = await previews_for(links, allow_private=rt.settings.url_preview_allow_private)
    if not previews:
        return
    async with rt.db.write() as tx:
        current = await message_store.list_messages(tx, [message_id])
        if not current or current[0].rendered_content != before.rendered_content:
            return
        message = current[0]
        # zulip-compat: add_embed shows a preview only for a page with an image (via camo).
        key = await camo_key(tx)
        embeds = [embed_html(p, camo_url(key, p.image)) for p in previews if p.image and key]
        if not embeds:
            return
        rendered = sanitize_html(message.rendered_content + "".join(embeds))
        await message_store.set_rendered_content(tx, message_id, rendered)
        event: JsonDict = {
            "type": "update_message", "user_id": None, "edit_timestamp": rt.now(),
            "message_id": message_id, "message_ids": [message_id], "rendering_only": True,
            "content": message.content, "rendered_content": rendered,
        }  # fmt: skip
        holders = await flag_store.message_user_flags(tx, [message_id])
        audience = {
            uid: {"flags": fl.flag_names(flags[message_id])} for uid, flags in holders.items()
        }
        tx.after_commit(lambda: rt.broker.publish(event, audience))

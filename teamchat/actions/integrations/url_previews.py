"""URL previews: when the organization enables `inline_url_embed_preview`, the links of a
new message are fetched in the background and a preview of each page (its title and
description) is added under the message, sent to clients as `update_message` with
`rendering_only`. Pages are fetched through the server's one outbound client
(`rt.outbound`): public internet addresses only, every redirect checked, one deadline, a
size limit.
"""

from __future__ import annotations

import logging
from email.message import Message

from teamchat.actions.messages.message_deliver import Delivered, send_hook
from teamchat.actions.messages.preview_context import camo_key
from teamchat.lib import flags as fl
from teamchat.lib import realm_settings
from teamchat.lib.api_types import JsonDict
from teamchat.lib.camo import camo_url
from teamchat.lib.outbound import OutboundError
from teamchat.lib.url_preview import Preview, embed_html, parse_preview
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


async def fetch_page(rt: Runtime, url: str, sender_id: int) -> tuple[str, str] | None:
    """(final URL, text) of an HTML page, or None (logged) when there is none to preview."""
    try:
        answer = await rt.outbound.fetch(
            url, headers={"Accept": "text/html"}, max_bytes=MAX_PAGE_BYTES,
            deadline_secs=min(TIMEOUT_SECS, rt.settings.outbound_deadline_secs),
            purpose="url-preview", senders=(f"user:{sender_id}",), max_redirects=MAX_REDIRECTS,
        )  # fmt: skip
    except OutboundError as error:
        log.info("no preview for %s: %s", url, error)
        return None
    kind = answer.headers.get("content-type", "")
    if answer.status != 200 or "html" not in kind:
        log.info("no preview for %s: status %s, type %r", url, answer.status, kind)
        return None
    charset = Message()
    charset["content-type"] = kind
    encoding = charset.get_content_charset() or "utf-8"
    try:
        return answer.url, answer.body.decode(encoding, errors="replace")
    except LookupError:  # a charset Python does not know
        return answer.url, answer.body.decode("utf-8", errors="replace")


async def previews_for(rt: Runtime, links: list[str], sender_id: int) -> list[Preview]:
    previews = []
    for link in links[:MAX_LINKS]:
        fetched = await fetch_page(rt, link, sender_id)
        preview = parse_preview(link, fetched[1]) if fetched is not None else None
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
    sender_id = sent.sender.id
    if links:
        tx.after_commit(lambda: rt.spawn(add_previews(rt, message_id, links, sender_id)))


async def add_previews(rt: Runtime, message_id: int, links: list[str], sender_id: int) -> None:
    """Fetch the previews and add them under the message (unless it changed meanwhile)."""
    async with rt.db.read() as conn:
        found = await message_store.list_messages(conn, [message_id])
    if not found:
        return
    before = found[0]
    previews = await previews_for(rt, links, sender_id)
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

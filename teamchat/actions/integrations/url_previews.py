"""URL previews: when the organization enables `inline_url_embed_preview`, the links of a
new message are fetched in the background and a preview of each page (its title and
description) is added under the message, sent to clients as `update_message` with
`rendering_only`. Pages are fetched through the server's one outbound client
(`rt.outbound`): public internet addresses only, every redirect checked, one deadline, a
size limit. As in Zulip, YouTube and Vimeo links are asked of their oEmbed endpoint first
(lib/oembed.py): a Vimeo video gets Zulip's `embed-video` preview, and a bare YouTube or
Vimeo link shows "YouTube - <title>" / "Vimeo - <title>" (YouTube's still image is the
renderer's); messages sent by bots get no previews.
"""

from __future__ import annotations

import logging
from email.message import Message

import msgspec

from teamchat.actions.messages.message_deliver import Delivered, send_hook
from teamchat.actions.messages.preview_context import camo_key
from teamchat.lib import flags as fl
from teamchat.lib import realm_settings
from teamchat.lib.api_types import JsonDict
from teamchat.lib.camo import camo_url
from teamchat.lib.oembed import OEmbed, parse_oembed, provider_of
from teamchat.lib.outbound import OutboundError, OutboundResponse
from teamchat.lib.url_preview import (
    Preview,
    embed_html,
    parse_preview,
    photo_html,
    retitle_link,
)
from teamchat.render.sanitize import sanitize_html
from teamchat.render.video_links import embed_video_html, oembed_title, vimeo_id, youtube_id
from teamchat.runtime import Runtime
from teamchat.store import message_flags as flag_store
from teamchat.store import messages as message_store
from teamchat.store.db import Tx

log = logging.getLogger("teamchat.url_previews")
MAX_LINKS = 5
MAX_PAGE_BYTES = 512 * 1024
MAX_OEMBED_BYTES = 64 * 1024
TIMEOUT_SECS = 5.0
MAX_REDIRECTS = 3


async def _fetch(
    rt: Runtime, url: str, accept: str, max_bytes: int, sender_id: int
) -> OutboundResponse:
    """A preview's request through the one guarded outbound client."""
    return await rt.outbound.fetch(
        url, headers={"Accept": accept}, max_bytes=max_bytes,
        deadline_secs=min(TIMEOUT_SECS, rt.settings.outbound_deadline_secs),
        purpose="url-preview", senders=(f"user:{sender_id}",), max_redirects=MAX_REDIRECTS,
    )  # fmt: skip


async def fetch_page(rt: Runtime, url: str, sender_id: int) -> tuple[str, str] | None:
    """(final URL, text) of an HTML page, or None (logged) when there is none to preview."""
    try:
        answer = await _fetch(rt, url, "text/html", MAX_PAGE_BYTES, sender_id)
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


async def fetch_oembed(rt: Runtime, request_url: str, sender_id: int) -> OEmbed | None:
    """A provider's oEmbed answer about a link, or None (logged)."""
    try:
        answer = await _fetch(rt, request_url, "application/json", MAX_OEMBED_BYTES, sender_id)
    except OutboundError as error:
        log.info("no oEmbed answer from %s: %s", request_url, error)
        return None
    if answer.status != 200 or answer.truncated:
        return None
    return parse_oembed(answer.body)


class LinkData(msgspec.Struct, frozen=True, kw_only=True):
    """What was found about one link: its provider's oEmbed answer and/or its page."""

    url: str
    provider: str | None = None
    oembed: OEmbed | None = None
    page: Preview | None = None


async def previews_for(rt: Runtime, links: list[str], sender_id: int) -> list[LinkData]:
    found = []
    for link in links[:MAX_LINKS]:
        provider, oembed = provider_of(link), None
        if provider is not None:
            oembed = await fetch_oembed(rt, provider[1], sender_id)
        page = None
        if oembed is None or oembed.kind == "link":
            fetched = await fetch_page(rt, link, sender_id)
            page = parse_preview(link, fetched[1]) if fetched is not None else None
        if oembed is not None or page is not None:
            name = provider[0] if provider is not None else None
            found.append(LinkData(url=link, provider=name, oembed=oembed, page=page))
    return found


def apply_previews(html: str, found: list[LinkData], key: bytes, image_preview: bool) -> str:
    """`html` with the previews Zulip's InlineInterestingLinkProcessor makes of `found`:
    link titles for YouTube and Vimeo, oEmbed videos and photos, page embeds (each needs an
    image, shown through camo)."""
    embeds = []
    for data in found:
        oembed, page = data.oembed, data.page
        title = oembed.title if oembed is not None and oembed.title else None
        title = title or (page.title if page is not None else None)
        if image_preview and youtube_id(data.url) is not None:
            # zulip-compat: a YouTube link keeps the renderer's preview and gains a title.
            if title is not None:
                html = retitle_link(html, data.url, str(oembed_title("YouTube", title)))
            continue
        if oembed is not None and oembed.kind == "video":
            embeds.append(
                embed_video_html(
                    data.url, camo_url(key, oembed.image), oembed.title, oembed.player_html
                )
            )
            if image_preview and vimeo_id(data.url) is not None and oembed.title:
                html = retitle_link(html, data.url, str(oembed_title("Vimeo", oembed.title)))
        elif oembed is not None and oembed.kind == "photo":
            embeds.append(photo_html(data.url, camo_url(key, oembed.image), oembed.title))
        elif page is not None and page.image:
            # zulip-compat: add_embed shows a preview only for a page with an image.
            embeds.append(embed_html(page, camo_url(key, page.image)))
    return html + "".join(embeds)


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
    settings = realm_settings.load(sent.realm.settings_json)
    # zulip-compat: messages sent by bots get no URL previews (sent_by_bot).
    if not settings.inline_url_embed_preview or sent.sender.is_bot:
        return
    links = _previewable(sent.draft.rendered.links, sent.draft.realm_url)
    message_id = sent.message["id"]
    assert isinstance(message_id, int)
    sender_id = sent.sender.id
    image_preview = settings.inline_image_preview
    if links:
        tx.after_commit(
            lambda: rt.spawn(add_previews(rt, message_id, links, sender_id, image_preview))
        )


async def add_previews(
    rt: Runtime, message_id: int, links: list[str], sender_id: int, image_preview: bool = True
) -> None:
    """Fetch the previews and add them under the message (unless it changed meanwhile)."""
    async with rt.db.read() as conn:
        rows = await message_store.list_messages(conn, [message_id])
    if not rows:
        return
    before = rows[0]
    found = await previews_for(rt, links, sender_id)
    if not found:
        return
    async with rt.db.write() as tx:
        current = await message_store.list_messages(tx, [message_id])
        if not current or current[0].rendered_content != before.rendered_content:
            return
        message = current[0]
        key = await camo_key(tx)
        if not key:
            return
        with_previews = apply_previews(message.rendered_content, found, key, image_preview)
        if with_previews == message.rendered_content:
            return
        rendered = sanitize_html(with_previews)
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

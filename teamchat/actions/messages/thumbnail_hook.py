"""Messages sent while one of their images was being thumbnailed: a message rendered with the
loading spinner, but committed after the thumbnail was stored, is updated right after its send
(the thumbnail's own update ran before the message existed)."""

from __future__ import annotations

from teamchat.actions.messages import thumbnails
from teamchat.actions.messages.message_deliver import Delivered, send_hook
from teamchat.records import ImageAttachmentRow
from teamchat.render.inline_images import has_placeholders
from teamchat.runtime import Runtime
from teamchat.store import thumbnails as thumbnail_store
from teamchat.store.db import Tx


@send_hook
async def _on_send(rt: Runtime, tx: Tx, sent: Delivered) -> None:
    """A message rendered while a thumbnail was being made, but committed after it was
    stored, is updated at once (the thumbnail's own update could not see it yet)."""
    if not has_placeholders(sent.draft.rendered.html):
        return
    images = await thumbnail_store.images_by_path(tx, list(sent.draft.rendered.attachment_path_ids))
    done = [image for image in images.values() if image.state != "pending"]
    message_id = sent.message["id"]
    if done and isinstance(message_id, int):
        tx.after_commit(lambda: rt.spawn(_refresh_later(rt, message_id, done)))


async def _refresh_later(rt: Runtime, message_id: int, images: list[ImageAttachmentRow]) -> None:
    async with rt.db.write() as tx:
        await thumbnails.refresh_messages(rt, tx, [message_id], images)

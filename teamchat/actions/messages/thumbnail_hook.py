"""Messages sent while one of their images was being thumbnailed (see
thumbnails.show_ready_thumbnails): a send hook, so the send action needs no import of ours."""

from __future__ import annotations

from teamchat.actions.messages import thumbnails
from teamchat.actions.messages.message_deliver import Delivered, send_hook
from teamchat.runtime import Runtime
from teamchat.store.db import Tx


@send_hook
async def _on_send(rt: Runtime, tx: Tx, sent: Delivered) -> None:
    message_id = sent.message["id"]
    if isinstance(message_id, int):
        await thumbnails.show_ready_thumbnails(rt, tx, message_id, sent.draft.rendered)

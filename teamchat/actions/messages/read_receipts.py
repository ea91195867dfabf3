"""GET /messages/{message_id}/read_receipts."""

from __future__ import annotations

from teamchat.actions.messages.message_common import access_message
from teamchat.errors import ZulipError
from teamchat.lib import realm_settings
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import read_receipts as receipts_store
from teamchat.store import realm as realm_store


async def get_read_receipts(rt: Runtime, user: UserRow, message_id: int) -> list[int]:
    """Who has read a message the user can access, when the organization allows it."""
    async with rt.db.read() as conn:
        message, _ = await access_message(conn, user, message_id)
        realm = await realm_store.get_realm(conn)
        assert realm is not None
        if not realm_settings.load(realm.settings_json).enable_read_receipts:
            raise ZulipError("Read receipts are disabled in this organization.")
        return await receipts_store.readers(conn, message.id, message.sender_id, user.id)

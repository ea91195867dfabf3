"""Message retention: messages older than their channel's `message_retention_days` (or the
organization's, which also covers direct messages) are deleted by a job of the server
process, once at start and then every `retention_interval_secs` (a day by default), with the
uploads no remaining message links. Clients get the usual `delete_message` events.
`-1` (Zulip's "unlimited") keeps everything, and is the organization's default.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict

from teamchat.actions.messages.message_delete import do_delete_messages
from teamchat.lib import realm_settings
from teamchat.records import MessageRow
from teamchat.runtime import Runtime
from teamchat.store import realm as realm_store
from teamchat.store import retention as retention_store
from teamchat.store import streams as stream_store

log = logging.getLogger("teamchat.retention")
DAY_SECS = 86400
BATCH = 1000
FOREVER = -1


async def run_retention(rt: Runtime, interval_secs: float) -> None:
    """Apply retention now and then every `interval_secs` (cancelled at shutdown)."""
    while True:
        try:
            deleted = await apply_retention(rt)
            if deleted:
                log.info("message retention deleted %d messages", deleted)
        except Exception:
            log.exception("message retention failed")
        await asyncio.sleep(interval_secs)


async def _policies(rt: Runtime) -> list[tuple[int, int]]:
    """(recipient id, keep days) for every channel and conversation with a limit."""
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        assert realm is not None
        realm_days = realm_settings.load(realm.settings_json).message_retention_days
        policies = []
        for stream in await stream_store.list_streams(conn):
            days = stream.message_retention_days
            days = realm_days if days is None else days
            if days != FOREVER and days > 0:
                policies.append((stream.recipient_id, days))
        if realm_days != FOREVER and realm_days > 0:
            cutoff = rt.now() - realm_days * DAY_SECS
            direct = await retention_store.direct_recipients_with_messages_before(conn, cutoff)
            policies += [(recipient_id, realm_days) for recipient_id in direct]
    return policies


async def apply_retention(rt: Runtime) -> int:
    """Delete every message past its keeping period; return how many went."""
    total = 0
    for recipient_id, days in await _policies(rt):
        cutoff = rt.now() - days * DAY_SECS
        while True:
            async with rt.db.read() as conn:
                expired = await retention_store.expired_in_recipient(
                    conn, recipient_id, cutoff, BATCH
                )
            if not expired:
                break
            for conversation in _by_topic(expired):
                # Another process running retention may have deleted some first.
                total += len(await do_delete_messages(rt, conversation, drop_uploads=True))
    return total


def _by_topic(messages: list[MessageRow]) -> list[list[MessageRow]]:
    """Split one recipient's messages into conversations (a channel's topics)."""
    groups: dict[str, list[MessageRow]] = defaultdict(list)
    for message in messages:
        groups[message.topic.lower()].append(message)
    return list(groups.values())

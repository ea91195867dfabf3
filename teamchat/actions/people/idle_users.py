"""Long-term idle people (Zulip's "soft deactivation"): channel messages that carry no flag
for them are stored without their row until they come back (store.idle_users has the rule).

Someone is made idle after `idle_after_days` without presence (the periodic job, or
`teamchat admin mark-idle`); any authentication of theirs (API key, session, log-in) first
writes out what they missed, in one transaction, as Zulip's reactivation does. Whether
someone is idle changes how many rows a send writes, never what any request answers.
"""

from __future__ import annotations

import asyncio
import logging

from teamchat.runtime import Runtime
from teamchat.store import idle_users as idle_store
from teamchat.store.db import Conn

log = logging.getLogger(__name__)

DAY_SECS = 86400


async def is_idle(conn: Conn, user_id: int) -> bool:
    return await idle_store.is_idle(conn, user_id)


async def wake(rt: Runtime, user_id: int) -> int:
    """The user is back: write out their missing rows; return how many were written.
    Each step leaves the rule exact (the watermark moves past what it wrote); the last
    one ends the idleness, and only then does the caller's request go on."""
    step = max(1, rt.settings.idle_catch_up_step)
    written = 0
    while True:
        async with rt.db.write() as tx:
            mark = await idle_store.watermark(tx, user_id)
            if mark is None:
                return written
            if await idle_store.newest_message_id(tx) - mark <= step:
                await idle_store.note_return(tx, user_id, rt.now())
                return written + await idle_store.wake(tx, [user_id])
            written += await idle_store.catch_up_through(tx, user_id, mark + step)


async def wake_if_idle(rt: Runtime, user_id: int) -> None:
    async with rt.db.read() as conn:
        idle = await idle_store.is_idle(conn, user_id)
    if idle:
        await wake(rt, user_id)


async def mark_idle_users(rt: Runtime, days: int) -> int:
    """Make idle everyone (not bots) with no presence for `days` days; return how many."""
    if days <= 0:
        return 0
    before = rt.now() - days * DAY_SECS
    async with rt.db.write() as tx:
        return await idle_store.mark_idle(tx, await idle_store.idle_candidates(tx, before))


async def mark_idle_now(rt: Runtime, user_ids: list[int]) -> int:
    """Make these active people idle now; return how many were not idle already."""
    async with rt.db.write() as tx:
        return await idle_store.mark_idle(tx, user_ids)


async def run_idle_marking(rt: Runtime, interval_secs: float, days: int) -> None:
    """Mark idle people now and then every `interval_secs` (cancelled at shutdown)."""
    while True:
        try:
            marked = await mark_idle_users(rt, days)
            if marked:
                log.info("%d people idle for %d days: their plain channel rows wait", marked, days)
        except Exception:
            log.exception("marking idle people failed")
        await asyncio.sleep(interval_secs)

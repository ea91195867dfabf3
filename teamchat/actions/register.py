"""Event queues: POST /register (queue + initial state, atomically), GET and DELETE /events."""

from __future__ import annotations

import msgspec

from teamchat import store
from teamchat.actions.people import bot_defaults
from teamchat.actions.state import StateContext, fetch_initial_state
from teamchat.errors import ZulipError
from teamchat.events.queue import ClientCapabilities
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


async def do_register(
    rt: Runtime,
    user: UserRow,
    caps: ClientCapabilities,
    *,
    fetch_event_types: frozenset[str] | None,
    realm_url: str,
    idle_timeout_secs: float | None = None,
) -> JsonDict:
    """Allocate a queue and read the initial state while no write can commit.

    Holding the writer lock makes every change either part of the state or an event in
    the new queue, never both and never neither; with several server processes, the
    snapshot is in step with the events received from the others (`read_in_step`).
    """
    async with rt.db.writes_paused(), rt.db.read_in_step() as conn:
        queue = rt.broker.allocate(user.id, caps, idle_timeout_secs)
        realm = await store.realm.get_realm(conn)
        if realm is None:
            raise ZulipError("This database has no organization yet.")
        state: JsonDict = {"queue_id": queue.queue_id, "last_event_id": -1}
        ctx = StateContext(
            rt=rt,
            conn=conn,
            realm=realm,
            user=user,
            caps=caps,
            realm_url=realm_url,
            state=state,
        )
        try:
            await fetch_initial_state(ctx, fetch_event_types)
        except BaseException:
            rt.broker.delete(queue)
            raise
    return state


async def get_events(
    rt: Runtime, user: UserRow, queue_id: str, last_event_id: int | None, *, dont_block: bool
) -> list[bytes]:
    """Events newer than `last_event_id` as JSON objects, waiting (long-poll) when there are
    none yet."""
    queue = rt.broker.access(queue_id, user.id)
    return await rt.broker.get_events(queue, last_event_id, dont_block=dont_block)


def delete_queue(rt: Runtime, user: UserRow, queue_id: str) -> None:
    rt.broker.delete(rt.broker.access(queue_id, user.id))


async def with_bot_defaults(
    rt: Runtime, user: UserRow, caps: ClientCapabilities, *, all_public_given: bool
) -> ClientCapabilities:
    """Zulip's _default_all_public_streams and _default_narrow: a bot registering without
    `all_public_streams` or a narrow gets its own defaults."""
    defaults = await bot_defaults.register_defaults(rt, user)
    if defaults is None:
        return caps
    if not all_public_given:
        caps = msgspec.structs.replace(caps, all_public_streams=defaults.all_public_streams)
    if not caps.narrow and defaults.events_register_stream is not None:
        narrow = (("channel", defaults.events_register_stream, False),)
        caps = msgspec.structs.replace(caps, narrow=narrow)
    return caps

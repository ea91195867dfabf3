"""Presence: recording a client's pings, reading everyone's presence, `presence` events.

Every stored change takes the next realm-wide update id, so `last_update_id` lets a client
fetch only what changed. Users with `presence_enabled` false record nothing; turning it off
makes them look offline to everyone at once.
"""

from __future__ import annotations

from teamchat import store
from teamchat.actions.people.user_access import presence_audience, presence_visible_ids
from teamchat.actions.people.user_lookup import find_user_by_email
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import ZulipError
from teamchat.events import rules_people  # noqa: F401 (registers presence event shaping)
from teamchat.events.types_people import LegacyPresence, ModernPresence, PresenceEvent
from teamchat.lib import presence as lp
from teamchat.lib import realm_settings, user_settings, wire
from teamchat.lib.api_types import JsonDict
from teamchat.lib.integers import is_ascii_digits
from teamchat.records import PresenceRow, RealmRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import presence as presence_store
from teamchat.store.db import Conn, Tx

STATUSES = ("active", "idle")


async def check_update_presence(
    rt: Runtime,
    user: UserRow,
    status: str,
    *,
    ping_only: bool,
    slim_presence: bool,
    last_update_id: int | None,
    history_limit_days: int | None,
) -> JsonDict:
    """POST /users/me/presence: record `status`, then (unless ping_only) everyone's presence."""
    if user.is_bot:
        raise ZulipError("This endpoint does not accept bot requests.")
    if status not in STATUSES:
        raise ZulipError(f"Invalid status: {status}")
    if user_settings.load(user.settings_json).presence_enabled:
        await do_update_presence(rt, user, active=status == "active")
    if ping_only:
        return {}
    return await get_presence_response(
        rt,
        user,
        slim=slim_presence or last_update_id is not None,
        last_update_id=last_update_id,
        history_limit_days=history_limit_days,
    )


async def do_update_presence(rt: Runtime, user: UserRow, *, active: bool) -> None:
    """Store a ping; send `presence` when the user appears or comes back online."""
    async with rt.db.write() as tx:
        await record_presence(rt, tx, user, active=active, now=rt.now())


async def record_presence(
    rt: Runtime, tx: Tx, user: UserRow, *, active: bool, now: int, force_event: bool = False
) -> None:
    """Zulip's do_update_user_presence inside `tx`."""
    row = await presence_store.get_presence(tx, user.id)
    if row is None:
        values = (now if active else None, now)
        await _store(tx, user.id, values)
        await _publish_presence(rt, tx, user, values)
        return
    since_active = (
        now - row.last_active_time if row.last_active_time is not None else lp.SECS_PER_DAY
    )
    since_connected = (
        now - row.last_connected_time if row.last_connected_time is not None else lp.SECS_PER_DAY
    )
    last_active, last_connected = row.last_active_time, row.last_connected_time
    if since_connected > lp.PRESENCE_UPDATE_MIN_FREQ_SECS:
        last_connected = now
    if active and since_active > lp.PRESENCE_UPDATE_MIN_FREQ_SECS:
        last_active = now
        last_connected = max(now, last_connected or now)
    if (last_active, last_connected) != (row.last_active_time, row.last_connected_time):
        await _store(tx, user.id, (last_active, last_connected))
    came_online = active and since_active > (
        lp.OFFLINE_THRESHOLD_SECS - lp.PRESENCE_PING_INTERVAL_SECS - 10
    )
    if came_online or force_event:
        await _publish_presence(rt, tx, user, (last_active, last_connected))


async def _store(tx: Tx, user_id: int, values: tuple[int | None, int | None]) -> None:
    await presence_store.upsert(
        tx,
        user_id,
        last_active_time=values[0],
        last_connected_time=values[1],
        last_update_id=await presence_store.next_update_id(tx),
    )


async def _publish_presence(
    rt: Runtime, tx: Tx, user: UserRow, values: tuple[int | None, int | None]
) -> None:
    realm = await _realm(tx)
    if realm_settings.load(realm.settings_json).presence_disabled:
        return
    row = PresenceRow(
        user_id=user.id, last_active_time=values[0], last_connected_time=values[1], last_update_id=0
    )
    status, timestamp = lp.legacy_status(*lp.timestamps(row, user.date_joined))
    website = LegacyPresence(client="website", status=status, timestamp=timestamp, pushable=False)
    # zulip-compat: both formats; each queue keeps the one its client declared
    # (`simplified_presence_events`, feature level 419), see events/rules_people.py.
    active, idle = lp.timestamps(row, user.date_joined)
    event = PresenceEvent(
        user_id=user.id,
        email=wire.api_email(user, realm.host),
        server_timestamp=rt.clock(),
        presence={"website": website},
        presences={str(user.id): ModernPresence(active_timestamp=active, idle_timestamp=idle)},
    )
    audience = await presence_audience(rt, tx, user)
    tx.after_commit(lambda: rt.broker.publish(event, audience))


async def apply_presence_enabled(rt: Runtime, tx: Tx, user: UserRow, enabled: bool) -> None:
    """Inside a settings change: show the user online again, or offline at once."""
    now = rt.now()
    if enabled:
        await record_presence(rt, tx, user, active=True, now=now, force_event=True)
        return
    row = await presence_store.get_presence(tx, user.id)
    if row is None:
        return
    # An invisible user looks like someone who went offline just now.
    offline = now - lp.OFFLINE_THRESHOLD_SECS - 1
    values = (
        min(row.last_active_time, offline) if row.last_active_time is not None else None,
        min(row.last_connected_time or offline, offline),
    )
    await _store(tx, user.id, values)
    await _publish_presence(rt, tx, user, values)


async def _realm(conn: Conn) -> RealmRow:
    realm = await store.realm.get_realm(conn)
    assert realm is not None
    return realm


async def presences_for(
    conn: Conn,
    visible: set[int] | None,
    *,
    slim: bool,
    last_update_id: int | None,
    history_limit_days: int | None,
    now: int,
) -> tuple[JsonDict, int]:
    """(presences in the requested format, presence_last_update_id), as Zulip computes them:
    only of the `visible` people (None: everyone)."""
    realm = await _realm(conn)
    if realm_settings.load(realm.settings_json).presence_disabled:
        return {}, -1
    days = lp.DEFAULT_HISTORY_LIMIT_DAYS if history_limit_days is None else history_limit_days
    rows: list[PresenceRow] = []
    if days != 0:
        since = None
        if last_update_id is None or last_update_id <= 0:
            since = now - days * lp.SECS_PER_DAY
        rows = await presence_store.list_presences(
            conn, connected_since=since, after_update_id=last_update_id
        )
    if rows:
        newest = max(row.last_update_id for row in rows)
    else:
        newest = last_update_id if last_update_id is not None else -1
    users = {
        u.id: u for u in await store.users.list_users(conn, user_ids=[r.user_id for r in rows])
    }
    result: JsonDict = {}
    for row in rows:
        if visible is not None and row.user_id not in visible:
            continue
        user = users[row.user_id]
        active, connected = lp.timestamps(row, user.date_joined)
        if slim:
            result[str(user.id)] = lp.modern_info(active, connected)
        else:
            result[wire.api_email(user, realm.host)] = lp.legacy_info(active, connected)
    return result, newest


async def get_presence_response(
    rt: Runtime,
    user: UserRow,
    *,
    slim: bool,
    last_update_id: int | None = None,
    history_limit_days: int | None = None,
) -> JsonDict:
    """`presences`, `server_timestamp` and `presence_last_update_id` for `user`."""
    async with rt.db.read() as conn:
        presences, newest = await presences_for(
            conn,
            await presence_visible_ids(rt, conn, user),
            slim=slim,
            last_update_id=last_update_id,
            history_limit_days=history_limit_days,
            now=rt.now(),
        )
    return {
        "presences": presences,
        "server_timestamp": rt.clock(),
        "presence_last_update_id": newest,
    }


async def get_user_presence(
    rt: Runtime, viewer: UserRow, target_ref: str, *, slim: bool
) -> JsonDict:
    """GET /users/{user_id_or_email}/presence: one active human user's presence."""
    async with rt.db.read() as conn:
        if is_ascii_digits(target_ref):
            target = await store.users.get_user_by_id(conn, int(target_ref))
        else:
            target = await find_user_by_email(conn, target_ref)
        if target is None or not target.is_active:
            raise ZulipError("No such user")
        if target.bot_type is not None:
            raise ZulipError("Presence is not supported for bot users.")
        visible = await presence_visible_ids(rt, conn, viewer)
        if visible is not None and target.id not in visible:
            raise ZulipError("Insufficient permission")
        row = await presence_store.get_presence(conn, target.id)
    if row is None:
        raise ZulipError(f"No presence data for {target_ref}")
    active, connected = lp.timestamps(row, target.date_joined)
    if slim:
        return lp.modern_info(active, connected)
    status, timestamp = lp.legacy_status(active, connected)
    # The aggregate says "offline" once the last report is too old; clients, not rows, time out.
    offline = rt.now() - timestamp > lp.OFFLINE_THRESHOLD_SECS
    return {
        "aggregated": {"status": "offline" if offline else status, "timestamp": timestamp},
        "website": {"status": status, "timestamp": timestamp},
    }


@state_fetcher("presence")
async def _presence_state(ctx: StateContext) -> None:
    presences, newest = await presences_for(
        ctx.conn,
        await presence_visible_ids(ctx.rt, ctx.conn, ctx.user),
        slim=ctx.caps.slim_presence
        or ctx.caps.simplified_presence_events
        or ctx.caps.presence_last_update_id is not None,
        last_update_id=ctx.caps.presence_last_update_id,
        history_limit_days=ctx.caps.presence_history_limit_days,
        now=ctx.rt.now(),
    )
    ctx.state["presences"] = presences
    ctx.state["presence_last_update_id"] = newest
    ctx.state["server_timestamp"] = ctx.rt.clock()
    ctx.state["server_presence_ping_interval_seconds"] = lp.PRESENCE_PING_INTERVAL_SECS
    ctx.state["server_presence_offline_threshold_seconds"] = lp.OFFLINE_THRESHOLD_SECS

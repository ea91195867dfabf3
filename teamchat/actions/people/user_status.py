"""User status (status text and emoji): setting one's own, administrators setting others',
reading it, and `user_status` events to everyone who can access the user.

The deprecated `away` flag is the inverse of the `presence_enabled` setting.
"""

from __future__ import annotations

from dataclasses import dataclass

from teamchat import store
from teamchat.actions.org.emoji_checks import (
    REACTION_TYPE_ALIASES,
    UNICODE,
    check_emoji,
    emoji_for_name,
)
from teamchat.actions.people import presence
from teamchat.actions.people.setting_events import publish_setting_change, store_settings
from teamchat.actions.people.user_access import (
    access_user_by_id,
    presence_audience,
    presence_visible_ids,
)
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import ZulipError
from teamchat.events.types_people import UserStatusEvent
from teamchat.lib import user_settings
from teamchat.lib.api_types import JsonDict
from teamchat.lib.text import check_text
from teamchat.records import UserRow, UserStatusRow
from teamchat.runtime import Runtime
from teamchat.store import user_status as status_store
from teamchat.store.db import Conn, Tx

MAX_STATUS_TEXT_CHARS = 60


@dataclass(frozen=True, kw_only=True)
class StatusRequest:
    """POST /users/me/status and /users/{user_id}/status parameters (None: not given)."""

    status_text: str | None = None
    emoji_name: str | None = None
    emoji_code: str | None = None
    reaction_type: str | None = None


@dataclass(frozen=True)
class NewStatus:
    """A validated change; None leaves that part as it is."""

    status_text: str | None
    emoji: tuple[str, str, str] | None  # (emoji_name, emoji_code, reaction_type)


def status_dict(row: UserStatusRow | None, presence_enabled: bool) -> JsonDict:
    """Zulip's format_user_status: only the parts that are set, and `away` when invisible."""
    result: JsonDict = {}
    if not presence_enabled:
        result["away"] = True
    if row is not None and row.status_text:
        result["status_text"] = row.status_text
    if row is not None and row.emoji_name:
        result.update(
            emoji_name=row.emoji_name, emoji_code=row.emoji_code, reaction_type=row.reaction_type
        )
    return result


def _presence_enabled(user: UserRow) -> bool:
    return user_settings.load(user.settings_json).presence_enabled


@state_fetcher("user_status")
async def _user_status_state(ctx: StateContext) -> None:
    users = {u.id: u for u in await store.users.list_users(ctx.conn, is_active=True)}
    accessible = await presence_visible_ids(ctx.rt, ctx.conn, ctx.user)
    statuses: JsonDict = {}
    for row in await status_store.list_statuses(ctx.conn):
        if accessible is not None and row.user_id not in accessible:
            continue  # zulip-compat: get_all_users_status_dict (presence limited for guests)
        entry = status_dict(row, _presence_enabled(users[row.user_id]))
        if entry:
            statuses[str(row.user_id)] = entry
    ctx.state["user_status"] = statuses


async def get_user_status(rt: Runtime, viewer: UserRow, user_id: int) -> JsonDict:
    """GET /users/{user_id}/status."""
    async with rt.db.read() as conn:
        target = await access_user_by_id(conn, viewer, user_id, for_admin=False)
        row = await status_store.get_status(conn, target.id)
    return status_dict(row, _presence_enabled(target)) if row is not None else {}


async def check_status_values(
    conn: Conn, request: StatusRequest, *, away: bool | None = None
) -> NewStatus:
    """Zulip's check_update_user_status: something must change; emoji must be valid."""
    status_text, emoji_name = request.status_text, request.emoji_name
    emoji_code, reaction_type = request.emoji_code, request.reaction_type
    if status_text is not None:
        status_text = check_text(
            "status_text", status_text.strip(), max_chars=MAX_STATUS_TEXT_CHARS
        )
    # Checked before "no new values" (Zulip checks after), so a lone emoji_code or
    # reaction_type gets the message that names the missing emoji_name.
    if emoji_name is None and (emoji_code or reaction_type):
        raise ZulipError(
            "Client must pass emoji_name if they pass either emoji_code or reaction_type."
        )
    if away is None and status_text is None and emoji_name is None:
        raise ZulipError("Client did not pass any new values.")
    if emoji_name is None:
        return NewStatus(status_text, None)
    if emoji_name == "":
        return NewStatus(status_text, ("", "", UNICODE))
    kind = REACTION_TYPE_ALIASES.get(reaction_type or "", reaction_type)
    if emoji_code is None or kind is None:
        code, found_kind = await emoji_for_name(conn, emoji_name)
        emoji_code = code if emoji_code is None else emoji_code
        kind = found_kind if kind is None else kind
    await check_emoji(conn, emoji_name, emoji_code, kind)
    return NewStatus(status_text, (emoji_name, emoji_code, kind))


async def check_update_own_status(
    rt: Runtime, user: UserRow, request: StatusRequest, *, away: bool | None
) -> None:
    """POST /users/me/status (people only)."""
    if user.is_bot:
        raise ZulipError("This endpoint does not accept bot requests.")
    async with rt.db.read() as conn:
        new = await check_status_values(conn, request, away=away)
    await do_update_user_status(rt, user, away=away, new=new)


async def check_update_status_for_user(
    rt: Runtime, actor: UserRow, user_id: int, request: StatusRequest
) -> None:
    """POST /users/{user_id}/status: administrators set another person's status."""
    async with rt.db.read() as conn:
        target = await access_user_by_id(conn, actor, user_id, for_admin=True)
        new = await check_status_values(conn, request)
    await do_update_user_status(rt, target, away=None, new=new)


async def do_update_user_status(
    rt: Runtime, user: UserRow, *, away: bool | None, new: NewStatus
) -> None:
    """Store the status (and `away` as presence_enabled); send user_status."""
    async with rt.db.write() as tx:
        fresh = await store.users.get_user_by_id(tx, user.id)
        assert fresh is not None
        if away is not None and _presence_enabled(fresh) == away:
            fresh = await store_settings(tx, fresh, {"presence_enabled": not away})
            await publish_setting_change(rt, tx, fresh, "presence_enabled", not away)
            await presence.apply_presence_enabled(rt, tx, fresh, not away)
        await apply_status(rt, tx, fresh, away=away, new=new)


async def apply_status(
    rt: Runtime, tx: Tx, user: UserRow, *, away: bool | None, new: NewStatus
) -> None:
    """Write the status row inside `tx` and queue user_status for those who can access."""
    await status_store.upsert(
        tx, user.id, timestamp=rt.now(), status_text=new.status_text, emoji=new.emoji
    )
    event = UserStatusEvent(user_id=user.id)
    if away is not None:
        event.away = away
    if new.status_text is not None:
        event.status_text = new.status_text
    if new.emoji is not None:
        event.emoji_name, event.emoji_code, event.reaction_type = new.emoji
    audience = await presence_audience(rt, tx, user)
    tx.after_commit(lambda: rt.broker.publish(event, audience))

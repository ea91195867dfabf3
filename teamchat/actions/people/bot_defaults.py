"""Bots' default channels: set when a bot is created or by PATCH /bots/{id}, shown in bot
objects (`default_sending_stream`, `default_events_register_stream`,
`default_all_public_streams`), and honoured when the bot sends a channel message without
`to` and registers a queue without a narrow or `all_public_streams`.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from teamchat.actions.channels.channel_access import access_stream_by_name
from teamchat.actions.people.user_admin import publish_bot_update
from teamchat.lib.api_types import JsonDict
from teamchat.records import BotDefaultsRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import bot_defaults as defaults_store
from teamchat.store.db import Conn, Tx


@dataclass(frozen=True, kw_only=True)
class DefaultsChange:
    """Requested defaults: None leaves one as it is; "" clears a channel."""

    sending_stream: str | None = None
    events_register_stream: str | None = None
    all_public_streams: bool | None = None


def defaults_fields(defaults: BotDefaultsRow) -> JsonDict:
    """The three fields of bot objects and responses."""
    return {
        "default_sending_stream": defaults.sending_stream,
        "default_events_register_stream": defaults.events_register_stream,
        "default_all_public_streams": defaults.all_public_streams,
    }


async def check_defaults(
    conn: Conn, actor: UserRow, current: BotDefaultsRow, change: DefaultsChange
) -> BotDefaultsRow:
    """The bot's defaults after `change`; each channel must be one `actor` can access."""
    new = current
    for kind in ("sending", "events_register"):
        name = getattr(change, f"{kind}_stream")
        if name is None:
            continue
        stream_id, stream_name = None, None
        if name != "":
            stream, _ = await access_stream_by_name(conn, actor, name)
            stream_id, stream_name = stream.id, stream.name
        new = msgspec.structs.replace(
            new, **{f"{kind}_stream_id": stream_id, f"{kind}_stream": stream_name}
        )
    if change.all_public_streams is not None:
        new = msgspec.structs.replace(new, all_public_streams=change.all_public_streams)
    return new


async def apply_defaults(
    rt: Runtime, tx: Tx, bot: UserRow, new: BotDefaultsRow, old: BotDefaultsRow, *, notify: bool
) -> None:
    """Store the defaults; with `notify`, send realm_bot/update with what changed."""
    await defaults_store.put(tx, new)
    before, after = defaults_fields(old), defaults_fields(new)
    changed = {key: value for key, value in after.items() if before[key] != value}
    if notify and changed:
        await publish_bot_update(rt, tx, bot, changed)


async def get_defaults(conn: Conn, bot_id: int) -> BotDefaultsRow:
    return await defaults_store.get(conn, bot_id)


async def sending_stream_id(rt: Runtime, user: UserRow) -> int | None:
    """Where a bot's channel message without `to` goes (None: nowhere; not a bot)."""
    if not user.is_bot:
        return None
    async with rt.db.read() as conn:
        return (await defaults_store.get(conn, user.id)).sending_stream_id


async def register_defaults(rt: Runtime, user: UserRow) -> BotDefaultsRow | None:
    """A bot's queue defaults (None for people)."""
    if not user.is_bot:
        return None
    async with rt.db.read() as conn:
        return await defaults_store.get(conn, user.id)

"""Queries on bots' default channels."""

from __future__ import annotations

from teamchat.records import BotDefaultsRow
from teamchat.store.db import Conn, Row, Tx

_SELECT = (
    "SELECT d.bot_id, d.sending_stream_id, d.events_register_stream_id, d.all_public_streams,"
    " s.name, r.name FROM bot_default d"
    " LEFT JOIN stream s ON s.id = d.sending_stream_id"
    " LEFT JOIN stream r ON r.id = d.events_register_stream_id"
)


def _row(row: Row) -> BotDefaultsRow:
    return BotDefaultsRow(
        bot_id=int(row[0]),
        sending_stream_id=None if row[1] is None else int(row[1]),
        events_register_stream_id=None if row[2] is None else int(row[2]),
        all_public_streams=bool(row[3]),
        sending_stream=None if row[4] is None else str(row[4]),
        events_register_stream=None if row[5] is None else str(row[5]),
    )


async def get(conn: Conn, bot_id: int) -> BotDefaultsRow:
    """A bot's defaults (all unset when it has none)."""
    row = await conn.fetchone(f"{_SELECT} WHERE d.bot_id = ?", (bot_id,))
    return _row(row) if row is not None else BotDefaultsRow(bot_id=bot_id)


async def all_bots(conn: Conn) -> dict[int, BotDefaultsRow]:
    """bot id -> defaults, for bots that have any."""
    return {r.bot_id: r for r in map(_row, await conn.fetchall(_SELECT))}


async def put(tx: Tx, defaults: BotDefaultsRow) -> None:
    """Store a bot's defaults (ids only; names are read back from the channels)."""
    await tx.execute(
        "INSERT INTO bot_default (bot_id, sending_stream_id, events_register_stream_id,"
        " all_public_streams) VALUES (?, ?, ?, ?) ON CONFLICT (bot_id) DO UPDATE SET"
        " sending_stream_id = excluded.sending_stream_id,"
        " events_register_stream_id = excluded.events_register_stream_id,"
        " all_public_streams = excluded.all_public_streams",
        (
            defaults.bot_id,
            defaults.sending_stream_id,
            defaults.events_register_stream_id,
            int(defaults.all_public_streams),
        ),
    )

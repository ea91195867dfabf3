"""Queries on bots' services (outgoing webhook, embedded) and configuration values."""

from __future__ import annotations

from teamchat.records import BotServiceRow
from teamchat.store.db import Conn, Tx

_COLUMNS = "id, bot_id, name, base_url, interface, token"


async def insert_service(
    tx: Tx, *, bot_id: int, name: str, base_url: str, interface: int, token: str
) -> int:
    """Add a bot's outgoing webhook or embedded service; return its id."""
    return await tx.execute(
        "INSERT INTO bot_service (bot_id, name, base_url, interface, token) VALUES (?, ?, ?, ?, ?)",
        (bot_id, name, base_url, interface, token),
    )


async def list_services(conn: Conn, bot_id: int | None = None) -> list[BotServiceRow]:
    """Services of one bot, or of every bot, in creation order."""
    if bot_id is None:
        rows = await conn.fetchall(f"SELECT {_COLUMNS} FROM bot_service ORDER BY id")
    else:
        rows = await conn.fetchall(
            f"SELECT {_COLUMNS} FROM bot_service WHERE bot_id = ? ORDER BY id", (bot_id,)
        )
    return [BotServiceRow(**dict(row)) for row in rows]


async def update_service(tx: Tx, service_id: int, *, base_url: str, interface: int) -> None:
    """Point a service at a new URL and interface."""
    await tx.execute(
        "UPDATE bot_service SET base_url = ?, interface = ? WHERE id = ?",
        (base_url, interface, service_id),
    )


async def set_config(tx: Tx, bot_id: int, config: dict[str, str]) -> None:
    """Set (add or replace) configuration keys of a bot."""
    await tx.executemany(
        "INSERT INTO bot_config (bot_id, key, value) VALUES (?, ?, ?)"
        " ON CONFLICT (bot_id, key) DO UPDATE SET value = excluded.value",
        [(bot_id, key, value) for key, value in config.items()],
    )


async def get_configs(conn: Conn) -> dict[int, dict[str, str]]:
    """Every bot's configuration, keyed by bot id."""
    rows = await conn.fetchall("SELECT bot_id, key, value FROM bot_config ORDER BY bot_id, key")
    configs: dict[int, dict[str, str]] = {}
    for row in rows:
        configs.setdefault(int(row[0]), {})[str(row[1])] = str(row[2])
    return configs

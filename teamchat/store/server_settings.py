"""Settings of this server kept in its database (`server_setting`): the pinned external URL."""

from __future__ import annotations

from teamchat.store.db import Conn, Tx

EXTERNAL_URL = "external_url"


async def get_external_url(conn: Conn) -> str | None:
    """The external URL pinned by `serve`, or None before the first start."""
    row = await conn.fetchone("SELECT value FROM server_setting WHERE name = ?", (EXTERNAL_URL,))
    return str(row[0]) if row else None


async def set_external_url(tx: Tx, url: str) -> None:
    """Pin `url` as the external URL (replacing any earlier one)."""
    await tx.execute(
        "INSERT INTO server_setting (name, value) VALUES (?, ?)"
        " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        (EXTERNAL_URL, url),
    )

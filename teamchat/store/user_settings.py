"""Queries on the realm's defaults for new users' personal settings (realm_user_default)."""

from __future__ import annotations

from teamchat.store.db import Conn, Tx


async def get_realm_defaults_json(conn: Conn, realm_id: int) -> str:
    """The stored defaults JSON ("{}" when never changed: Zulip's own defaults apply)."""
    row = await conn.fetchone(
        "SELECT settings_json FROM realm_user_default WHERE realm_id = ?", (realm_id,)
    )
    return str(row[0]) if row else "{}"


async def set_realm_defaults_json(tx: Tx, realm_id: int, settings_json: str) -> None:
    """Store the realm's defaults JSON (creating the row the first time)."""
    await tx.execute(
        "INSERT INTO realm_user_default (realm_id, settings_json) VALUES (?, ?)"
        " ON CONFLICT (realm_id) DO UPDATE SET settings_json = excluded.settings_json",
        (realm_id, settings_json),
    )

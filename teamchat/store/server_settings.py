"""Settings of this server kept in its database (`server_setting`): the pinned external URL
and whether an operator gave it (else it is the address `serve` last bound)."""

from __future__ import annotations

from teamchat.store.db import Conn, Tx

EXTERNAL_URL = "external_url"
EXTERNAL_URL_GIVEN = "external_url_given"


async def get_external_url(conn: Conn) -> str | None:
    """The external URL pinned by `serve`, or None before the first start."""
    return await _get(conn, EXTERNAL_URL)


async def external_url_was_given(conn: Conn) -> bool:
    """Whether the pinned URL came from --external-url / TEAMCHAT_EXTERNAL_URL."""
    return await _get(conn, EXTERNAL_URL_GIVEN) == "1"


async def set_external_url(tx: Tx, url: str, *, given: bool) -> None:
    """Pin `url` as the external URL (replacing any earlier one)."""
    await _set(tx, EXTERNAL_URL, url)
    await _set(tx, EXTERNAL_URL_GIVEN, "1" if given else "0")


async def _get(conn: Conn, name: str) -> str | None:
    row = await conn.fetchone("SELECT value FROM server_setting WHERE name = ?", (name,))
    return str(row[0]) if row else None


async def _set(tx: Tx, name: str, value: str) -> None:
    await tx.execute(
        "INSERT INTO server_setting (name, value) VALUES (?, ?)"
        " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        (name, value),
    )

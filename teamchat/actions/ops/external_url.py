"""The server's external URL: `serve` pins it in the database at first start (from
--external-url, else the first bind address) and replaces it only when given another one."""

from __future__ import annotations

from teamchat.runtime import Runtime
from teamchat.store import server_settings


async def do_pin_external_url(rt: Runtime) -> str | None:
    """Store `rt.external_url` as the server's URL; return the one it replaces (None when it
    was already pinned to it, or at first start)."""
    async with rt.db.write() as tx:
        pinned = await server_settings.get_external_url(tx)
        if pinned != rt.external_url:
            await server_settings.set_external_url(tx, rt.external_url)
    return pinned if pinned != rt.external_url else None

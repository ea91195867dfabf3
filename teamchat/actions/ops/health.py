"""GET /health for monitors and containers: the database answers and its schema is the
one this teamchat expects. No credentials; nothing about the organization is revealed."""

from __future__ import annotations

import asyncio
import sqlite3

from teamchat.errors import ServerNotReadyError
from teamchat.lib.api_types import JsonDict
from teamchat.runtime import Runtime
from teamchat.store import health as health_store

CHECK_TIMEOUT_SECS = 5.0


async def check_health(rt: Runtime) -> JsonDict:
    """The checks' results, or ServerNotReadyError naming the failed one."""
    try:
        async with asyncio.timeout(CHECK_TIMEOUT_SECS):
            async with rt.db.read() as conn:
                version = await health_store.schema_version(conn)
    except (sqlite3.Error, TimeoutError):
        raise ServerNotReadyError("Database is not reachable") from None
    if version != health_store.SCHEMA_VERSION:
        raise ServerNotReadyError(
            f"Database schema version {version}; expected {health_store.SCHEMA_VERSION}"
        )
    return {"database": "ok", "schema_version": version, "migrations_current": True}

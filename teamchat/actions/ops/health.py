"""GET /health for monitors and containers: the database answers, its schema is the one
this teamchat expects, and (after a write failed on a full disk) it takes writes again.
No credentials; nothing about the organization is revealed."""

from __future__ import annotations

import asyncio
import time

from teamchat.errors import ServerNotReadyError
from teamchat.lib.api_types import JsonDict
from teamchat.lib.disk_full import is_disk_full
from teamchat.runtime import Runtime
from teamchat.store import health as health_store
from teamchat.store.conn import DATABASE_ERRORS

CHECK_TIMEOUT_SECS = 5.0
_UNREACHABLE: tuple[type[Exception], ...] = (*DATABASE_ERRORS, TimeoutError)
_UNWRITABLE: tuple[type[Exception], ...] = (*DATABASE_ERRORS, OSError, TimeoutError)


async def check_health(rt: Runtime) -> JsonDict:
    """The checks' results, or ServerNotReadyError naming the failed one."""
    try:
        async with asyncio.timeout(CHECK_TIMEOUT_SECS):
            async with rt.db.read() as conn:
                version = await health_store.schema_version(conn)
    except _UNREACHABLE:
        raise ServerNotReadyError("Database is not reachable") from None
    if version != health_store.SCHEMA_VERSION:
        raise ServerNotReadyError(
            f"Database schema version {version}; expected {health_store.SCHEMA_VERSION}"
        )
    if rt.db.disk_full_since is not None:
        await _check_writable(rt)
    return {"database": "ok", "schema_version": version, "migrations_current": True}


async def _check_writable(rt: Runtime) -> None:
    """After a write failed for want of space: write once more, to see if space returned."""
    try:
        async with asyncio.timeout(CHECK_TIMEOUT_SECS):
            await rt.db.probe_space()
    except _UNWRITABLE as exc:
        if not is_disk_full(exc) and not isinstance(exc, TimeoutError):
            raise ServerNotReadyError("Database is not writable") from None
        since = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(rt.db.disk_full_since))
        raise ServerNotReadyError(f"The disk is full: writes fail since {since}") from None

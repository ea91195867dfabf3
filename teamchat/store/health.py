"""What GET /health asks of the database: that it answers, and its schema version."""

from __future__ import annotations

from teamchat.store.db import Conn
from teamchat.store.migrations import SCHEMA_VERSION


async def schema_version(conn: Conn) -> int:
    """The version of the last migration applied to the open database."""
    row = await conn.fetchone("PRAGMA user_version")
    return int(row[0]) if row is not None else 0


__all__ = ["SCHEMA_VERSION", "schema_version"]

"""Bot storage: GET/PUT/DELETE /bot_storage, a small key-value store per user for bots
(zulip_bots' StateHandler). Entries are private to the user; there are no events."""

from __future__ import annotations

from teamchat.errors import ZulipError
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import bot_storage as storage_store

# Zulip's USER_STATE_SIZE_LIMIT: characters of keys plus values, per user.
STORAGE_SIZE_LIMIT = 10_000_000
KEY_MISSING = "Key does not exist."


async def get_storage(rt: Runtime, user: UserRow, keys: list[str] | None) -> dict[str, str]:
    """`keys` of the user's storage (every entry when None or empty)."""
    async with rt.db.read() as conn:
        entries = await storage_store.get_entries(conn, user.id, keys or None)
    if keys and len(entries) < len(set(keys)):
        raise ZulipError(KEY_MISSING)
    return entries


async def do_update_storage(rt: Runtime, user: UserRow, entries: dict[str, str]) -> None:
    """Set entries, refusing a change that takes the user past the size limit."""
    async with rt.db.write() as tx:
        old = await storage_store.get_entries(tx, user.id, list(entries))
        growth = sum(len(k) + len(v) for k, v in entries.items())
        growth -= sum(len(k) + len(v) for k, v in old.items())
        new_size = await storage_store.total_size(tx, user.id) + growth
        if new_size > STORAGE_SIZE_LIMIT:
            over = new_size - STORAGE_SIZE_LIMIT
            raise ZulipError(
                f"Request exceeds storage limit by {over} characters."
                f" The limit is {STORAGE_SIZE_LIMIT} characters."
            )
        await storage_store.put_entries(tx, user.id, entries)


async def do_remove_storage(rt: Runtime, user: UserRow, keys: list[str] | None) -> None:
    """Delete `keys` (every entry when None or empty); all must exist."""
    async with rt.db.write() as tx:
        if keys:
            found = await storage_store.get_entries(tx, user.id, keys)
            if len(found) < len(set(keys)):
                raise ZulipError(KEY_MISSING)
        await storage_store.delete_entries(tx, user.id, keys or None)

"""Two server processes on one PostgreSQL database wake the same idle person at once (their
phone and their browser reach different processes): the rows they missed are written once,
and neither request fails on the other's rows."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from teamchat.actions.org import realm
from teamchat.config import Settings
from teamchat.runtime import Runtime
from teamchat.store import idle_users as idle_store
from tests.support.postgres import PostgresServer

pytestmark = pytest.mark.timeout(120)


async def _rows(rt: Runtime, user_id: int) -> list[int]:
    async with rt.db.read() as conn:
        rows = await conn.fetchall(
            "SELECT message_id FROM user_message WHERE user_id = ? ORDER BY message_id",
            (user_id,),
        )
    return [int(row[0]) for row in rows]


async def test_two_processes_waking_one_person_write_their_rows_once(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    url = postgres.new_database("wake")
    settings = Settings(db_path=tmp_path / "unused.db", db_url=url)
    first = await Runtime.open_offline(settings)
    second = await Runtime.open_offline(settings)
    try:
        _, owner = await realm.check_create_realm(
            first,
            name="Wake",
            owner_email="owner@example.com",
            owner_full_name="Owner",
            owner_password="pw-123456",
        )
        everything = await _rows(first, owner.id)
        async with first.db.write() as tx:
            # The owner went idle before the organization's first channel messages: their
            # plain rows of those are implied, not written.
            await idle_store.mark_idle(tx, [owner.id])
            await tx.execute("UPDATE idle_user SET complete_through = 0")
            await tx.execute(
                "DELETE FROM user_message WHERE user_id = ? AND flags = 0"
                " AND message_id IN (SELECT id FROM message WHERE stream_id IS NOT NULL)",
                (owner.id,),
            )
        implied = set(everything) - set(await _rows(first, owner.id))
        assert implied, "the organization's welcome messages are in its channels"

        # The first process writes them out and has not committed yet when the second,
        # which saw the same idle person, writes the same rows (it waits on the first's).
        async def second_wakes() -> int:
            async with second.db.write() as tx:
                return await idle_store.wake(tx, [owner.id])

        async with first.db.write() as tx:
            assert await idle_store.wake(tx, [owner.id]) == len(implied)
            late = asyncio.create_task(second_wakes())
            await asyncio.sleep(0.5)
            assert not late.done(), "the second waits for the first's rows"
        assert await late == 0
        assert await _rows(second, owner.id) == everything
        async with second.db.read() as conn:
            assert not await idle_store.is_idle(conn, owner.id)
    finally:
        await first.close()
        await second.close()

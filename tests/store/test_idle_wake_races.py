"""Idle people and several server processes on one PostgreSQL database.

A send leaves out the plain rows of idle subscribers (their rows are implied); a person
coming back writes out what they missed. When both happen at once on two processes,
whichever commits second must see the other, or the message is lost to that person. And
two processes waking the same person (their phone and their browser reach different
processes) write each missed row once, neither request failing on the other's rows."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import msgspec
import pytest

from teamchat.config import Settings
from teamchat.lib import channels as ch
from teamchat.runtime import Runtime
from teamchat.store import idle_users as idle_store
from teamchat.store import messages as message_store
from teamchat.store import streams as stream_store
from teamchat.store import subscriptions as sub_store
from teamchat.store.db import Tx
from tests.support.postgres import PostgresServer
from tests.support.store_org import create_org

pytestmark = pytest.mark.timeout(120)
HELD_SECS = 0.5  # how long the first transaction stays open while the second tries


@dataclass
class Org:
    first: Runtime  # two server processes' stores on one database
    second: Runtime
    owner_id: int
    general_id: int
    general_recipient: int


@pytest.fixture
async def org(postgres: PostgresServer, tmp_path: Path) -> AsyncIterator[Org]:
    settings = Settings(db_path=tmp_path / "unused.db", db_url=postgres.new_database("idle"))
    first = await Runtime.open_offline(settings)
    second = await Runtime.open_offline(settings)
    try:
        _, owner = await create_org(first, "Idle")
        async with first.db.read() as conn:
            row = await conn.fetchone("SELECT id, recipient_id FROM stream WHERE name = 'general'")
        assert row is not None
        yield Org(first, second, owner.id, int(row[0]), int(row[1]))
    finally:
        await first.close()
        await second.close()


async def _rows(rt: Runtime, user_id: int) -> list[int]:
    async with rt.db.read() as conn:
        rows = await conn.fetchall(
            "SELECT message_id FROM user_message WHERE user_id = ? ORDER BY message_id",
            (user_id,),
        )
    return [int(row[0]) for row in rows]


async def _insert(
    tx: Tx, org: Org, content: str, stream_id: int | None = None, recipient_id: int = 0
) -> int:
    """A send's first step: the message row (in #general unless told), which takes an id."""
    return await message_store.insert_message(
        tx, sender_id=org.owner_id, recipient_id=recipient_id or org.general_recipient,
        stream_id=stream_id or org.general_id, topic="away", content=content,
        rendered_content=f"<p>{content}</p>", client="test", date_sent=0,
        has_link=False, has_image=False, has_attachment=False, is_me_message=False,
    )  # fmt: skip


async def _send_plain(tx: Tx, org: Org) -> int:
    """What a send to #general does for a subscriber the message carries no flag for."""
    message_id = await _insert(tx, org, "while you were away")
    await message_store.insert_user_messages(
        tx, message_id, {org.owner_id: 0}, stream_id=org.general_id
    )
    return message_id


async def _make_idle(org: Org) -> None:
    async with org.first.db.write() as tx:
        await idle_store.mark_idle(tx, [org.owner_id])


async def _wake(rt: Runtime, user_id: int) -> int:
    async with rt.db.write() as tx:
        return await idle_store.wake(tx, [user_id])


async def test_a_person_waking_while_a_send_is_open_gets_its_row(org: Org) -> None:
    await _make_idle(org)
    async with org.first.db.write() as tx:
        message_id = await _send_plain(tx, org)
        late = asyncio.create_task(_wake(org.second, org.owner_id))
        await asyncio.sleep(HELD_SECS)
        assert not late.done(), "the catch-up waits for the send that left the row out"
    await late
    assert message_id in await _rows(org.second, org.owner_id)


async def test_a_send_while_a_person_is_waking_writes_their_row(org: Org) -> None:
    await _make_idle(org)

    async def send() -> int:
        async with org.first.db.write() as tx:
            return await _send_plain(tx, org)

    async with org.second.db.write() as tx:
        await idle_store.wake(tx, [org.owner_id])
        late = asyncio.create_task(send())
        await asyncio.sleep(HELD_SECS)
        assert not late.done(), "the send waits to see whether the person is still idle"
    message_id = await late
    assert message_id in await _rows(org.first, org.owner_id)
    async with org.first.db.read() as conn:
        assert not await idle_store.is_idle(conn, org.owner_id)


async def test_two_processes_waking_one_person_write_their_rows_once(org: Org) -> None:
    everything = await _rows(org.first, org.owner_id)
    async with org.first.db.write() as tx:
        # The owner went idle before the organization's first channel messages: their
        # plain rows of those are implied, not written.
        await idle_store.mark_idle(tx, [org.owner_id])
        await tx.execute("UPDATE idle_user SET complete_through = 0")
        await tx.execute(
            "DELETE FROM user_message WHERE user_id = ? AND flags = 0"
            " AND message_id IN (SELECT id FROM message WHERE stream_id IS NOT NULL)",
            (org.owner_id,),
        )
    implied = set(everything) - set(await _rows(org.first, org.owner_id))
    assert implied, "the organization's welcome messages are in its channels"

    # The first process writes them out and has not committed yet when the second, which
    # saw the same idle person, writes the same rows (it waits on the first's).
    async with org.first.db.write() as tx:
        assert await idle_store.wake(tx, [org.owner_id]) == len(implied)
        late = asyncio.create_task(_wake(org.second, org.owner_id))
        await asyncio.sleep(HELD_SECS)
        assert not late.done(), "the second waits for the first's rows"
    assert await late == 0
    assert await _rows(org.second, org.owner_id) == everything
    async with org.second.db.read() as conn:
        assert not await idle_store.is_idle(conn, org.owner_id)


async def _has(rt: Runtime, user_id: int, message_id: int) -> bool:
    """Whether the message is the user's: a row, or a row the idle rule implies."""
    if message_id in await _rows(rt, user_id):
        return True
    async with rt.db.read() as conn:
        return message_id in await idle_store.implied_for_user(conn, user_id, [message_id])


async def test_a_catch_up_between_a_sends_id_and_its_rows_waits_for_it(org: Org) -> None:
    """A catch-up on the other process that committed between the message taking its id and
    the send writing its rows set the watermark above the message, which then had no row
    and none implied."""
    await _make_idle(org)

    async def catch_up_after_a_send_of_its_own() -> None:
        async with org.second.db.write() as tx:
            await _send_plain(tx, org)  # a newer message, which the watermark moves past
            await idle_store.catch_up(tx, [org.owner_id])

    async with org.first.db.write() as tx:
        message_id = await _insert(tx, org, "in flight")
        late = asyncio.create_task(catch_up_after_a_send_of_its_own())
        await asyncio.sleep(HELD_SECS)
        assert not late.done(), "the catch-up waits for the send that holds the channel"
        await message_store.insert_user_messages(
            tx, message_id, {org.owner_id: 0}, stream_id=org.general_id
        )
    await late
    assert await _has(org.second, org.owner_id, message_id)


async def test_a_message_in_flight_to_a_channel_someone_joins_is_not_theirs(org: Org) -> None:
    """An idle person subscribed on the other process while a message to that channel is
    being sent: the message was sent before they joined, so it must not become theirs."""
    async with org.first.db.write() as tx:
        names = await stream_store.system_group_names(tx)
        settings = ch.default_group_settings({n: g for g, n in names.items()}, org.owner_id)
        joined_id = await stream_store.insert_stream(
            tx, name="joined later", description="", rendered_description="",
            invite_only=False, is_web_public=False, history_public_to_subscribers=True,
            message_retention_days=None, topics_policy="inherit", date_created=0,
            creator_id=org.owner_id, settings_json=msgspec.json.encode(settings).decode(),
        )  # fmt: skip
        joined = await stream_store.get_stream_by_id(tx, joined_id)
    assert joined is not None and joined.recipient_id is not None
    await _make_idle(org)

    async def subscribe() -> None:
        async with org.second.db.write() as tx:
            await sub_store.upsert_active(tx, joined_id, org.owner_id, "#76ce90")

    async with org.first.db.write() as tx:
        message_id = await _insert(tx, org, "before you joined", joined_id, joined.recipient_id)
        late = asyncio.create_task(subscribe())
        await asyncio.sleep(HELD_SECS)
        assert not late.done(), "subscribing waits for the send to the channel"
        await message_store.insert_user_messages(tx, message_id, {}, stream_id=joined_id)
    await late
    assert not await _has(org.second, org.owner_id, message_id)

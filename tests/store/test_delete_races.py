"""Two deletions of the same messages at once (a double click, or message retention running
in two server processes on one database): each message is deleted and announced once, and
the request that lost the race is told the message is gone."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from teamchat.actions.messages import message_delete, retention
from teamchat.config import Settings
from teamchat.errors import ZulipError
from teamchat.events.broker import RecordingBroker
from teamchat.records import MessageRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import messages as message_store
from tests.support.store_org import create_org

DAY = 86400


async def _org(tmp_path: Path) -> tuple[Runtime, UserRow, list[MessageRow]]:
    rt = await Runtime.open_offline(Settings(db_path=tmp_path / "races.db"))
    _, owner = await create_org(rt, "Races")
    messages = await _all_messages(rt)
    assert messages, "creating an organization posts its welcome messages"
    return rt, owner, messages


async def _all_messages(rt: Runtime) -> list[MessageRow]:
    async with rt.db.read() as conn:
        ids = [int(row[0]) for row in await conn.fetchall("SELECT id FROM message")]
        return await message_store.list_messages(conn, ids)


def _deleted_ids(rt: Runtime) -> list[int]:
    """The message ids of every bulk delete_message event published so far."""
    broker = rt.broker
    assert isinstance(broker, RecordingBroker)
    return [
        message_id
        for kind, payload, _ in broker.records
        if kind == "publish" and payload.get("type") == "delete_message"
        for message_id in payload.get("message_ids", [])
    ]


async def test_deleting_one_message_twice_at_once_announces_it_once(tmp_path: Path) -> None:
    rt, _, messages = await _org(tmp_path)
    try:
        target = messages[0]
        first, second = await asyncio.gather(
            message_delete.do_delete_messages(rt, [target]),
            message_delete.do_delete_messages(rt, [target]),
        )
        assert sorted([first, second]) == [[], [target.id]]
        assert _deleted_ids(rt) == [target.id]
        async with rt.db.read() as conn:
            assert await message_store.get_message(conn, target.id) is None
    finally:
        await rt.close()


async def test_the_request_that_lost_the_race_is_told_the_message_is_gone(
    tmp_path: Path,
) -> None:
    rt, owner, messages = await _org(tmp_path)
    try:
        target = messages[0]
        results = await asyncio.gather(
            message_delete.check_delete_message(rt, owner, target.id),
            message_delete.check_delete_message(rt, owner, target.id),
            return_exceptions=True,
        )
        errors = [r for r in results if isinstance(r, ZulipError)]
        assert [r for r in results if r is None] == [None] and len(errors) == 1, results
        assert errors[0].msg == "Invalid message(s)"
        assert _deleted_ids(rt) == [target.id]
    finally:
        await rt.close()


async def test_retention_running_twice_at_once_deletes_and_announces_each_message_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rt, _, messages = await _org(tmp_path)
    try:
        monkeypatch.setattr(rt, "now", lambda: messages[-1].date_sent + 400 * DAY)
        async with rt.db.write() as tx:
            await tx.execute(
                "UPDATE realm SET settings_json = json_set(settings_json,"
                " '$.message_retention_days', 30)"
            )
        counts = await asyncio.gather(retention.apply_retention(rt), retention.apply_retention(rt))
        assert sum(counts) == len(messages), counts
        assert sorted(_deleted_ids(rt)) == sorted(m.id for m in messages)
        assert await _all_messages(rt) == []
    finally:
        await rt.close()

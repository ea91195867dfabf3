"""Issue 9, defect 6: long per-user writes run as bounded transactions, one event per batch."""

from __future__ import annotations

from pathlib import Path

import pytest

from teamchat.actions.channels import streams
from teamchat.actions.messages import message_flags
from teamchat.actions.messages.message_send import SendRequest, check_send_message
from teamchat.actions.org import realm
from teamchat.actions.people import users
from teamchat.config import Settings
from teamchat.events.queue import ClientCapabilities
from teamchat.records import Role
from teamchat.runtime import Runtime
from teamchat.store import streams as stream_store


async def test_mark_stream_as_read_writes_in_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rt = await Runtime.open(Settings(db_path=tmp_path / "b.db"))
    try:
        await realm.check_create_realm(
            rt, name="B", owner_email="o@example.com", owner_full_name="O", owner_password="pw-1234"
        )
        sender = await users.do_create_user(
            rt, email="s@example.com", full_name="S", password_hash=None, role=Role.MEMBER
        )
        reader = await users.do_create_user(
            rt, email="r@example.com", full_name="R", password_hash=None, role=Role.MEMBER
        )
        await streams.check_add_subscriptions(
            rt,
            sender,
            [streams.ChannelRequest(name="busy")],
            streams.CreateOptions(),
            principals=[sender.id, reader.id],
            authorization_errors_fatal=True,
        )
        sent = []
        for number in range(5):
            request = SendRequest(
                recipient_type="stream", to="busy", topic="t", content=f"m{number}",
                client="test", realm_url="",
            )  # fmt: skip
            sent.append((await check_send_message(rt, sender, request)).id)
        queue = rt.broker.allocate(reader.id, ClientCapabilities.everything())
        monkeypatch.setattr(message_flags, "MARK_ALL_BATCH", 2)
        async with rt.db.read() as conn:
            stream = await stream_store.get_stream_by_name(conn, "busy")
        assert stream is not None
        stream_id = stream.id
        count = await message_flags.check_mark_stream_as_read(rt, reader, stream_id, None)
        assert count == 5
        batches = [e["messages"] for e in queue.contents() if e["type"] == "update_message_flags"]
        assert batches == [sent[0:2], sent[2:4], sent[4:5]]
    finally:
        await rt.close()

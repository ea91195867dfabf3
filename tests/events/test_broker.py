"""The broker in-process with a fake clock: delivery, acknowledgement, heartbeats, GC."""

from __future__ import annotations

import asyncio
from collections import deque

import msgspec
import pytest

from teamchat.errors import BadEventQueueIdError
from teamchat.events import rules_messages  # noqa: F401 (the message shaper)
from teamchat.events.broker import EventBroker
from teamchat.events.queue import ClientCapabilities


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make_broker(clock: FakeClock, heartbeat_secs: float = 0.05) -> EventBroker:
    return EventBroker(
        clock, heartbeat_secs=heartbeat_secs, heartbeat_jitter_secs=0, idle_timeout_secs=600
    )


async def test_publish_reaches_only_the_audience_and_ids_count_from_zero() -> None:
    broker = make_broker(FakeClock())
    mine = broker.allocate(1, ClientCapabilities())
    theirs = broker.allocate(2, ClientCapabilities())
    broker.publish({"type": "custom", "n": 1}, [1])
    broker.publish({"type": "custom", "n": 2}, [1])
    assert [(e["id"], e["n"]) for e in mine.contents()] == [(0, 1), (1, 2)]
    assert theirs.contents() == []


async def test_per_user_extras_are_merged_into_each_copy() -> None:
    broker = make_broker(FakeClock())
    a, b = broker.allocate(1, ClientCapabilities()), broker.allocate(2, ClientCapabilities())
    broker.publish({"type": "message", "flags": []}, {1: {"flags": ["read"]}, 2: {}})
    assert a.contents()[0]["flags"] == ["read"] and b.contents()[0]["flags"] == []


async def test_each_distinct_copy_is_encoded_once_and_shared() -> None:
    """A message to many: queues with the same capabilities and extras share one encoded
    copy; other extras, other capabilities and the sender's own queue get theirs."""
    broker = make_broker(FakeClock())
    plain = [broker.allocate(uid, ClientCapabilities()) for uid in (1, 2, 3)]
    markdown = broker.allocate(4, ClientCapabilities(apply_markdown=True))
    sender = broker.allocate(5, ClientCapabilities())
    message = {"id": 7, "type": "stream", "subject": "t", "content": "<p>hi</p>"}
    event = {
        "type": "message",
        "message": message,
        "_raw_content": "hi",
        "_local": {"queue_id": sender.queue_id, "local_id": "9"},
    }
    extras = {1: {"flags": []}, 2: {"flags": []}, 3: {"flags": ["mentioned"]}, 4: {"flags": []}}
    broker.publish(event, {**extras, 5: {"flags": []}})
    bodies = [q.events[0][1] for q in (*plain, markdown, sender)]
    assert bodies[0] is bodies[1]
    assert len({id(body) for body in bodies}) == 4
    one, two, three = (q.contents()[0] for q in plain)
    assert one == two == {**three, "flags": []}
    assert three["flags"] == ["mentioned"] and one["message"]["content"] == "hi"
    assert markdown.contents()[0]["message"]["content"] == "<p>hi</p>"
    mine = sender.contents()[0]
    assert mine["local_message_id"] == "9" and "local_message_id" not in one
    assert all(not key.startswith("_") for key in mine)


async def test_event_types_filter() -> None:
    broker = make_broker(FakeClock())
    queue = broker.allocate(1, ClientCapabilities(event_types=frozenset({"message"})))
    broker.publish({"type": "realm_user"}, [1])
    broker.publish({"type": "message"}, [1])
    assert [e["type"] for e in queue.contents()] == ["message"]


async def test_legacy_settings_events_skip_user_settings_object_clients() -> None:
    broker = make_broker(FakeClock())
    modern = broker.allocate(1, ClientCapabilities(user_settings_object=True))
    legacy = broker.allocate(1, ClientCapabilities())
    broker.publish({"type": "update_display_settings"}, [1])
    assert modern.contents() == [] and len(legacy.contents()) == 1


async def test_acknowledged_events_are_pruned() -> None:
    broker = make_broker(FakeClock())
    queue = broker.allocate(1, ClientCapabilities())
    for n in range(3):
        broker.publish({"type": "custom", "n": n}, [1])
    events = await broker.get_events(queue, 1, dont_block=True)
    assert [msgspec.json.decode(e)["id"] for e in events] == [2]


async def test_idle_wait_ends_with_a_heartbeat() -> None:
    broker = make_broker(FakeClock())
    queue = broker.allocate(1, ClientCapabilities())
    events = await broker.get_events(queue, -1, dont_block=False)
    assert [msgspec.json.decode(e) for e in events] == [{"type": "heartbeat", "id": 0}]


async def test_a_new_poll_finishes_the_old_one() -> None:
    broker = make_broker(FakeClock(), heartbeat_secs=30)
    queue = broker.allocate(1, ClientCapabilities())
    first = asyncio.create_task(broker.get_events(queue, -1, dont_block=False))
    await asyncio.sleep(0.01)
    second = asyncio.create_task(broker.get_events(queue, -1, dont_block=False))
    assert await asyncio.wait_for(first, 1) == []
    broker.publish({"type": "custom"}, [1])
    assert len(await asyncio.wait_for(second, 1)) == 1


async def test_gc_drops_idle_queues_but_not_waiting_ones() -> None:
    clock = FakeClock()
    broker = make_broker(clock, heartbeat_secs=30)
    idle = broker.allocate(1, ClientCapabilities())
    waiting = broker.allocate(2, ClientCapabilities())
    long_lived = broker.allocate(3, ClientCapabilities(), idle_timeout_secs=3600)
    poll = asyncio.create_task(broker.get_events(waiting, -1, dont_block=False))
    await asyncio.sleep(0.01)
    clock.now += 601
    assert broker.collect_garbage() == 1
    with pytest.raises(BadEventQueueIdError):
        broker.access(idle.queue_id, 1)
    assert broker.access(waiting.queue_id, 2) is waiting
    assert broker.access(long_lived.queue_id, 3) is long_lived
    broker.shutdown()
    assert await asyncio.wait_for(poll, 1) == []


async def test_access_checks_the_owner() -> None:
    broker = make_broker(FakeClock())
    queue = broker.allocate(1, ClientCapabilities())
    with pytest.raises(BadEventQueueIdError):
        broker.access(queue.queue_id, 2)


async def test_equal_capabilities_share_a_copy_and_a_narrow_gets_only_its_messages() -> None:
    broker = make_broker(FakeClock())
    wide = broker.allocate(1, ClientCapabilities(apply_markdown=True))
    same = broker.allocate(2, ClientCapabilities(apply_markdown=True))  # an equal object
    narrow = ClientCapabilities(apply_markdown=True, narrow=(("channel", "here", False),))
    narrowed = broker.allocate(1, narrow)
    for name in ("here", "elsewhere"):
        message = {"id": 1, "type": "stream", "subject": "t", "content": "<p>x</p>"}
        event = {"type": "message", "message": {**message, "display_recipient": name}}
        broker.publish({**event, "_raw_content": "x"}, {1: {"flags": []}, 2: {"flags": []}})
    assert wide.events[0][1] is same.events[0][1]
    assert [e["message"]["display_recipient"] for e in wide.contents()] == ["here", "elsewhere"]
    assert [e["message"]["display_recipient"] for e in narrowed.contents()] == ["here"]


class RecordingWaiter:
    """A waiter that is not a future (as the poll lane's DirectPoll)."""

    def __init__(self) -> None:
        self.results = 0

    def done(self) -> bool:
        return self.results > 0

    def set_result(self, result: None, /) -> None:
        self.results += 1


async def test_any_waiter_is_woken_once_and_detached() -> None:
    broker = make_broker(FakeClock(), heartbeat_secs=60)
    queue = broker.allocate(1, ClientCapabilities())
    assert broker.begin_poll(queue, None, dont_block=False) is None
    waiter = RecordingWaiter()
    broker.attach(queue, waiter)
    broker.publish({"type": "custom", "n": 1}, [1])
    broker.publish({"type": "custom", "n": 2}, [1])
    assert waiter.results == 1 and queue.waiter is waiter
    broker.detach(queue, waiter)
    assert queue.waiter is None
    assert [e["n"] for e in queue.contents()] == [1, 2]
    # A newer waiter finishes the one before it.
    first, second = RecordingWaiter(), RecordingWaiter()
    broker.attach(queue, first)
    broker.attach(queue, second)
    assert (first.results, second.results, queue.waiter) == (1, 0, second)


async def test_public_stream_watchers_follow_their_queues() -> None:
    broker = make_broker(FakeClock())
    watching = ClientCapabilities(all_public_streams=True)
    first, second = broker.allocate(1, watching), broker.allocate(1, watching)
    broker.allocate(2, ClientCapabilities())
    assert broker.public_stream_watchers() == {1}
    broker.delete(first)
    broker.delete(first)  # twice: still one queue left
    assert broker.public_stream_watchers() == {1}
    broker.delete(second)
    assert broker.public_stream_watchers() == set()


async def test_one_sweep_gives_each_waiting_poll_its_heartbeat() -> None:
    broker = make_broker(FakeClock(), heartbeat_secs=0.05)
    queues = [broker.allocate(1, ClientCapabilities()) for _ in range(3)]
    polls = [broker.get_events(q, None, dont_block=False) for q in queues[:2]]
    late = RecordingWaiter()
    broker.attach(queues[2], late)
    broker.detach(queues[2], late)  # answered before its time: no heartbeat
    answers = await asyncio.wait_for(asyncio.gather(*polls), 5)
    assert [[msgspec.json.decode(e)["type"] for e in a] for a in answers] == [["heartbeat"]] * 2
    await asyncio.sleep(0.1)
    assert queues[2].events == deque() and late.results == 0


async def test_a_narrow_with_a_list_operand_gets_its_own_copy() -> None:
    """Such capabilities are not hashable: the broker neither shares nor hashes them."""
    broker = make_broker(FakeClock())
    dm = ClientCapabilities(narrow=(("dm", [5, 6], False),))  # type: ignore[arg-type]
    queues = [broker.allocate(1, dm), broker.allocate(2, ClientCapabilities())]
    broker.publish({"type": "custom", "n": 1}, [1, 2])
    assert [q.contents() for q in queues] == [[{"id": 0, "type": "custom", "n": 1}]] * 2

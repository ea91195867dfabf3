"""Queue ids: unchanged for one process; naming their process when several serve together."""

from __future__ import annotations

import re

import pytest

from teamchat.errors import BadEventQueueIdError
from teamchat.events.broker import EventBroker
from teamchat.events.queue import ClientCapabilities
from teamchat.lib.queue_ids import check_process, process_of


def clock() -> float:
    return 1_700_000_000.5


def test_one_process_allocates_ids_as_before() -> None:
    queue = EventBroker(clock).allocate(1, ClientCapabilities())
    assert re.fullmatch(r"18bcfe569f4:[0-9a-f]{16}", queue.queue_id), queue.queue_id
    assert process_of(queue.queue_id) is None


def test_a_numbered_process_puts_its_number_in_front() -> None:
    broker = EventBroker(clock, process=12)
    queue = broker.allocate(1, ClientCapabilities())
    assert re.fullmatch(r"12-18bcfe569f4:[0-9a-f]{16}", queue.queue_id), queue.queue_id
    assert process_of(queue.queue_id) == 12
    assert broker.access(queue.queue_id, 1) is queue


def test_a_queue_of_another_process_is_a_bad_queue_id() -> None:
    broker = EventBroker(clock, process=1)
    mine = broker.allocate(1, ClientCapabilities())
    theirs = "2-" + mine.queue_id.partition("-")[2]
    with pytest.raises(BadEventQueueIdError) as raised:
        broker.access(theirs, 1)
    assert raised.value.data == {"queue_id": theirs}


@pytest.mark.parametrize("queue_id", ["0-1:2", "01-1:2", "1000-1:2", "-1:2", "a-1:2", "7", ""])
def test_ids_that_name_no_process(queue_id: str) -> None:
    assert process_of(queue_id) is None


@pytest.mark.parametrize("number", [0, -1, 1000])
def test_process_numbers_are_1_to_999(number: int) -> None:
    with pytest.raises(ValueError, match="1 to 999"):
        check_process(number)

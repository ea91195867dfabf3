"""Appliers for `scheduled_messages` and `reminders` events (loaded by apply_events)."""

from __future__ import annotations

from tests.support.apply_events import JsonDict, applier


def _key(item: JsonDict, id_key: str) -> tuple[int, int]:
    return (item["scheduled_delivery_timestamp"], item[id_key])


@applier("scheduled_messages")
def _scheduled_messages(state: JsonDict, event: JsonDict) -> None:
    if "scheduled_messages" not in state:
        return
    items: list[JsonDict] = state["scheduled_messages"]
    if event["op"] == "add":
        items.extend(event["scheduled_messages"])
    elif event["op"] == "update":
        changed = event["scheduled_message"]
        items[:] = [changed if i["scheduled_message_id"] == changed["scheduled_message_id"] else i
                    for i in items]  # fmt: skip
    else:
        items[:] = [i for i in items if i["scheduled_message_id"] != event["scheduled_message_id"]]
    items.sort(key=lambda i: _key(i, "scheduled_message_id"))


@applier("reminders")
def _reminders(state: JsonDict, event: JsonDict) -> None:
    if "reminders" not in state:
        return
    items: list[JsonDict] = state["reminders"]
    if event["op"] == "add":
        items.extend(event["reminders"])
    else:
        items[:] = [i for i in items if i["reminder_id"] != event["reminder_id"]]
    items.sort(key=lambda i: _key(i, "reminder_id"))

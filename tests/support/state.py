"""The client-side oracle: apply delivered events to a register state, as a client would.

`check_state_after` registers, runs an action, applies the events the queue received to
the old state and compares with a fresh register (STYLE.md §4, "state vs events").
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from tests.support.api import Api
from tests.test_events import check_event_schema

JsonDict = dict[str, Any]

ROLE_FLAGS = {
    "is_owner": lambda role: role == 100,
    "is_admin": lambda role: role <= 200,
    "is_guest": lambda role: role == 600,
}
COMPARED_KEYS = (
    "realm_users",
    "realm_non_active_users",
    "user_settings",
    "realm_user_settings_defaults",
    "custom_profile_fields",
    "user_status",
    "alert_words",
    "muted_users",
    "realm_bots",
    "full_name",
    "email",
    "delivery_email",
    "role",
    "is_admin",
    "is_owner",
    "is_guest",
    "timezone",
    "twenty_four_hour_time",
    "enter_sends",
    "presence_enabled",
)


def _find_person(state: JsonDict, user_id: int) -> JsonDict | None:
    for key in ("realm_users", "realm_non_active_users"):
        for person in state.get(key, []):
            if person["user_id"] == user_id:
                return person  # type: ignore[no-any-return]
    return None


def _apply_profile_value(target: JsonDict | None, value: JsonDict) -> None:
    if target is None or "profile_data" not in target:
        return
    data = target["profile_data"]
    if value["value"] is None:
        data.pop(str(value["id"]), None)
    else:
        data[str(value["id"])] = {k: v for k, v in value.items() if k != "id"}


def _set(objects: list[JsonDict], key: str, value: Any) -> None:
    for obj in objects:
        obj[key] = value
        if key == "role":
            for flag, test in ROLE_FLAGS.items():
                obj[flag] = test(value)


def _apply_person(state: JsonDict, person: JsonDict, me: int) -> None:
    user_id = person["user_id"]
    target = _find_person(state, user_id)
    for key, value in person.items():
        if key == "custom_profile_field":
            _apply_profile_value(target, value)
            continue
        if key == "is_active" and target is not None:
            _move(state, target, value)
        key = "email" if key == "new_email" else key
        # The time zone form's deprecated `email` is not a change; avatar extras are unused.
        skipped = ("user_id", "avatar_source", "avatar_url_medium")
        if key in skipped or (key == "email" and "timezone" in person):
            continue
        objects = [target] if target is not None else []
        if user_id == me and key in state:
            objects.append(state)
        _set(objects, key, value)


def _move(state: JsonDict, person: JsonDict, is_active: bool) -> None:
    for key in ("realm_users", "realm_non_active_users"):
        if person in state.get(key, []):
            state[key].remove(person)
    state["realm_non_active_users" if not is_active else "realm_users"].append(person)


def _apply_user_status(state: JsonDict, event: JsonDict) -> None:
    statuses = state["user_status"]
    entry = statuses.setdefault(str(event["user_id"]), {})
    if "away" in event:
        if event["away"]:
            entry["away"] = True
        else:
            entry.pop("away", None)
    if "status_text" in event:
        if event["status_text"]:
            entry["status_text"] = event["status_text"]
        else:
            entry.pop("status_text", None)
    if "emoji_name" in event:
        if event["emoji_name"]:
            for key in ("emoji_name", "emoji_code", "reaction_type"):
                entry[key] = event[key]
        else:
            for key in ("emoji_name", "emoji_code", "reaction_type"):
                entry.pop(key, None)
    if not entry:
        statuses.pop(str(event["user_id"]))


def _apply_bot(state: JsonDict, event: JsonDict) -> None:
    bots = state["realm_bots"]
    if event["op"] == "add":
        bots.append(event["bot"])
        return
    found = [bot for bot in bots if bot["user_id"] == event["bot"]["user_id"]]
    if event["op"] in ("remove", "delete"):
        for bot in found:
            bots.remove(bot)
    else:
        for bot in found:
            bot.update(event["bot"])


def _apply_fields(state: JsonDict, event: JsonDict) -> None:
    state["custom_profile_fields"] = event["fields"]
    ids = {str(field["id"]) for field in event["fields"]}
    for key in ("realm_users", "realm_non_active_users"):
        for person in state.get(key, []):
            for field_id in list(person.get("profile_data", {})):
                if field_id not in ids:
                    del person["profile_data"][field_id]


def _apply_presence(state: JsonDict, event: JsonDict) -> None:
    website = event["presence"]["website"]
    aggregated = {k: v for k, v in website.items() if k != "pushable"}
    state["presences"][event["email"]] = {"aggregated": aggregated, "website": website}


def apply_event(state: JsonDict, event: JsonDict, me: int) -> None:  # noqa: C901
    kind = event["type"]
    if kind == "realm_user" and event["op"] == "update":
        _apply_person(state, event["person"], me)
    elif kind == "realm_user" and event["op"] == "add":
        state["realm_users"].append(event["person"])
    elif kind == "user_settings":
        state["user_settings"][event["property"]] = event["value"]
    elif kind == "update_display_settings":
        state[event["setting_name"]] = event["setting"]
    elif kind == "update_global_notifications":
        state[event["notification_name"]] = event["setting"]
    elif kind == "realm_user_settings_defaults":
        state["realm_user_settings_defaults"][event["property"]] = event["value"]
    elif kind == "custom_profile_fields":
        _apply_fields(state, event)
    elif kind == "user_status":
        _apply_user_status(state, event)
    elif kind == "alert_words":
        state["alert_words"] = event["alert_words"]
    elif kind == "muted_users":
        state["muted_users"] = event["muted_users"]
    elif kind == "realm_bot":
        _apply_bot(state, event)
    elif kind == "presence" and "presences" in state:
        _apply_presence(state, event)


def _normalized(state: JsonDict, key: str) -> Any:
    value = state.get(key)
    if key in ("realm_users", "realm_non_active_users", "realm_bots") and value is not None:
        return sorted(value, key=lambda item: item["user_id"])
    return value


def check_state_after(
    observer: Api, action: Callable[[], object], **register: Any
) -> list[JsonDict]:
    """Run `action`; the observer's events applied to its old state equal a fresh state."""
    register.setdefault("client_gravatar", False)
    before = observer.ok("POST", "/register", **register)
    action()
    body = observer.ok(
        "GET", "/events", queue_id=before["queue_id"], last_event_id=-1, dont_block=True
    )
    events: list[JsonDict] = body["events"]
    for event in events:
        check_event_schema(event)
    hybrid = copy.deepcopy(before)
    for event in events:
        apply_event(hybrid, event, before["user_id"])
    after = observer.ok("POST", "/register", **register)
    for key in COMPARED_KEYS:
        assert _normalized(hybrid, key) == _normalized(after, key), key
    if "presences" in after and not register.get("slim_presence"):
        assert hybrid["presences"] == after["presences"], "presences"
    return events

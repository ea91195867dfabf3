"""The client-side oracle: apply events to a register state as a Zulip client would.

`assert_state_matches(api, before, events)` checks STYLE's rule: the state a client holds
after applying the events an action sent equals a fresh register state. Each event type
has one applier in APPLIERS; areas add theirs.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

JsonDict = dict[str, Any]
Applier = Callable[[JsonDict, JsonDict], None]
APPLIERS: dict[str, Applier] = {}

# Keys that legitimately differ between two registrations.
VOLATILE_KEYS = {
    "queue_id",
    "last_event_id",
    "server_timestamp",
    "presences",
    "presence_last_update_id",
}


def applier(event_type: str) -> Callable[[Applier], Applier]:
    def register(fn: Applier) -> Applier:
        APPLIERS[event_type] = fn
        return fn

    return register


def apply_events(
    state: JsonDict, events: list[JsonDict], *, user_list_incomplete: bool = False
) -> JsonDict:
    """A copy of `state` with `events` applied in order (heartbeats ignored).

    `user_list_incomplete`: the client declared that capability, so a realm_user/remove
    (a guest losing access) drops the person instead of showing "Unknown user".
    """
    result = copy.deepcopy(state)
    for event in events:
        if event["type"] == "heartbeat":
            continue
        if event["type"] == "realm_user" and event["op"] == "remove":
            _lose_access(result, event["person"]["user_id"], user_list_incomplete)
            continue
        if event["type"] not in APPLIERS:
            raise AssertionError(f"no applier for event type {event['type']!r}")
        APPLIERS[event["type"]](result, event)
    return result


def differing_keys(left: JsonDict, right: JsonDict) -> list[str]:
    keys = (set(left) | set(right)) - VOLATILE_KEYS
    return sorted(key for key in keys if left.get(key) != right.get(key))


def assert_state_matches(hybrid: JsonDict, fresh: JsonDict, events: list[JsonDict]) -> None:
    diff = differing_keys(hybrid, fresh)
    assert not diff, (
        f"state after events differs from a fresh register in {diff}:\n"
        + "\n".join(
            f"  {k}: applied={hybrid.get(k)!r:.300}\n  {k}:   fresh={fresh.get(k)!r:.300}"
            for k in diff[:5]
        )
        + f"\nevents: {events!r:.2000}"
    )


def _person_index(state: JsonDict, user_id: int) -> tuple[str, int] | None:
    for key in ("realm_users", "realm_non_active_users"):
        for index, person in enumerate(state.get(key, [])):
            if person["user_id"] == user_id:
                return key, index
    return None


def unknown_user(user_id: int, realm_host: str) -> JsonDict:
    """Zulip's "Unknown user" placeholder (get_data_for_inaccessible_user), written out."""
    return {
        "user_id": user_id,
        "email": f"user{user_id}@{realm_host}",
        "delivery_email": None,
        "full_name": "Unknown user",
        "avatar_url": "/static/images/unknown-user-avatar.png",
        "avatar_version": 1,
        "date_joined": "1970-01-01T00:00:00+00:00",
        "is_active": True,
        "is_admin": False,
        "is_owner": False,
        "is_guest": False,
        "is_bot": False,
        "is_imported_stub": False,
        "role": 400,
        "timezone": "",
        "profile_data": {},
    }


def _lose_access(state: JsonDict, user_id: int, user_list_incomplete: bool) -> None:
    """As Zulip's apply_event for realm_user/remove: drop the person or show the placeholder."""
    if "realm_users" not in state:
        return
    found = _person_index(state, user_id)
    assert found is not None, f"remove for unknown user {user_id}"
    key, index = found
    del state[key][index]
    if not user_list_incomplete:
        placeholder = unknown_user(user_id, state["realm_bot_domain"])
        del placeholder["is_active"]  # the register lists carry no is_active
        state["realm_users"].append(placeholder)
        state["realm_users"].sort(key=lambda p: p["user_id"])


@applier("realm_user")
def _realm_user(state: JsonDict, event: JsonDict) -> None:
    person = event["person"]
    if "realm_users" not in state:
        return
    if event["op"] == "add":
        # Zulip keys users by id: a guest gaining access replaces the placeholder.
        found = _person_index(state, person["user_id"])
        if found is not None:
            del state[found[0]][found[1]]
        key = "realm_users" if person.get("is_active", True) else "realm_non_active_users"
        # As Zulip's register lists: the list says whether the person is active.
        state.setdefault(key, []).append({k: v for k, v in person.items() if k != "is_active"})
        state[key].sort(key=lambda p: p["user_id"])
        return
    found = _person_index(state, person["user_id"])
    assert found is not None, f"event for unknown user {person['user_id']}"
    key, index = found
    if event["op"] == "remove":
        del state[key][index]
        return
    _update_person(state[key][index], person)
    if person.get("is_active") is False:
        # SPEC (States): clients drop a deactivated user from all groups.
        for group in state.get("realm_user_groups", []):
            if person["user_id"] in group["members"]:
                group["members"].remove(person["user_id"])
    if "is_active" in person:
        moved = state[key].pop(index)
        moved.pop("is_active", None)
        other = "realm_users" if person["is_active"] else "realm_non_active_users"
        state.setdefault(other, []).append(moved)
        state[other].sort(key=lambda p: p["user_id"])
    if state.get("user_id") == person["user_id"]:
        _update_own_fields(state, person)


def _update_person(target: JsonDict, person: JsonDict) -> None:
    """As Zulip's apply_event: only the fields a user object already has change."""
    for field, value in person.items():
        if field == "custom_profile_field":
            data = target.setdefault("profile_data", {})
            if value["value"] is None:
                data.pop(str(value["id"]), None)
            else:
                data[str(value["id"])] = {k: v for k, v in value.items() if k != "id"}
        elif field == "new_email":
            target["email"] = value
        elif field in target and field != "user_id":
            target[field] = value
    if "role" in person:
        role = person["role"]
        target.update(is_owner=role == 100, is_admin=role <= 200, is_guest=role == 600)


def _update_own_fields(state: JsonDict, person: JsonDict) -> None:
    for field in (
        "full_name",
        "role",
        "delivery_email",
        "avatar_url",
        "avatar_source",
        "avatar_url_medium",
        "timezone",
    ):
        if field in person and field in state:
            state[field] = person[field]
    if "new_email" in person and "email" in state:
        state["email"] = person["new_email"]
    if "role" in person:
        role = person["role"]
        state.update(
            is_owner=role == 100,
            is_admin=role <= 200,
            is_moderator=role <= 300,
            is_guest=role == 600,
        )


@applier("realm_bot")
def _realm_bot(state: JsonDict, event: JsonDict) -> None:
    bots = state.get("realm_bots")
    if bots is None:
        return
    bot = event["bot"]
    if event["op"] == "add":
        bots.append(bot)
    elif event["op"] in ("remove", "delete"):
        state["realm_bots"] = [b for b in bots if b["user_id"] != bot["user_id"]]
    else:
        for existing in bots:
            if existing["user_id"] == bot["user_id"]:
                existing.update(bot)


@applier("attachment")
def _attachment(state: JsonDict, event: JsonDict) -> None:
    """Attachments are not part of the register state."""


# Areas' appliers register themselves on import.
from tests.support import apply_org_events  # noqa: E402, F401


def _load_area_appliers() -> None:
    """Import every `apply_events_<area>.py` beside this module (they register appliers)."""
    import importlib
    import pkgutil

    from tests import support

    for info in pkgutil.iter_modules(support.__path__):
        if info.name.startswith("apply_events_"):
            importlib.import_module(f"tests.support.{info.name}")


_load_area_appliers()

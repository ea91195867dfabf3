"""Helpers for organization-administration tests: users with roles, event queues, and a
client-side oracle applying realm/user_group/channel_folder/linkifier/playground events.
"""

from __future__ import annotations

import copy
from typing import Any

from tests.conftest import TEST_PASSWORD, unique_email
from tests.support.api import Api, assert_success
from tests.support.server import ServerProcess, cli

JsonDict = dict[str, Any]
EVERYTHING = {
    "notification_settings_null": True,
    "bulk_message_deletion": True,
    "user_avatar_url_field_optional": True,
    "user_settings_object": True,
    "include_deactivated_groups": True,
    "linkifier_url_template": True,
}


def user_with_role(server: ServerProcess, role: str, *, bot: bool = False) -> Api:
    """A new user (or generic bot) with `role`, created through the CLI, logged in."""
    email = unique_email(role)
    args = ["admin", "create-user", "--email", email, "--full-name", f"A {role}", "--role", role]
    if bot:
        result = cli(server.db, *args, "--bot")
        key = result.stdout.split("api_key=")[1].split()[0]
    else:
        cli(server.db, *args, "--password", TEST_PASSWORD)
        with Api(server.url) as anonymous:
            body = assert_success(
                anonymous.post("/fetch_api_key", username=email, password=TEST_PASSWORD)
            )
        key = body["api_key"]
    api = Api(server.url, email, key)
    api.user_id = assert_success(api.get("/users/me"))["user_id"]  # type: ignore[attr-defined]
    return api


class Watcher:
    """A registered queue plus the state it started from; `check()` compares with a fresh one."""

    def __init__(self, api: Api, event_types: list[str], **capabilities: bool) -> None:
        self.api = api
        self.event_types = event_types
        self.caps = {**EVERYTHING, **capabilities}
        self.state = self._register()
        self.queue_id = self.state["queue_id"]
        self.last_event_id = -1

    def _register(self) -> JsonDict:
        return self.api.ok(
            "POST", "/register", event_types=self.event_types, client_capabilities=self.caps
        )

    def events(self) -> list[JsonDict]:
        body = self.api.ok(
            "GET",
            "/events",
            queue_id=self.queue_id,
            last_event_id=self.last_event_id,
            dont_block=True,
        )
        events = [e for e in body["events"] if e["type"] != "heartbeat"]
        if body["events"]:
            self.last_event_id = body["events"][-1]["id"]
        return events

    def check(self, events: list[JsonDict], keys: list[str]) -> None:
        """Events applied to the starting state equal a fresh state, for `keys`."""
        for event in events:
            apply_event(self.state, event)
        fresh = self._register()
        compared = [key for key in keys if key in fresh]
        assert compared, keys
        for key in compared:
            assert normalize(self.state[key]) == normalize(fresh[key]), key


def normalize(value: Any) -> Any:
    if isinstance(value, list) and value and isinstance(value[0], dict) and "id" in value[0]:
        return sorted((normalize(v) for v in value), key=lambda v: v["id"])
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    return value


def apply_event(state: JsonDict, event: JsonDict) -> None:
    """The client side of the events this area sends (Zulip's apply_event)."""
    kind, op = event["type"], event.get("op")
    if kind == "realm" and op == "update":
        state[f"realm_{event['property']}"] = event["value"]
        if event["property"] == "message_edit_history_visibility_policy":
            state["realm_allow_edit_history"] = event["value"] != "none"
    elif kind == "realm" and op == "update_dict":
        for key, value in event["data"].items():
            state[f"realm_{key}"] = value
    elif kind == "user_group":
        _apply_user_group(state["realm_user_groups"], event)
    elif kind == "channel_folder":
        _apply_channel_folder(state["channel_folders"], event)
    elif kind in ("realm_linkifiers", "realm_playgrounds", "default_streams"):
        key = kind if kind != "default_streams" else "realm_default_streams"
        state[key] = copy.deepcopy(event[kind if kind != "default_streams" else "default_streams"])


def _apply_user_group(groups: list[JsonDict], event: JsonDict) -> None:
    op = event["op"]
    if op == "add":
        groups.append(copy.deepcopy(event["group"]))
        return
    group = next(g for g in groups if g["id"] == event["group_id"])
    if op == "update":
        group.update(event["data"])
    elif op == "add_members":
        group["members"] = sorted(set(group["members"]) | set(event["user_ids"]))
    elif op == "remove_members":
        group["members"] = sorted(set(group["members"]) - set(event["user_ids"]))
    elif op == "add_subgroups":
        subgroups = set(group["direct_subgroup_ids"]) | set(event["direct_subgroup_ids"])
        group["direct_subgroup_ids"] = sorted(subgroups)
    elif op == "remove_subgroups":
        subgroups = set(group["direct_subgroup_ids"]) - set(event["direct_subgroup_ids"])
        group["direct_subgroup_ids"] = sorted(subgroups)
    elif op == "remove":
        groups.remove(group)


def _apply_channel_folder(folders: list[JsonDict], event: JsonDict) -> None:
    op = event["op"]
    if op == "add":
        folders.append(copy.deepcopy(event["channel_folder"]))
    elif op == "update":
        folder = next(f for f in folders if f["id"] == event["channel_folder_id"])
        folder.update(event["data"])
    elif op == "reorder":
        for position, folder_id in enumerate(event["order"]):
            next(f for f in folders if f["id"] == folder_id)["order"] = position

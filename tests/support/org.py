"""Helpers for organization-administration tests: users with roles, event queues, and a
client-side oracle applying realm/user_group/channel_folder/linkifier/playground events.
"""

from __future__ import annotations

from typing import Any

from tests.conftest import TEST_PASSWORD, unique_email
from tests.support.api import Api, assert_success
from tests.support.apply_events import APPLIERS
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
    """The client side of an event (the shared oracle's applier for its type)."""
    APPLIERS[event["type"]](state, event)

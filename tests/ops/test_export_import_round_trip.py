"""teamchat -> `teamchat export` -> `teamchat import` into an empty database loses nothing:
every person's register state and message history are the same on both servers."""

from __future__ import annotations

import configparser
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.ops.test_export import build_organization
from tests.support.api import Api
from tests.support.server import ServerProcess, cli

# Keys that name this server process or this request, not the organization.
_VOLATILE = {"queue_id", "last_event_id", "server_timestamp", "server_generation"}
_CAPABILITIES = json.dumps(
    {
        "notification_settings_null": True,
        "bulk_message_deletion": True,
        "user_avatar_url_field_optional": False,
        "stream_typing_notifications": True,
        "user_settings_object": True,
        "linkifier_url_template": True,
        "user_list_incomplete": False,
        "include_deactivated_groups": True,
        "archived_channels": True,
        "empty_topic_name": True,
    }
)


def _host(owner: Api) -> str:
    return str(owner.ok("GET", "/users/me")["email"]).split("@", 1)[1]


def _key(db: Path, email: str) -> str:
    parser = configparser.ConfigParser()
    parser.read_string(cli(db, "admin", "zuliprc", email).stdout)
    return parser["api"]["key"]


def _snapshot(server: ServerProcess, email: str) -> dict[str, Any]:
    """The person's register state and whole message history, with this server's URL and
    per-process values taken out."""
    with Api(server.url, email, _key(server.db, email)) as api:
        state = api.ok("POST", "/register", client_capabilities=_CAPABILITIES,
                       apply_markdown=True, client_gravatar=False)  # fmt: skip
        messages = api.ok("GET", "/messages", anchor="oldest", num_before=0, num_after=5000,
                          apply_markdown=True)["messages"]  # fmt: skip
        raw = api.ok("GET", "/messages", anchor="oldest", num_before=0, num_after=5000,
                     apply_markdown=False)["messages"]  # fmt: skip
    for name in _VOLATILE:
        state.pop(name, None)
    for bot in state.get("realm_bots", []):
        bot.pop("api_key")  # exports carry no API keys: imported bots get new ones
    text = json.dumps({"state": state, "messages": messages, "raw": raw}, sort_keys=True)
    return dict(json.loads(text.replace(server.url, "SERVER")))


def _differences(before: Any, after: Any, path: str = "") -> list[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in sorted(set(before) | set(after)):
            found += _differences(before.get(key), after.get(key), f"{path}.{key}")
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        found = []
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            found += _differences(b, a, f"{path}[{i}]")
        return found
    return [] if before == after else [f"{path}: {before!r} != {after!r}"]


def test_export_then_import_loses_nothing(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    source = start_server()
    with Api(source.url, source.owner_email, source.owner_key) as owner:
        made = build_organization(source, owner)
        owner.ok("PATCH", f"/messages/{made['public']}", content="edited, see the notes")
        owner.ok("POST", "/realm/playgrounds", name="Py", pygments_language="Python",
                 url_template="https://py.example/?c={code}")  # fmt: skip
        owner.ok("POST", "/navigation_views", fragment="narrow/channel/1-general", is_pinned=True,
                 name="Stars")  # fmt: skip
        folder = owner.ok("POST", "/channel_folders/create", name="Ops", description="ops")
        channel = owner.ok("GET", "/get_stream_id", stream="general")["stream_id"]
        owner.ok("PATCH", f"/streams/{channel}", folder_id=folder["channel_folder_id"])
        owner.ok("POST", "/users/me/status", status_text="on a boat", emoji_name="boat")
        owner.ok("POST", "/users/me/presence", status="active", new_user_input=True)
        owner.ok("POST", "/scheduled_messages", type="stream", to=channel, topic="later",
                 content="in the future", scheduled_delivery_timestamp=4_000_000_000)  # fmt: skip
        owner.ok("POST", "/scheduled_messages", type="direct", to=[made["hamlet"]],
                 content="psst later", scheduled_delivery_timestamp=4_000_000_001)  # fmt: skip
        bot = owner.ok("POST", "/users/me/bots", full_name="Storage bot", short_name="storage",
                       bot_type=1, default_sending_stream="general")  # fmt: skip
        with Api(source.url, f"storage-bot@{_host(owner)}", bot["api_key"]) as storage_bot:
            storage_bot.ok("PUT", "/bot_storage", storage=json.dumps({"counter": "3"}))
        owner.ok("POST", "/users/me/bots", full_name="Hook bot", short_name="hook", bot_type=3,
                 payload_url="http://127.0.0.1:9/hook", interface_type=2)  # fmt: skip
    cli(source.db, "export", str(tmp_path / "export.tar.gz"))
    emails = [source.owner_email, "hamlet@example.com", "cordelia@example.com"]
    before = {email: _snapshot(source, email) for email in emails}
    owner_state = before[source.owner_email]["state"]  # what the comparison covers
    assert len(owner_state["scheduled_messages"]) == 2 and owner_state["channel_folders"]
    assert owner_state["user_status"] and owner_state["presences"]
    assert owner_state["navigation_views"] and owner_state["saved_snippets"]
    assert {b["full_name"] for b in owner_state["realm_bots"]} == {"Storage bot", "Hook bot"}

    target = ServerProcess(tmp_path / "target")
    target.directory.mkdir()
    assert "Imported" in cli(target.db, "import", str(tmp_path / "export.tar.gz")).stdout
    target.start()
    try:
        after = {email: _snapshot(target, email) for email in emails}
        bot_email = f"storage-bot@{emails[0].split('@')[1]}"
        with Api(target.url, bot_email, _key(target.db, bot_email)) as storage_bot:
            assert storage_bot.ok("GET", "/bot_storage")["storage"] == {"counter": "3"}
    finally:
        target.stop()
    for email in emails:
        assert before[email]["messages"], email
        problems = _differences(before[email], after[email])
        assert not problems, f"{email}:\n" + "\n".join(problems[:40])

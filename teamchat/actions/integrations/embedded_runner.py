"""The process an embedded bot runs in: `python -m teamchat.actions.integrations.embedded_runner`.

It reads one JSON request on stdin (the bot's name, configuration, identity, the message and
its storage), runs the `zulip_bots` handler on it with a bot handler that only records what
the bot asks for (replies, messages, reactions, storage changes), and writes those as JSON
on stdout. The server applies them as the bot. A bot that crashes, hangs or misbehaves takes
only this process with it; the server kills it after a time limit.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any


class _Storage:
    """zulip_bots' storage (values marshalled as JSON), over the bot's stored entries."""

    def __init__(self, entries: dict[str, str]) -> None:
        self.entries = dict(entries)
        self.changed: dict[str, str] = {}

    def put(self, key: str, value: Any) -> None:
        self.entries[key] = self.changed[key] = json.dumps(value)

    def get(self, key: str) -> Any:
        if key not in self.entries:
            raise KeyError("key not found: " + key)
        return json.loads(self.entries[key])

    def contains(self, key: str) -> bool:
        return key in self.entries


class RecordingHandler:
    """A zulip_bots AbstractBotHandler that records the bot's requests."""

    def __init__(self, request: dict[str, Any]) -> None:
        self.user_id: int = request["user"]["user_id"]
        self.email: str = request["user"]["email"]
        self.full_name: str = request["user"]["full_name"]
        self.config: dict[str, str] = request["config"]
        self._storage = _Storage(request["storage"])
        self.actions: list[dict[str, Any]] = []

    @property
    def storage(self) -> _Storage:
        return self._storage

    def identity(self) -> Any:
        from zulip_bots.lib import BotIdentity

        return BotIdentity(self.full_name, self.email)

    def react(self, message: dict[str, Any], emoji_name: str) -> dict[str, Any]:
        self.actions.append({"kind": "react", "message_id": message["id"], "emoji": emoji_name})
        return {"result": "success", "msg": ""}

    def send_message(self, message: dict[str, Any]) -> dict[str, Any]:
        self.actions.append({"kind": "send", "message": message})
        return {"result": "success", "msg": "", "id": 0}

    def send_reply(
        self, message: dict[str, Any], response: str, widget_content: str | None = None
    ) -> dict[str, Any]:
        self.actions.append({"kind": "reply", "content": response, "widget": widget_content})
        return {"result": "success", "msg": "", "id": 0}

    def update_message(self, message: dict[str, Any]) -> dict[str, Any]:
        self.actions.append({"kind": "update", "message": message})
        return {"result": "success", "msg": ""}

    def get_config_info(self, bot_name: str, optional: bool = False) -> dict[str, str]:
        return self.config

    def quit(self, message: str = "") -> None:
        raise SystemExit(message)


def run(request: dict[str, Any]) -> dict[str, Any]:
    from zulip_bots.lib import extract_query_without_mention, prepare_message_handler

    handler = RecordingHandler(request)
    name = request["bot"]
    module = importlib.import_module(f"zulip_bots.bots.{name}.{name}")
    bot = prepare_message_handler(name, handler, module)
    message = request["message"]
    message["full_content"] = message["content"]
    if request["trigger"] == "mention":
        message["content"] = extract_query_without_mention(message=message, client=handler)
        if message["content"] is None:
            return {"actions": [], "storage": {}}
    bot.handle_message(message=message, bot_handler=handler)
    return {"actions": handler.actions, "storage": handler.storage.changed}


def main() -> None:
    request = json.load(sys.stdin)
    json.dump(run(request), sys.stdout)


if __name__ == "__main__":
    main()

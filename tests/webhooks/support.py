"""Incoming-webhook tests: a bot, a channel, a fixture posted to the integration URL, and the
message read back through GET /messages."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import httpx

from tests.support.api import Api, JsonDict, assert_success
from tests.support.channels import subscribe, unique_name

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "webhooks"


def fixture_names(integration: str) -> list[str]:
    return sorted(path.stem for path in (FIXTURES / integration).glob("*.json"))


def load_fixture(integration: str, name: str) -> JsonDict:
    data: JsonDict = json.loads((FIXTURES / integration / f"{name}.json").read_text())
    return data


def create_bot(owner: Api, bot_type: int = 2) -> JsonDict:
    short = f"hook{uuid.uuid4().hex[:8]}"
    return owner.ok(
        "POST", "/users/me/bots", full_name=f"Hook {short}", short_name=short, bot_type=bot_type
    )


def post_webhook(
    base_url: str,
    integration: str,
    body: bytes | str | JsonDict,
    headers: dict[str, str] | None = None,
    **params: Any,
) -> httpx.Response:
    raw = json.dumps(body).encode() if isinstance(body, dict) else body
    content = raw.encode() if isinstance(raw, str) else raw
    query = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
    sent = {"Content-Type": "application/json", **(headers or {})}
    return httpx.post(
        f"{base_url}/api/v1/external/{integration}",
        params=query,
        content=content,
        headers=sent,
        timeout=30,
    )


def latest(api: Api, narrow: list[JsonDict], count: int) -> list[JsonDict]:
    """The last `count` messages of the narrow, oldest first (raw Markdown)."""
    body = api.ok(
        "GET",
        "/messages",
        anchor="newest",
        num_before=count,
        num_after=0,
        narrow=narrow,
        apply_markdown=False,
    )
    messages: list[JsonDict] = body["messages"]
    return messages[-count:]


def newest(api: Api, narrow: list[JsonDict]) -> JsonDict | None:
    messages = latest(api, narrow, 1)
    return messages[-1] if messages else None


def in_channel(name: str) -> list[JsonDict]:
    return [{"operator": "channel", "operand": name}]


class Hook:
    """A bot owned by `owner`, posting to a fresh channel the owner reads."""

    def __init__(self, base_url: str, owner: Api, integration: str) -> None:
        self.base_url = base_url
        self.owner = owner
        self.integration = integration
        self.bot = create_bot(owner)
        self.channel = unique_name("hooks")
        subscribe(owner, self.channel)

    def post(
        self, body: bytes | str | JsonDict, headers: dict[str, str] | None = None, **params: Any
    ) -> httpx.Response:
        params.setdefault("api_key", self.bot["api_key"])
        return post_webhook(self.base_url, self.integration, body, headers, **params)

    def check_fixture(self, name: str) -> None:
        """Post the fixture to the channel; compare the message (or its absence) with it."""
        fixture = load_fixture(self.integration, name)
        before = newest(self.owner, in_channel(self.channel))
        params = {"stream": self.channel, **fixture.get("params", {})}
        response = self.post(fixture["payload"], fixture.get("headers"), **params)
        after = newest(self.owner, in_channel(self.channel))
        if "unsupported" in fixture:
            assert response.status_code == 200, response.text
            body = response.json()
            assert body["code"] == "UNSUPPORTED_WEBHOOK_EVENT_TYPE" and body["result"] == "success"
            assert body["event_type"] == fixture["unsupported"], body
            assert after == before
            return
        assert_success(response)
        expected = fixture["expected"]
        if expected is None:
            assert after == before, after
            return
        assert after is not None and after != before
        wanted = expected if isinstance(expected, list) else [expected]
        sent = latest(self.owner, in_channel(self.channel), len(wanted))
        assert before is None or before["id"] < sent[0]["id"], "fewer messages than expected"
        assert all(message["sender_id"] == self.bot["user_id"] for message in sent)
        got = [{"topic": m["subject"], "content": m["content"]} for m in sent]
        assert got == wanted

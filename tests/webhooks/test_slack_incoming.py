"""Slack-compatible incoming webhooks: each fixture gives Zulip's topic and text, or no message
where Zulip sends none."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from tests.support.server import ServerProcess
from tests.webhooks.support import Hook, fixture_names, in_channel, newest


@pytest.fixture(scope="module")
def hook(server: ServerProcess, make_user) -> Iterator[Hook]:  # type: ignore[no-untyped-def]
    yield Hook(server.url, make_user(full_name="slack_incoming owner"), "slack_incoming")


@pytest.mark.parametrize("name", fixture_names("slack_incoming"))
def test_slack_incoming_fixture(hook: Hook, name: str) -> None:
    hook.check_fixture(name)


def test_slack_form_payload_is_read_like_json(hook: Hook) -> None:
    payload = json.dumps({"channel": "#forms", "text": "Posted *as a form*"})
    response = httpx.post(
        f"{hook.base_url}/api/v1/external/slack_incoming",
        params={"api_key": hook.bot["api_key"], "stream": hook.channel},
        data={"payload": payload},
    )
    assert response.json() == {"result": "success", "msg": "", "ok": True}
    message = newest(hook.owner, in_channel(hook.channel))
    assert message is not None
    assert (message["subject"], message["content"]) == ("forms", "Posted **as a form**")


def test_slack_errors_come_in_slacks_shape(hook: Hook) -> None:
    response = httpx.post(
        f"{hook.base_url}/api/v1/external/slack_incoming",
        params={"api_key": hook.bot["api_key"], "stream": hook.channel},
        data={"text": "no payload field"},
    )
    assert response.status_code == 400
    assert response.json() == {"ok": False, "error": "Missing 'payload' argument"}
    malformed = hook.post(b"{oops", stream=hook.channel)
    assert (malformed.status_code, malformed.json()) == (
        400,
        {"ok": False, "error": "Malformed JSON"},
    )

"""GitLab: every fixture (written from GitLab's documented payloads) gives Zulip's topic and
text, or no message where Zulip sends none."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.server import ServerProcess
from tests.webhooks.support import Hook, fixture_names


@pytest.fixture(scope="module")
def hook(server: ServerProcess, make_user) -> Iterator[Hook]:  # type: ignore[no-untyped-def]
    yield Hook(server.url, make_user(full_name="GitLab Owner"), "gitlab")


@pytest.mark.parametrize("name", fixture_names("gitlab"))
def test_gitlab_fixture(hook: Hook, name: str) -> None:
    hook.check_fixture(name)


def test_gitlab_without_the_event_header_is_refused(hook: Hook) -> None:
    response = hook.post({"object_kind": "push"}, stream=hook.channel)
    assert response.status_code == 400
    assert response.json()["msg"] == "Missing the HTTP event header 'X-GitLab-Event'"

"""GitHub: every fixture (written from GitHub's documented payloads) gives Zulip's topic and
text, or no message where Zulip sends none."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.api import Api
from tests.support.server import ServerProcess
from tests.webhooks.support import Hook, fixture_names


@pytest.fixture(scope="module")
def hook(server: ServerProcess, make_user) -> Iterator[Hook]:  # type: ignore[no-untyped-def]
    yield Hook(server.url, make_user(full_name="GitHub Owner"), "github")


@pytest.mark.parametrize("name", fixture_names("github"))
def test_github_fixture(hook: Hook, name: str) -> None:
    hook.check_fixture(name)


def test_github_push_without_the_event_header_is_refused(hook: Hook, owner: Api) -> None:
    response = hook.post({"ref": "refs/heads/main"}, stream=hook.channel)
    assert response.status_code == 400
    assert response.json()["msg"] == "Missing the HTTP event header 'X-GitHub-Event'"

"""Gogs: each fixture gives Zulip's topic and text, or no message
where Zulip sends none."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.server import ServerProcess
from tests.webhooks.support import Hook, fixture_names


@pytest.fixture(scope="module")
def hook(server: ServerProcess, make_user) -> Iterator[Hook]:  # type: ignore[no-untyped-def]
    yield Hook(server.url, make_user(full_name="gogs owner"), "gogs")


@pytest.mark.parametrize("name", fixture_names("gogs"))
def test_gogs_fixture(hook: Hook, name: str) -> None:
    hook.check_fixture(name)

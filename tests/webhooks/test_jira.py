"""Jira: each fixture gives Zulip's topic and text, or no message
where Zulip sends none."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest

from tests.support.api import assert_success
from tests.support.channels import subscribe
from tests.support.server import ServerProcess
from tests.webhooks.support import Hook, fixture_names, in_channel, load_fixture, newest


@pytest.fixture(scope="module")
def hook(server: ServerProcess, make_user) -> Iterator[Hook]:  # type: ignore[no-untyped-def]
    yield Hook(server.url, make_user(full_name="jira owner"), "jira")


@pytest.mark.parametrize("name", fixture_names("jira"))
def test_jira_fixture(hook: Hook, name: str) -> None:
    hook.check_fixture(name)


def test_jira_names_an_assignee_by_their_name_here(hook: Hook, make_user) -> None:  # type: ignore[no-untyped-def]
    person = make_user(full_name="Zed Here")
    fixture = load_fixture("jira", "issue_updated__changelog")
    payload = fixture["payload"]
    payload["issue"]["fields"]["assignee"]["emailAddress"] = person.email
    assert_success(hook.post(payload, stream=hook.channel))
    message = newest(hook.owner, in_channel(hook.channel))
    assert message is not None and "(assigned to **Zed Here**)" in message["content"]


def test_jira_channel_and_topic_are_decoded_once_more(hook: Hook) -> None:
    name = f"jira issues {hook.channel}"
    subscribe(hook.owner, name)
    fixture = load_fixture("jira", "issue_deleted")
    # Jira double-escapes the URL: the server sees "jira%20issues..." after the usual decoding.
    assert_success(hook.post(fixture["payload"], stream=quote(name), topic=quote("jira / bugs")))
    message = newest(hook.owner, in_channel(name))
    assert message is not None and message["subject"] == "jira / bugs"

"""Issue 9, defect 4: linkifier and playground templates only make http(s) or relative links."""

from __future__ import annotations

import itertools

import pytest

from teamchat.render.linkifiers import UNSAFE_URL_TEMPLATE
from tests.support import rawdb
from tests.support.api import Api, assert_error
from tests.support.server import ServerProcess

_numbers = itertools.count(1)
UNSAFE = [
    "javascript:alert({id})",
    "JavaScript:alert({id})",
    "data:text/html,{id}",
    "vbscript:{id}",
    "{+id}",
    "mailto:{id}@example.com",
]


def _channel_with_topic(owner: Api, topic: str) -> dict[str, object]:
    name = f"templates {next(_numbers)}"
    owner.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": name}])
    sent = owner.ok("POST", "/messages", type="stream", to=name, topic=topic, content=topic)
    message: dict[str, object] = owner.ok("GET", f"/messages/{sent['id']}")["message"]
    return message


@pytest.mark.parametrize("url_template", UNSAFE)
def test_linkifier_with_unsafe_template_is_refused(owner: Api, url_template: str) -> None:
    pattern = f"BAD{next(_numbers)}-(?P<id>[0-9]+)"
    body = assert_error(
        owner.post("/realm/filters", pattern=pattern, url_template=url_template),
        UNSAFE_URL_TEMPLATE,
    )
    assert list(body["errors"]) == ["url_template"]
    assert all(
        item["pattern"] != pattern for item in owner.ok("GET", "/realm/linkifiers")["linkifiers"]
    )


@pytest.mark.parametrize("url_template", [t.replace("id}", "code}") for t in UNSAFE])
def test_playground_with_unsafe_template_is_refused(owner: Api, url_template: str) -> None:
    name = f"Bad playground {next(_numbers)}"
    assert_error(
        owner.post(
            "/realm/playgrounds", name=name, pygments_language="Python", url_template=url_template
        ),
        UNSAFE_URL_TEMPLATE,
    )


def test_relative_templates_are_accepted_and_linked(owner: Api) -> None:
    prefix = f"REL{next(_numbers)}"
    owner.ok(
        "POST",
        "/realm/filters",
        pattern=f"{prefix}-(?P<id>[0-9]+)",
        url_template="/#narrow/id/{id}",
    )
    message = _channel_with_topic(owner, f"see {prefix}-12")
    assert message["topic_links"] == [{"text": f"{prefix}-12", "url": "/#narrow/id/12"}]
    assert 'href="/#narrow/id/12"' in str(message["content"])


def test_stored_unsafe_linkifier_never_becomes_a_link(server: ServerProcess, owner: Api) -> None:
    """A linkifier saved before this check (or written behind our back) is never applied."""
    prefix = f"OLD{next(_numbers)}"
    rawdb.query(
        server.db,
        'INSERT INTO linkifier (pattern, url_template, "order") VALUES (?, ?, 1000)',
        (f"{prefix}-(?P<id>[0-9]+)", "javascript:alert({id})"),
    )
    message = _channel_with_topic(owner, f"see {prefix}-5")
    assert message["topic_links"] == []
    assert "javascript:" not in str(message["content"])

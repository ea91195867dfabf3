"""Linkifiers and code playgrounds end to end: validation, order, events, register state."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from tests.support.api import Api, assert_error
from tests.support.org import Watcher
from tests.test_events import check_event_schema

_numbers = itertools.count(1)
EVENTS = ["realm_linkifiers", "realm_filters", "realm_playgrounds"]


def add_linkifier(api: Api, prefix: str | None = None) -> int:
    prefix = prefix or f"T{next(_numbers)}X"
    body = api.ok(
        "POST",
        "/realm/filters",
        pattern=f"{prefix}-(?P<id>[0-9]+)",
        url_template=f"https://tracker.example.com/{prefix}/{{id}}",
    )
    return int(body["id"])


def test_admin_adds_linkifiers_and_members_get_events(
    owner: Api, make_user: Callable[..., Api]
) -> None:
    member = make_user()
    watcher = Watcher(member, EVENTS)
    legacy = Watcher(member, EVENTS, linkifier_url_template=False)
    assert legacy.state["realm_linkifiers"] == [] and legacy.state["realm_filters"] == []
    linkifier_id = add_linkifier(owner, "ABC")
    events = watcher.events()
    assert [e["type"] for e in events] == ["realm_linkifiers", "realm_filters"]
    for event in events:
        check_event_schema(event)
    assert {
        "id": linkifier_id,
        "pattern": "ABC-(?P<id>[0-9]+)",
        "url_template": "https://tracker.example.com/ABC/{id}",
    } in events[0]["realm_linkifiers"]
    assert events[1]["realm_filters"] == []
    watcher.check(events, ["realm_linkifiers", "realm_filters"])
    # zulip-compat: without linkifier_url_template a client gets only the empty legacy list.
    assert [e["type"] for e in legacy.events()] == ["realm_filters"]
    listed = member.ok("GET", "/realm/linkifiers")["linkifiers"]
    assert linkifier_id in [item["id"] for item in listed]


def test_update_reorder_and_delete(owner: Api, make_user: Callable[..., Api]) -> None:
    first, second = add_linkifier(owner), add_linkifier(owner)
    watcher = Watcher(make_user(), EVENTS)
    owner.ok(
        "PATCH",
        f"/realm/filters/{first}",
        pattern="NEW-(?P<num>[0-9]+)",
        url_template="https://new.example.com/{num}",
    )
    ids = [item["id"] for item in owner.ok("GET", "/realm/linkifiers")["linkifiers"]]
    reordered = [second, *[i for i in ids if i != second]]
    owner.ok("PATCH", "/realm/linkifiers", ordered_linkifier_ids=reordered)
    assert [i["id"] for i in owner.ok("GET", "/realm/linkifiers")["linkifiers"]] == reordered
    owner.ok("DELETE", f"/realm/filters/{first}")
    events = watcher.events()
    assert [e["type"] for e in events] == ["realm_linkifiers", "realm_filters"] * 3
    watcher.check(events, ["realm_linkifiers"])
    assert_error(owner.delete(f"/realm/filters/{first}"), "Linkifier not found.")
    assert_error(
        owner.patch(f"/realm/filters/{first}", pattern="a(?P<x>b)", url_template="https://x/{x}"),
        "Linkifier not found.",
    )
    remaining = [i for i in reordered if i != first]
    assert_error(
        owner.patch("/realm/linkifiers", ordered_linkifier_ids=remaining[:-1]),
        "The ordered list must enumerate all existing linkifiers exactly once",
    )
    assert_error(
        owner.patch("/realm/linkifiers", ordered_linkifier_ids=[*remaining, remaining[0]]),
        "The ordered list must not contain duplicated linkifiers",
    )


@pytest.mark.parametrize(
    ("pattern", "url_template", "message", "field"),
    [
        ("(?P<id>[0-9]+", "https://x/{id}", None, "__all__"),
        ("a(?<id>[0-9]+)(?=x)", "https://x/{id}", None, "__all__"),
        ("ab(?P<id>[0-9]+)", "https://x/{id", "Invalid URL template.", "url_template"),
        (
            "cd(?P<id>[0-9]+)",
            "https://x/{other}",
            "Group 'other' in URL template is not present in linkifier pattern.",
            "__all__",
        ),
        (
            "ef(?P<id>[0-9]+)(?P<two>x)",
            "https://x/{id}",
            "Group 'two' in linkifier pattern is not present in URL template.",
            "__all__",
        ),
        ("", "https://x/", "This field cannot be blank.", "pattern"),
    ],
)
def test_bad_linkifiers_are_rejected(
    owner: Api, pattern: str, url_template: str, message: str | None, field: str
) -> None:
    body = assert_error(
        owner.post("/realm/filters", pattern=pattern, url_template=url_template), message
    )
    assert list(body["errors"]) == [field]
    if message is None:
        assert body["msg"].startswith("Bad regular expression")


def test_duplicate_patterns_and_permissions(owner: Api, make_user: Callable[..., Api]) -> None:
    add_linkifier(owner, "DUP")
    assert_error(
        owner.post(
            "/realm/filters",
            pattern="DUP-(?P<id>[0-9]+)",
            url_template="https://other.example.com/{id}",
        ),
        "Linkifier with this Realm and Pattern already exists.",
    )
    member = make_user()
    for response in (
        member.post("/realm/filters", pattern="m(?P<id>x)", url_template="https://x/{id}"),
        member.patch("/realm/linkifiers", ordered_linkifier_ids="[]"),
        member.post(
            "/realm/playgrounds",
            name="P",
            pygments_language="Python",
            url_template="https://p/{code}",
        ),
        member.delete("/realm/playgrounds/1"),
        member.delete("/realm/filters/1"),
        member.patch("/realm/filters/1", pattern="a(?P<x>b)", url_template="https://x/{x}"),
    ):
        assert_error(response, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL")


def test_playgrounds(owner: Api, make_user: Callable[..., Api]) -> None:
    watcher = Watcher(make_user(), [*EVENTS, "realm"])
    body = owner.ok(
        "POST",
        "/realm/playgrounds",
        name="  Python playground ",
        pygments_language="Python3",
        url_template="https://python.example.com?code={code}",
        bogus=1,
    )
    assert body["ignored_parameters_unsupported"] == ["bogus"]
    playground_id = body["id"]
    owner.ok("PATCH", "/realm", default_code_block_language="Python3")
    owner.ok("DELETE", f"/realm/playgrounds/{playground_id}")
    events = watcher.events()
    assert [e["type"] for e in events] == [
        "realm_playgrounds",
        "realm",
        "realm",
        "realm_playgrounds",
    ]
    assert events[0]["realm_playgrounds"][-1] == {
        "id": playground_id,
        "name": "Python playground",
        "pygments_language": "Python3",
        "url_template": "https://python.example.com?code={code}",
    }
    assert events[2]["property"] == "default_code_block_language" and events[2]["value"] == ""
    for event in events:
        check_event_schema(event)
    watcher.check(events, ["realm_playgrounds", "realm_default_code_block_language"])
    assert_error(owner.delete(f"/realm/playgrounds/{playground_id}"), "Invalid playground")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {"url_template": "https://p.example.com/"},
            'Missing the required variable "code" in the URL template',
        ),
        (
            {"url_template": "https://p.example.com/{code}{?x}"},
            '"code" should be the only variable present in the URL template',
        ),
        ({"url_template": "https://p.example.com/{code"}, "Invalid URL template."),
        ({"pygments_language": "a$b"}, "Invalid characters in pygments language"),
        ({"pygments_language": "p" * 41}, "pygments_language is too long (limit: 40 characters)"),
        ({"name": " "}, "This field cannot be blank."),
    ],
)
def test_bad_playgrounds(owner: Api, params: dict[str, str], message: str) -> None:
    values = {
        "name": f"Playground {next(_numbers)}",
        "pygments_language": "Rust",
        "url_template": "https://p.example.com/{code}",
        **params,
    }
    assert_error(owner.post("/realm/playgrounds", **values), message)


def test_duplicate_playground(owner: Api) -> None:
    values = {"name": "Twice", "pygments_language": "Go", "url_template": "https://go/{code}"}
    owner.ok("POST", "/realm/playgrounds", **values)
    assert_error(
        owner.post("/realm/playgrounds", **values),
        "Realm playground with this Realm, Pygments language and Name already exists.",
    )


def test_linkifiers_apply_to_messages_and_topic_links(owner: Api) -> None:
    add_linkifier(owner, "LNK")
    name = f"linkified {next(_numbers)}"
    owner.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": name}])
    sent = owner.ok(
        "POST", "/messages", type="stream", to=name, topic="About LNK-42", content="See LNK-7 now"
    )
    message = owner.ok("GET", f"/messages/{sent['id']}")["message"]
    assert 'href="https://tracker.example.com/LNK/7"' in message["content"]
    assert message["topic_links"] == [
        {"text": "LNK-42", "url": "https://tracker.example.com/LNK/42"}
    ]

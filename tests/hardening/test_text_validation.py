"""Issue 9, defect 9: one text check for everything stored and shown; bounds Zulip keeps."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import httpx
import pytest

from tests.support.api import Api, assert_error
from tests.support.org import user_with_role
from tests.support.server import ServerProcess

_numbers = itertools.count(1)
NUL = "bad\x00text"


def _n() -> int:
    return next(_numbers)


def test_nul_and_controls_are_refused_in_every_stored_text(
    server: ServerProcess, owner: Api
) -> None:
    channel = f"validated {_n()}"
    owner.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": channel}])
    stream_id = owner.ok("GET", "/get_stream_id", stream=channel)["stream_id"]
    group_id = owner.ok(
        "POST", "/user_groups/create", name=f"grp{_n()}", description="", members=[]
    )["group_id"]
    field_id = owner.ok("POST", "/realm/profile_fields", name=f"Desk {_n()}", field_type=1)["id"]
    cases: list[tuple[str, str, dict[str, object], str]] = [
        ("PATCH", f"/streams/{stream_id}", {"description": NUL}, "description"),
        (
            "POST",
            "/users/me/subscriptions",
            {"subscriptions": [{"name": f"new {_n()}", "description": NUL}]},
            "description",
        ),
        ("POST", "/user_groups/create", {"name": NUL, "description": "", "members": []}, "name"),
        (
            "POST",
            "/user_groups/create",
            {"name": f"g{_n()}", "description": NUL, "members": []},
            "description",
        ),
        ("PATCH", f"/user_groups/{group_id}", {"name": NUL}, "name"),
        ("PATCH", f"/user_groups/{group_id}", {"description": NUL}, "description"),
        ("PATCH", "/realm", {"name": NUL}, "name"),
        ("PATCH", "/realm", {"description": NUL}, "description"),
        ("POST", "/realm/profile_fields", {"name": NUL, "field_type": 1}, "name"),
        (
            "POST",
            "/realm/profile_fields",
            {"name": f"F{_n()}", "hint": NUL, "field_type": 1},
            "hint",
        ),
        ("PATCH", "/users/me/profile_data", {"data": [{"id": field_id, "value": NUL}]}, ""),
        ("POST", "/users/me/status", {"status_text": NUL}, "status_text"),
        ("POST", "/saved_snippets", {"title": NUL, "content": "x"}, "title"),
        ("POST", "/saved_snippets", {"title": "t", "content": NUL}, "content"),
        ("POST", "/users/me/alert_words", {"alert_words": [NUL]}, "alert_words[0]"),
        (
            "POST",
            "/realm/filters",
            {"pattern": "bad\x00(?P<id>[0-9]+)", "url_template": "https://x/{id}"},
            "pattern",
        ),
        (
            "POST",
            "/channel_folders/create",
            {"name": f"cf{_n()}", "description": NUL},
            "description",
        ),
        (
            "POST",
            "/invites/multiuse",
            {"welcome_message_custom_text": NUL},
            "welcome_message_custom_text",
        ),
        ("POST", "/users/me/bots", {"full_name": NUL, "short_name": f"b{_n()}"}, ""),
    ]
    for method, path, params, name in cases:
        response = owner.request(method, path, **params)
        assert response.status_code == 400, (path, response.text)
        body = assert_error(response, None)
        assert "\x00" not in body["msg"], body
        if name:
            assert body["msg"] == f"Invalid character in {name}, at position 4!", (path, body)
    # Nothing was stored: the realm still has its name, the snippet list is unchanged.
    state = owner.ok("POST", "/register", fetch_event_types=["realm", "saved_snippets"])
    assert "\x00" not in state["realm_name"] + state["realm_description"]
    assert all("\x00" not in s["title"] + s["content"] for s in state["saved_snippets"])


def test_multiline_fields_keep_line_breaks(owner: Api) -> None:
    owner.ok("POST", "/saved_snippets", title=f"lines {_n()}", content="one\ntwo\tthree")
    owner.ok("PATCH", "/realm", description="Line one\n\nLine two")
    owner.ok("PATCH", "/realm", description="")
    assert_error(owner.post("/users/me/status", status_text="a\nb"), None)


def test_waiting_period_threshold_has_zulips_bounds(owner: Api) -> None:
    assert_error(owner.patch("/realm", waiting_period_threshold=10**23), None)
    assert_error(
        owner.patch("/realm", waiting_period_threshold=2**31),
        "waiting_period_threshold is too large",
    )
    state = owner.ok("POST", "/register", fetch_event_types=["realm"])
    assert state["realm_waiting_period_threshold"] < 2**31


@pytest.mark.parametrize("minutes", [-1, 0, -5])
def test_invite_expiry_must_be_positive(owner: Api, minutes: int) -> None:
    assert_error(
        owner.post("/invites/multiuse", invite_expires_in_minutes=minutes),
        "Invalid invite_expires_in_minutes",
    )


def test_saved_snippet_edit_without_fields_needs_an_existing_snippet(
    make_user: Callable[..., Api],
) -> None:
    user = make_user()
    missing = "Saved snippet does not exist."
    assert_error(user.patch("/saved_snippets/999999"), missing, status=404)
    snippet_id = user.ok("POST", "/saved_snippets", title="t", content="c")["saved_snippet_id"]
    user.ok("PATCH", f"/saved_snippets/{snippet_id}")  # zulip-compat: nothing to do is success


def test_patch_subscriptions_adds_and_deletes(server: ServerProcess) -> None:
    member = user_with_role(server, "member")
    first, second = f"patched {_n()}", f"patched {_n()}"
    body = member.ok("PATCH", "/users/me/subscriptions", add=[{"name": first}, {"name": second}])
    assert list(body["subscribed"].values()) == [[first, second]]
    assert body["removed"] == [] and body["not_removed"] == []
    body = member.ok("PATCH", "/users/me/subscriptions", add=[{"name": first}], delete=[second])
    assert list(body["already_subscribed"].values()) == [[first]]
    assert body["removed"] == [second]
    names = {s["name"] for s in member.ok("GET", "/users/me/subscriptions")["subscriptions"]}
    assert first in names and second not in names
    assert_error(
        member.patch("/users/me/subscriptions"),
        'Nothing to do. Specify at least one of "add" or "delete".',
    )


def test_unauthenticated_patch_subscriptions_is_401(server: ServerProcess) -> None:
    response = httpx.patch(f"{server.url}/api/v1/users/me/subscriptions")
    assert response.status_code == 401

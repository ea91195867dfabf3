"""Saved snippets: GET/POST /saved_snippets, PATCH/DELETE /saved_snippets/{id}."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.support.api import Api, assert_error
from tests.support.people import verify


def test_saved_snippets_lifecycle(make_user: Callable[..., Api]) -> None:
    user, other = make_user(full_name="Snippet Writer"), make_user(full_name="Snippet Other")
    assert user.ok("GET", "/saved_snippets")["saved_snippets"] == []
    created: list[Any] = []
    [added] = verify(
        user,
        lambda: created.append(
            user.ok("POST", "/saved_snippets", title=" Greeting ", content=" Hi **all** ", x=1)
        ),
    )
    snippet_id = created[0]["saved_snippet_id"]
    assert created[0]["ignored_parameters_unsupported"] == ["x"]
    assert added["op"] == "add" and added["saved_snippet"]["id"] == snippet_id
    assert (added["saved_snippet"]["title"], added["saved_snippet"]["content"]) == (
        "Greeting",
        "Hi **all**",
    )
    [updated] = verify(
        user, lambda: user.ok("PATCH", f"/saved_snippets/{snippet_id}", content="Bye")
    )
    assert updated["saved_snippet"]["title"] == "Greeting"
    assert updated["saved_snippet"]["content"] == "Bye"
    # Nothing to change: success without an event.
    assert verify(user, lambda: user.ok("PATCH", f"/saved_snippets/{snippet_id}")) == []
    [listed] = user.ok("GET", "/saved_snippets")["saved_snippets"]
    assert listed == updated["saved_snippet"]
    # Snippets are private.
    assert other.ok("GET", "/saved_snippets")["saved_snippets"] == []
    missing = "Saved snippet does not exist."
    assert_error(other.patch(f"/saved_snippets/{snippet_id}", title="Mine"), missing, status=404)
    assert_error(other.delete(f"/saved_snippets/{snippet_id}"), missing, status=404)
    [removed] = verify(user, lambda: user.ok("DELETE", f"/saved_snippets/{snippet_id}"))
    assert (removed["op"], removed["saved_snippet_id"]) == ("remove", snippet_id)
    assert_error(user.delete(f"/saved_snippets/{snippet_id}"), missing, status=404)


def test_saved_snippet_errors(make_user: Callable[..., Api]) -> None:
    user = make_user(full_name="Snippet Breaker")
    assert_error(user.post("/saved_snippets", title="t"), "Missing 'content' argument",
                 "REQUEST_VARIABLE_MISSING")  # fmt: skip
    assert_error(user.post("/saved_snippets", title="  ", content="c"), "title is too short.")
    assert_error(user.post("/saved_snippets", title="t", content=""), "content is too short.")
    assert_error(
        user.post("/saved_snippets", title="t" * 61, content="c"),
        "title is too long (limit: 60 characters)",
    )
    assert_error(
        user.post("/saved_snippets", title="t", content="c" * 10001),
        "content is too long (limit: 10000 characters)",
    )
    snippet = user.ok("POST", "/saved_snippets", title="t", content="c")["saved_snippet_id"]
    assert_error(user.patch(f"/saved_snippets/{snippet}", title=""), "title is too short.")
    assert user.ok("GET", "/saved_snippets")["saved_snippets"][0]["title"] == "t"

"""Navigation views: GET/POST /navigation_views, PATCH/DELETE /navigation_views/{fragment}."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.api import Api, assert_error
from tests.support.people import verify

MISSING = "Navigation view does not exist."


def test_navigation_views_lifecycle(make_user: Callable[..., Api]) -> None:
    user, other = make_user(full_name="View Keeper"), make_user(full_name="View Other")
    assert user.ok("GET", "/navigation_views")["navigation_views"] == []
    [added] = verify(
        user, lambda: user.ok("POST", "/navigation_views", fragment="inbox", is_pinned="false")
    )
    assert added["navigation_view"] == {"fragment": "inbox", "is_pinned": False, "name": None}
    [custom] = verify(
        user,
        lambda: user.ok(
            "POST",
            "/navigation_views",
            fragment=" narrow/is/alerted ",
            is_pinned="true",
            name=" Alert Words ",
        ),
    )
    assert custom["navigation_view"] == {
        "fragment": "narrow/is/alerted",
        "is_pinned": True,
        "name": "Alert Words",
    }
    [pinned] = verify(
        user, lambda: user.ok("PATCH", "/navigation_views/narrow/is/alerted", is_pinned="false")
    )
    assert (pinned["fragment"], pinned["data"]) == ("narrow/is/alerted", {"is_pinned": False})
    [renamed] = verify(
        user, lambda: user.ok("PATCH", "/navigation_views/narrow/is/alerted", name="Alerts")
    )
    assert renamed["data"] == {"name": "Alerts"}
    assert user.ok("GET", "/navigation_views")["navigation_views"] == [
        {"fragment": "inbox", "is_pinned": False, "name": None},
        {"fragment": "narrow/is/alerted", "is_pinned": False, "name": "Alerts"},
    ]
    # Views are private to their owner.
    assert other.ok("GET", "/navigation_views")["navigation_views"] == []
    assert_error(other.patch("/navigation_views/inbox", is_pinned="true"), MISSING, status=404)
    assert_error(other.delete("/navigation_views/inbox"), MISSING, status=404)
    [removed] = verify(user, lambda: user.ok("DELETE", "/navigation_views/narrow/is/alerted"))
    assert (removed["op"], removed["fragment"]) == ("remove", "narrow/is/alerted")
    assert_error(user.delete("/navigation_views/narrow/is/alerted"), MISSING, status=404)
    state = user.ok("POST", "/register", fetch_event_types='["navigation_views"]')
    assert state["navigation_views"] == [{"fragment": "inbox", "is_pinned": False, "name": None}]


def test_navigation_view_errors(make_user: Callable[..., Api]) -> None:
    user = make_user(full_name="View Breaker")
    exists = "Navigation view already exists."
    post = user.post
    assert_error(post("/navigation_views", fragment="inbox"), "Missing 'is_pinned' argument",
                 "REQUEST_VARIABLE_MISSING")  # fmt: skip
    assert_error(post("/navigation_views", fragment="  ", is_pinned="true"),
                 "fragment is too short.")  # fmt: skip
    assert_error(post("/navigation_views", fragment="inbox", is_pinned="true", name="Mine"),
                 "Built-in views cannot have a custom name.")  # fmt: skip
    assert_error(post("/navigation_views", fragment="narrow/is/dm", is_pinned="true"),
                 "Custom views must have a valid name.")  # fmt: skip
    assert_error(post("/navigation_views", fragment="narrow/is/dm", is_pinned="x", name="DMs"),
                 "is_pinned is not valid JSON")  # fmt: skip
    assert_error(
        post("/navigation_views", fragment="narrow/is/dm", is_pinned="true", name="n" * 101),
        "name is too long (limit: 100 characters)",
    )
    user.ok("POST", "/navigation_views", fragment="narrow/is/dm", is_pinned="true", name="DMs")
    assert_error(post("/navigation_views", fragment="narrow/is/dm", is_pinned="false",
                      name="Other"), exists)  # fmt: skip
    assert_error(post("/navigation_views", fragment="narrow/is/starred2", is_pinned="false",
                      name="DMs"), exists)  # fmt: skip
    assert_error(user.patch("/navigation_views/inbox", name="Inbox"),
                 "Built-in views cannot have a custom name.")  # fmt: skip
    assert_error(
        user.patch("/navigation_views/narrow/is/dm", is_pinned="7"),
        "is_pinned is not a boolean",
    )
    # Nothing was changed by the refused requests.
    assert user.ok("GET", "/navigation_views")["navigation_views"] == [
        {"fragment": "narrow/is/dm", "is_pinned": True, "name": "DMs"}
    ]


def test_navigation_views_with_the_zulip_client(
    make_user: Callable[..., Api], tmp_path: Path
) -> None:
    zulip = pytest.importorskip("zulip")
    user = make_user(full_name="View Client")
    client = zulip.Client(email=user.email, api_key=user.api_key, site=user.base_url)
    result = client.call_endpoint(
        url="navigation_views",
        method="POST",
        request={"fragment": "narrow/is/followed", "is_pinned": True, "name": "Followed"},
    )
    assert result["result"] == "success", result
    result = client.call_endpoint(
        url="navigation_views/narrow/is/followed", method="PATCH", request={"is_pinned": False}
    )
    assert result["result"] == "success", result
    listed = client.call_endpoint(url="navigation_views", method="GET")["navigation_views"]
    assert listed == [{"fragment": "narrow/is/followed", "is_pinned": False, "name": "Followed"}]

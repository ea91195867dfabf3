"""Issue 9, defect 6: no single request holds the writer for long; each cap is a clear 400."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable

import httpx

from teamchat.lib import limits
from tests.support.api import Api, assert_error, encode

_numbers = itertools.count(1)


def test_huge_subscription_request_is_refused_quickly_and_blocks_no_one(
    owner: Api, make_user: Callable[..., Api]
) -> None:
    sender = make_user()
    lobby = f"limits lobby {next(_numbers)}"
    sender.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": lobby}])
    names = [{"name": f"flood {next(_numbers)} {i}"} for i in range(3000)]
    result: dict[str, object] = {}

    def flood() -> None:
        started = time.monotonic()
        with httpx.Client(base_url=owner.http.base_url, auth=owner.http.auth, timeout=60) as c:
            result["response"] = c.post(
                "/users/me/subscriptions", data=encode({"subscriptions": names})
            )
        result["secs"] = time.monotonic() - started

    thread = threading.Thread(target=flood)
    thread.start()
    started = time.monotonic()
    sender.ok("POST", "/messages", type="stream", to=lobby, topic="meanwhile", content="hi")
    send_secs = time.monotonic() - started
    thread.join()
    response = result["response"]
    assert isinstance(response, httpx.Response)
    assert_error(response, "subscriptions has too many items (at most 100)")
    assert result["secs"] < 5 and send_secs < 5, (result["secs"], send_secs)
    subscribed = {s["name"] for s in owner.ok("GET", "/users/me/subscriptions")["subscriptions"]}
    assert not any(name.startswith("flood ") for name in subscribed)


def test_every_cap_names_its_parameter(owner: Api) -> None:
    group_id = owner.ok(
        "POST", "/user_groups/create", name=f"capped {next(_numbers)}", description="", members=[]
    )["group_id"]
    many_users = list(range(1, limits.MAX_USERS_PER_REQUEST + 2))
    cases = [
        (
            "DELETE",
            "/users/me/subscriptions",
            {"subscriptions": [f"c{i}" for i in range(101)]},
            "subscriptions has too many items (at most 100)",
        ),
        (
            "PATCH",
            "/users/me/subscriptions",
            {"add": [{"name": f"c{i}"} for i in range(101)]},
            "add has too many items (at most 100)",
        ),
        (
            "POST",
            "/users/me/subscriptions",
            {"subscriptions": [{"name": "x"}], "principals": many_users},
            "principals has too many items (at most 1000)",
        ),
        (
            "POST",
            "/users/me/subscriptions",
            {
                "subscriptions": [{"name": f"c{i}"} for i in range(100)],
                "principals": [f"nobody{i}@example.com" for i in range(101)],
            },
            "Too many subscriptions in one request: 100 channels for 101 users "
            "(at most 10000 in all)",
        ),
        (
            "POST",
            f"/user_groups/{group_id}/members",
            {"add": many_users},
            "add has too many items (at most 1000)",
        ),
        (
            "POST",
            "/messages/flags",
            {"messages": list(range(1, 5002)), "op": "add", "flag": "read"},
            "messages has too many items (at most 5000)",
        ),
    ]
    for method, path, params, message in cases:
        assert_error(owner.request(method, path, **params), message)

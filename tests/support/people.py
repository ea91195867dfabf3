"""Helpers for the people tests: users with a role, event queues, bots."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.conftest import TEST_PASSWORD, unique_email
from tests.support.api import Api, assert_success
from tests.support.state import verify_action
from tests.test_events import check_event_schema

JsonDict = dict[str, Any]


def make_role_user(
    owner: Api, make_user: Callable[..., Api], role: int, full_name: str = "Role User"
) -> Api:
    """A new user whose role the owner then sets (100, 200, 300, 400 or 600)."""
    api = make_user(full_name=full_name)
    if role != 400:
        owner.ok("PATCH", f"/users/{api.user_id}", role=role)  # type: ignore[attr-defined]
    return api


def register(api: Api, **params: Any) -> str:
    queue_id: str = api.ok("POST", "/register", **params)["queue_id"]
    return queue_id


def events(api: Api, queue_id: str, **filters: Any) -> list[JsonDict]:
    """Everything in the queue so far (no waiting), optionally only `type`/`op` matches."""
    body = api.ok("GET", "/events", queue_id=queue_id, last_event_id=-1, dont_block=True)
    found: list[JsonDict] = body["events"]
    return [e for e in found if all(e.get(k) == v for k, v in filters.items())]


def login(server_url: str, email: str, password: str = TEST_PASSWORD) -> Api:
    with Api(server_url) as anonymous:
        body = assert_success(anonymous.post("/fetch_api_key", username=email, password=password))
    api = Api(server_url, body["email"], body["api_key"])
    api.user_id = body["user_id"]  # type: ignore[attr-defined]
    return api


def create_member(
    server_url: str, owner: Api, full_name: str, *, email: str = "", password: str = TEST_PASSWORD
) -> Api:
    """A member `owner` creates through POST /users, logged in with their password."""
    email = email or unique_email()
    assert_success(owner.post("/users", email=email, password=password, full_name=full_name))
    return login(server_url, email, password)


def bot_api(server_url: str, created: JsonDict, email: str) -> Api:
    api = Api(server_url, email, created["api_key"])
    api.user_id = created["user_id"]  # type: ignore[attr-defined]
    return api


def new_email() -> str:
    return unique_email("person")


def verify(api: Api, action: Callable[[], object], **register_params: Any) -> list[JsonDict]:
    """verify_action, plus every delivered event decoded into our own event Struct."""
    delivered = verify_action(api, action, **register_params)
    for event in delivered:
        check_event_schema(event)
    return delivered

"""POST /dev_fetch_api_key and GET /dev_list_users: password-less log-in, only when
TEAMCHAT_DEV_AUTH is on (the sandbox); Zulip's error everywhere else."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.api import Api, assert_error
from tests.support.server import ServerProcess


def test_dev_auth_is_off_by_default(server: ServerProcess) -> None:
    anonymous = Api(server.url)
    assert_error(
        anonymous.post("/dev_fetch_api_key", username=server.owner_email),
        "DevAuthBackend not enabled.",
    )
    assert_error(anonymous.get("/dev_list_users"), "DevAuthBackend not enabled.")
    methods = anonymous.ok("GET", "/server_settings")["authentication_methods"]
    assert methods["dev"] is False


def test_dev_auth_when_enabled(start_server: Callable[..., ServerProcess]) -> None:
    server = start_server({"TEAMCHAT_DEV_AUTH": "1"})
    anonymous = Api(server.url)
    assert anonymous.ok("GET", "/server_settings")["authentication_methods"]["dev"] is True
    key = anonymous.ok("POST", "/dev_fetch_api_key", username=server.owner_email)
    assert key["api_key"] == server.owner_key and key["email"] == server.owner_email
    listed = anonymous.ok("GET", "/dev_list_users")
    assert [u["email"] for u in listed["direct_admins"]] == [server.owner_email]
    assert listed["direct_admins"][0]["realm_url"] == server.url
    assert_error(
        anonymous.post("/dev_fetch_api_key", username="nobody@example.com"),
        None,
        "AUTHENTICATION_FAILED",
        status=401,
    )

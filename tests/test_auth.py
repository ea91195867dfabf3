"""HTTP Basic API keys, POST /fetch_api_key, and the 401 family of errors."""

from __future__ import annotations

import base64

import httpx

from tests.conftest import TEST_PASSWORD
from tests.support.api import Api, assert_error, assert_success
from tests.support.server import ServerProcess


def test_fetch_api_key_returns_key_email_and_user_id(server: ServerProcess, make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user()
    with Api(server.url) as anonymous:
        body = anonymous.ok("POST", "/fetch_api_key", username=user.email, password=TEST_PASSWORD)
    assert body["api_key"] == user.api_key and len(body["api_key"]) == 32
    assert body["email"] == user.email
    assert body["user_id"] == user.user_id
    assert_success(user.get("/users/me"))


def test_fetch_api_key_wrong_password_and_unknown_user_fail_alike(
    server: ServerProcess, make_user
) -> None:  # type: ignore[no-untyped-def]
    user = make_user()
    with Api(server.url) as anonymous:
        wrong = anonymous.post("/fetch_api_key", username=user.email, password="nope-nope")
        unknown = anonymous.post(
            "/fetch_api_key", username="ghost@example.com", password="nope-nope"
        )
    for response in (wrong, unknown):
        assert_error(
            response, "Your username or password is incorrect", "AUTHENTICATION_FAILED", 401
        )


def test_fetch_api_key_missing_parameter(server: ServerProcess) -> None:
    with Api(server.url) as anonymous:
        body = assert_error(
            anonymous.post("/fetch_api_key", username="x@example.com"),
            "Missing 'password' argument",
            "REQUEST_VARIABLE_MISSING",
        )
    assert body["var_name"] == "password"


def test_repeated_login_failures_are_rate_limited(start_server) -> None:  # type: ignore[no-untyped-def]
    proc = start_server(env={"TEAMCHAT_AUTH_RATE_LIMIT": "3/600"})
    with Api(proc.url) as anonymous:
        for _ in range(3):
            assert_error(
                anonymous.post("/fetch_api_key", username=proc.owner_email, password="bad-pass"),
                None,
                "AUTHENTICATION_FAILED",
                401,
            )
        limited = anonymous.post("/fetch_api_key", username=proc.owner_email, password="bad-pass")
        body = assert_error(limited, "API usage exceeded rate limit", "RATE_LIMIT_HIT", 429)
        assert body["retry-after"] > 0
        assert int(limited.headers["retry-after"]) >= 1
        # Even the right password waits out the limit for that username.
        assert (
            anonymous.post("/fetch_api_key", username=proc.owner_email, password="x").status_code
            == 429
        )


def test_api_requests_past_the_rate_limit_get_429(start_server) -> None:  # type: ignore[no-untyped-def]
    proc = start_server(env={"TEAMCHAT_API_RATE_LIMIT": "5/60"})
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        for _ in range(5):
            assert_success(owner.get("/users/me"))
        assert_error(owner.get("/users/me"), "API usage exceeded rate limit", "RATE_LIMIT_HIT", 429)


def test_missing_credentials_are_401_with_a_challenge(server: ServerProcess) -> None:
    response = httpx.get(f"{server.url}/api/v1/users/me")
    assert_error(
        response, "Not logged in: API authentication or user session required", "UNAUTHORIZED", 401
    )
    assert response.headers["www-authenticate"].startswith("Basic")


def test_wrong_key_unknown_email_and_garbage_headers_are_401(server: ServerProcess) -> None:
    with Api(server.url, server.owner_email, "x" * 32) as wrong_key:
        response = wrong_key.get("/users/me")
    assert_error(response, "Invalid API key", "UNAUTHORIZED", 401)
    assert "www-authenticate" in response.headers
    with Api(server.url, "ghost@example.com", server.owner_key) as wrong_email:
        assert_error(wrong_email.get("/users/me"), "Invalid API key", "UNAUTHORIZED", 401)
    for header in (
        "Basic !!!notbase64",
        "Basic " + base64.b64encode(b"no-colon").decode(),
        "Token abc",
    ):
        response = httpx.get(f"{server.url}/api/v1/users/me", headers={"Authorization": header})
        assert response.status_code == 401 and response.json()["code"] == "UNAUTHORIZED"


def test_api_key_is_checked_case_insensitively_on_email(server: ServerProcess) -> None:
    with Api(server.url, server.owner_email.upper(), server.owner_key) as shouting:
        assert_success(shouting.get("/users/me"))


def test_malformed_basic_credentials_are_refused_not_a_server_error(
    server: ServerProcess,
) -> None:
    """Non-ASCII or non-base64 Basic credentials: 401 with Zulip's envelope, on the ordinary
    routes and on the lean poll path alike (non-ASCII bytes once raised a 500)."""
    for path in ("/api/v1/users/me", "/api/v1/events?queue_id=x"):
        for value in (b"Basic \xe9\xe9", b"Basic !!!", b"Basic " + base64.b64encode(b"no-colon")):
            response = httpx.get(server.url + path, headers={"Authorization": value})
            assert_error(
                response, "Invalid authorization header for basic auth", "UNAUTHORIZED", 401
            )

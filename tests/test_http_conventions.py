"""Conventions every endpoint shares: envelopes, 404/405, body encodings, no 500s."""

from __future__ import annotations

import httpx

from tests.support.api import Api, assert_error, assert_success
from tests.support.server import ServerProcess


def test_unknown_route_is_a_json_404(owner: Api) -> None:
    assert_error(owner.get("/no/such/endpoint"), None, "BAD_REQUEST", 404)
    response = httpx.get(f"{owner.base_url}/definitely-not-here")
    assert response.status_code == 404 and response.json()["result"] == "error"


def test_wrong_method_is_a_json_405(owner: Api) -> None:
    response = owner.request("PUT", "/users/me")
    assert response.status_code == 405
    # zulip-compat: the allowed methods, in the body and the Allow header; no code.
    assert response.json() == {
        "result": "error",
        "msg": "Method Not Allowed",
        "allowed_methods": ["GET", "DELETE"],
    }
    assert response.headers["allow"] == "GET, DELETE"


def test_multipart_bodies_are_read_like_form_bodies(owner: Api) -> None:
    # zulip-js sends POST parameters as multipart/form-data.
    response = owner.http.post(
        "/register", files={"fetch_event_types": (None, '["realm"]'), "bogus": (None, "1")}
    )
    body = assert_success(response)
    assert "realm_name" in body and "realm_users" not in body
    assert body["ignored_parameters_unsupported"] == ["bogus"]


def test_query_string_parameters_count_for_post(owner: Api) -> None:
    response = owner.http.post("/register", params={"fetch_event_types": '["realm"]'})
    assert "realm_users" not in assert_success(response)


def test_body_wins_over_query_string(owner: Api) -> None:
    response = owner.http.post(
        "/register",
        params={"fetch_event_types": '["realm_user"]'},
        data={"fetch_event_types": '["realm"]'},
    )
    assert "realm_users" not in assert_success(response)


def test_malformed_bodies_are_400_not_500(server: ServerProcess, owner: Api) -> None:
    auth = (owner.email, owner.api_key)
    garbage = httpx.post(
        f"{server.url}/api/v1/register",
        content=b"--xyz\r\nbroken",
        headers={"Content-Type": "multipart/form-data; boundary=xyz"},
        auth=auth,
    )
    assert garbage.status_code < 500
    assert garbage.json()["result"] in ("success", "error")
    weird = httpx.post(
        f"{server.url}/api/v1/register",
        content=b"\xff\xfe",
        auth=auth,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert weird.status_code < 500

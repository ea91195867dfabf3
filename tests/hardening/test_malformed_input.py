"""Issue 9, defect 5: malformed input is a 400 envelope naming the parameter, never a 500."""

from __future__ import annotations

import json

import httpx

from tests.support.api import Api, assert_error
from tests.support.server import ServerProcess

FETCH = {"anchor": "newest", "num_before": 1, "num_after": 0}


def test_deeply_nested_json_is_not_valid_json(owner: Api) -> None:
    deep = "[" * 1000 + "]" * 1000
    response = owner.http.request("GET", "/messages", data={"narrow": deep, **FETCH})
    assert_error(response, "narrow is not valid JSON")


def test_moderately_nested_json_is_refused_before_any_recursion(owner: Api) -> None:
    nested = "[" * 40 + "]" * 40
    response = owner.post("/register", narrow=nested)
    assert_error(response, "narrow is not valid JSON")


def test_narrow_with_thousands_of_terms_is_refused(owner: Api) -> None:
    narrow = json.dumps([{"operator": "search", "operand": "x"}] * 1200)
    response = owner.http.request("GET", "/messages", data={"narrow": narrow, **FETCH})
    assert_error(response, "narrow has too many terms (at most 100)")


def test_narrow_with_a_hundred_terms_still_works(owner: Api) -> None:
    narrow = [{"operator": "search", "operand": "x"}, {"operator": "has", "operand": "link"}] * 50
    owner.ok("GET", "/messages", narrow=narrow, **FETCH)


def test_invalid_utf8_in_multipart_field_unauthenticated(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.url) as anonymous:
        response = anonymous.post(
            "/api/v1/fetch_api_key",
            files={"username": (None, b"\xff\xfe"), "password": (None, b"x")},
        )
        assert_error(response, 'Argument "username" is not valid UTF-8.')
        response = anonymous.post(
            "/join/nosuchkey/",
            files={"email": (None, b"a@example.com"), "full_name": (None, b"\xff\xfe")},
        )
        assert_error(response, 'Argument "full_name" is not valid UTF-8.')


def test_malformed_input_logs_no_traceback(server: ServerProcess, owner: Api) -> None:
    before = server.log().count("Traceback")
    owner.http.request("GET", "/messages", data={"narrow": "[" * 5000, **FETCH})
    owner.http.post("/messages", files={"type": (None, b"stream"), "to": (None, b"\xc3\x28")})
    assert server.log().count("Traceback") == before


def test_credentials_are_checked_before_the_body(server: ServerProcess, owner: Api) -> None:
    """As in Zulip: a bad key is 401 whatever the body; with a good key, the body's error."""
    bad_body = {"type": (None, b"stream"), "content": (None, b"\xff\xfe")}
    with httpx.Client(base_url=f"{server.url}/api/v1") as anonymous:
        response = anonymous.post("/messages", files=bad_body, auth=("x@example.com", "nokey"))
        assert response.status_code == 401, response.text
        response = anonymous.post("/messages", files=bad_body)
        assert response.status_code == 401, response.text
    assert_error(
        owner.http.post("/messages", files=bad_body), 'Argument "content" is not valid UTF-8.'
    )

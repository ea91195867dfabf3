"""An authenticated HTTP client for tests, encoding parameters as the `zulip` client does."""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.support import openapi

JsonDict = dict[str, Any]


def encode(params: dict[str, Any]) -> dict[str, str]:
    """Like python-zulip-api: every non-string value is JSON-encoded; None is dropped."""
    return {
        key: value if isinstance(value, str) else json.dumps(value)
        for key, value in params.items()
        if value is not None
    }


class Api:
    def __init__(
        self,
        base_url: str,
        email: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
    ) -> None:
        self.base_url = base_url
        self.email = email
        self.api_key = api_key
        auth = (email, api_key) if email is not None and api_key is not None else None
        self.http = httpx.Client(base_url=f"{base_url}/api/v1", auth=auth, timeout=timeout)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Api:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(self, method: str, path: str, **params: Any) -> httpx.Response:
        data = encode(params)
        if method.upper() == "GET":
            return self.http.request(method, path, params=data)
        return self.http.request(method, path, data=data)

    def get(self, path: str, **params: Any) -> httpx.Response:
        return self.request("GET", path, **params)

    def post(self, path: str, **params: Any) -> httpx.Response:
        return self.request("POST", path, **params)

    def patch(self, path: str, **params: Any) -> httpx.Response:
        return self.request("PATCH", path, **params)

    def delete(self, path: str, **params: Any) -> httpx.Response:
        return self.request("DELETE", path, **params)

    def ok(self, method: str, path: str, **params: Any) -> JsonDict:
        """Call, assert a 200 success, check the documented shape when OpenAPI is here."""
        return assert_success(self.request(method, path, **params), method, path)


def assert_success(
    response: httpx.Response, method: str | None = None, path: str | None = None
) -> JsonDict:
    assert response.status_code == 200, f"{response.status_code}: {response.text}"
    body: JsonDict = response.json()
    assert body["result"] == "success" and body["msg"] == "", body
    if method and path and openapi.available():
        template = openapi.match_path(path.split("?")[0], method)
        if template is not None:
            openapi.check_response(template, method, body)
    return body


def assert_error(
    response: httpx.Response, msg: str | None, code: str = "BAD_REQUEST", status: int = 400
) -> JsonDict:
    body: JsonDict = response.json()
    assert response.status_code == status, f"{response.status_code}: {response.text}"
    assert body["result"] == "error", body
    assert body["code"] == code, body
    if msg is not None:
        assert body["msg"] == msg, body
    return body

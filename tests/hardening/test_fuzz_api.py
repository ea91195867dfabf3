"""Property-based fuzzing of every Zulip operation we serve: no 5xx, every error a Zulip envelope.

Requests come from Zulip's OpenAPI description (tests/support/fuzz.py). The default run tries
a fixed sweep of hostile values, then TEAMCHAT_FUZZ_EXAMPLES random examples per operation
(default 4; about 25 s in all); set it
higher (e.g. 200) for a deep run. Without the OpenAPI file the test skips, saying why.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from teamchat import http
from tests.conftest import database_url
from tests.support import fuzz, openapi
from tests.support.server import ServerProcess

EXAMPLES = int(os.environ.get("TEAMCHAT_FUZZ_EXAMPLES", "4"))
# Operations that would lock the fuzzing account out of the rest of the run.
SELF_DESTRUCTIVE = {"DELETE /users/me"}


def _our_routes() -> set[tuple[str, str]]:
    return {
        (fuzz.normalize(path), method.lower())
        for handler in http.api_handlers()
        for path in handler.paths
        for method in handler.http_methods
    }


def _operations() -> list[Any]:
    if not openapi.available():
        return [pytest.param(None, marks=pytest.mark.skip(reason=openapi.SKIP_REASON))]
    operations = fuzz.served_operations(_our_routes())
    return [pytest.param(op, id=op.name) for op in operations if op.name not in SELF_DESTRUCTIVE]


@pytest.fixture(scope="module")
def fuzz_server(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[ServerProcess]:
    """A server of its own: fuzzing changes settings no other test should see."""
    directory = tmp_path_factory.mktemp("fuzz")
    proc = ServerProcess(directory, database_url=database_url(request)).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def owner_client(fuzz_server: ServerProcess) -> Iterator[tuple[httpx.Client, int]]:
    auth = (fuzz_server.owner_email, fuzz_server.owner_key)
    with httpx.Client(base_url=f"{fuzz_server.url}/api/v1", auth=auth, timeout=60) as client:
        owner_id = client.get("/users/me").json()["user_id"]
        yield client, owner_id


def check_envelope(response: httpx.Response, label: str) -> None:
    """No 5xx; every JSON answer is Zulip's envelope; every error is JSON."""
    assert response.status_code < 500, f"{label}: {response.status_code} {response.text[:300]}"
    is_json = response.headers.get("content-type", "").startswith("application/json")
    if response.status_code >= 400:
        assert is_json, f"{label}: error without a JSON envelope: {response.text[:200]}"
    if not is_json:
        return
    body = response.json()
    assert isinstance(body, dict), f"{label}: {body!r:.200}"
    expected = "error" if response.status_code >= 400 else "success"
    assert body.get("result") == expected, f"{label}: {response.status_code} {body!r:.300}"
    assert isinstance(body.get("msg"), str), f"{label}: {body!r:.300}"
    if expected == "error":
        assert isinstance(body.get("code"), str) and body["code"], f"{label}: {body!r:.300}"


def send(client: httpx.Client, request: fuzz.Request, raw_bytes: bytes | None) -> httpx.Response:
    if request.multipart:
        files: dict[str, Any] = {k: (None, v.encode()) for k, v in request.data.items()}
        if raw_bytes is not None:
            files.update({k: (None, raw_bytes) for k in list(files) or ["content"]})
        return client.request(request.method, request.url, params=request.params, files=files)
    return client.request(request.method, request.url, params=request.params, data=request.data)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("operation", _operations())
def test_operation_never_fails_with_5xx(
    operation: fuzz.Operation, owner_client: tuple[httpx.Client, int]
) -> None:
    client, owner_id = owner_client
    for request in fuzz.sweep_requests(operation, path_id=owner_id + 1):
        for raw_bytes in (None, b"\xff\xfe") if request.multipart else (None,):
            sample = next(iter(request.data.values()), "")
            label = f"{operation.name} sweep {request.url} {sample!r:.40} {raw_bytes!r}"
            check_envelope(send(client, request, raw_bytes), label)

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=EXAMPLES <= 10,
        suppress_health_check=list(HealthCheck),
    )
    @given(
        request=fuzz.requests(operation, frozenset({owner_id})),
        raw_bytes=st.one_of(st.none(), st.binary(max_size=8)),
    )
    def run(request: fuzz.Request, raw_bytes: bytes | None) -> None:
        label = f"{operation.name} as {request.method.upper()} {request.url}"
        label += f" params={request.params!r:.200} data={request.data!r:.300}"
        check_envelope(send(client, request, raw_bytes), label)

    run()


def test_fuzz_targets_cover_most_routes() -> None:
    """The fuzzer reaches our routes through the OpenAPI: keep that mapping from rotting."""
    if not openapi.available():
        pytest.skip(openapi.SKIP_REASON)
    covered = {fuzz.normalize(op.path) for op in fuzz.served_operations(_our_routes())}
    ours = {path for path, _ in _our_routes()}
    assert len(covered) >= 0.6 * len(ours), sorted(ours - covered)
    assert re.search(r"\{\}", " ".join(covered))

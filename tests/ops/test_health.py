"""GET /health: no credentials, the database answers, migrations are current."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from tests.support import rawdb
from tests.support.api import assert_error
from tests.support.server import ServerProcess


def test_health_without_credentials(server: ServerProcess) -> None:
    response = httpx.get(f"{server.url}/health", timeout=10)
    assert response.status_code == 200
    body = response.json()
    assert body["result"] == "success" and body["database"] == "ok"
    assert body["migrations_current"] is True and body["schema_version"] >= 400
    wrong = httpx.get(f"{server.url}/health", auth=("nobody@example.com", "x" * 32), timeout=10)
    assert wrong.status_code == 200


def test_health_fails_when_the_schema_is_not_current(
    start_server: Callable[..., ServerProcess],
) -> None:
    proc = start_server()
    version = rawdb.schema_version(proc.db)
    rawdb.set_schema_version(proc.db, version - 1)
    response = httpx.get(f"{proc.url}/health", timeout=10)
    assert_error(
        response,
        f"Database schema version {version - 1}; expected {version}",
        "SERVER_NOT_READY",
        500,
    )
    rawdb.set_schema_version(proc.db, version)
    assert httpx.get(f"{proc.url}/health", timeout=10).status_code == 200

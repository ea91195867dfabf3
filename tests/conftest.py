"""Shared fixtures: a real `teamchat serve` per session, API clients, user factories."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.api import Api, assert_success
from tests.support.postgres import PostgresServer
from tests.support.server import ServerProcess

_counter = itertools.count(1)
TEST_PASSWORD = "correct-horse-battery"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--db",
        choices=("sqlite", "postgresql"),
        default=os.environ.get("TEAMCHAT_TEST_DB", "sqlite"),
        help="The database the test servers run on (also TEAMCHAT_TEST_DB); default sqlite",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "sqlite_only(reason): the test is about the SQLite file itself (skipped, with the reason,"
        " when the run asks for PostgreSQL)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--db") != "postgresql":
        return
    for item in items:
        marker = item.get_closest_marker("sqlite_only")
        if marker is not None:
            reason = marker.args[0] if marker.args else "about the SQLite file"
            item.add_marker(pytest.mark.skip(reason=f"SQLite only: {reason}"))


def database_url(request: pytest.FixtureRequest) -> str | None:
    """A fresh PostgreSQL database's URL when the run asks for PostgreSQL, else None (SQLite)."""
    if request.config.getoption("--db") != "postgresql":
        return None
    cluster: PostgresServer = request.getfixturevalue("postgres")
    return cluster.new_database()


@pytest.fixture(scope="session")
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    url = database_url(request)
    proc = ServerProcess(tmp_path_factory.mktemp("server"), database_url=url).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def owner(server: ServerProcess) -> Iterator[Api]:
    api = Api(server.url, server.owner_email, server.owner_key)
    yield api
    api.close()


def unique_email(prefix: str = "user") -> str:
    return f"{prefix}{next(_counter)}@example.com"


@pytest.fixture(scope="session")
def make_user(server: ServerProcess, owner: Api) -> Iterator[Callable[..., Api]]:
    """Create a member through POST /users and return an Api logged in as them."""
    clients: list[Api] = []

    def factory(
        full_name: str = "Test User", email: str | None = None, caught_up: bool = True
    ) -> Api:
        """`caught_up`: the person has read the recent history of the default channels that a
        new account finds unread (see test_invite_channels), so tests start from no unread."""
        email = email or unique_email()
        assert_success(
            owner.post("/users", email=email, password=TEST_PASSWORD, full_name=full_name)
        )
        anonymous = Api(server.url)
        body = assert_success(
            anonymous.post("/fetch_api_key", username=email, password=TEST_PASSWORD)
        )
        anonymous.close()
        api = Api(server.url, email, body["api_key"])
        api.user_id = body["user_id"]  # type: ignore[attr-defined]
        clients.append(api)
        if caught_up:
            assert_success(api.post("/mark_all_as_read"))
        return api

    yield factory
    for api in clients:
        api.close()


@pytest.fixture
def start_server(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Callable[..., ServerProcess]]:
    """Start extra servers with their own environment (and database); all are stopped after
    the test."""
    started: list[ServerProcess] = []

    def factory(env: dict[str, str] | None = None, directory: Path | None = None) -> ServerProcess:
        directory = directory or tmp_path / f"srv{len(started)}"
        directory.mkdir(exist_ok=True)
        proc = ServerProcess(directory, env, database_url=database_url(request)).start()
        started.append(proc)
        return proc

    yield factory
    for proc in started:
        proc.stop()


# The README's Quick start from the built wheel (see tests/support/quickstart.py).
# A PostgreSQL cluster per session, from Debian's package (see tests/support/postgres.py).
from tests.support.postgres import postgres  # noqa: E402, F401
from tests.support.quickstart import (  # noqa: E402, F401
    built_wheel,
    installed_teamchat,
    quickstart_env,
    quickstart_server,
)

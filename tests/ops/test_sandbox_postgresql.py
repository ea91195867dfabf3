"""`teamchat sandbox` on a PostgreSQL database: seeded once (in one copy), reopened with the
same credentials, and refused on a database holding a real organization."""

from __future__ import annotations

from pathlib import Path

from tests.ops.test_sandbox import as_user, credentials, start_sandbox
from tests.support.postgres import PostgresServer
from tests.support.server import ServerProcess, cli


def test_sandbox_seeds_and_reopens_a_postgresql_database(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    url = postgres.new_database("sandbox")
    first = start_sandbox(tmp_path, "--db", url, "sandbox")
    try:
        assert "Seeded the sandbox" in first.first_output
        assert "postgresql://" in first.first_output
        key = credentials(first, "hamlet@zulip.com")
        with as_user(first, "hamlet@zulip.com") as hamlet:
            assert hamlet.ok("GET", "/users/me")["email"] == "hamlet@zulip.com"
            sent = hamlet.ok("POST", "/messages", type="stream", to="Verona", topic="pg",
                             content="on PostgreSQL")["id"]  # fmt: skip
            newest = hamlet.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)
            assert newest["messages"][0]["id"] == sent
    finally:
        first.stop()
    again = ServerProcess(tmp_path, command=["--db", url, "sandbox"])
    again.log_path = tmp_path / "second.log"
    again.start(timeout_secs=60)
    try:
        assert "Reopened the sandbox" in again.first_output
        assert credentials(again, "hamlet@zulip.com") == key
    finally:
        again.stop()


def test_sandbox_refuses_a_postgresql_database_of_a_real_organization(
    postgres: PostgresServer,
) -> None:
    url = postgres.new_database("real")
    cli(url, "admin", "create-realm", "--name", "Acme", "--owner-email", "boss@acme.example",
        "--owner-name", "Boss", "--owner-password", "correct horse battery")  # fmt: skip
    result = cli(url, "sandbox", "--port", "1", check=False)
    assert result.returncode == 1, result.stderr
    assert "not a sandbox" in result.stderr and "Traceback" not in result.stderr

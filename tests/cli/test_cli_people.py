"""`teamchat admin` people commands: deactivate/reactivate, set-role, defaults set/show."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.support.api import Api, assert_error
from tests.support.server import cli


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "people.db"
    cli(
        path,
        "admin",
        "create-realm",
        "--name",
        "People Inc",
        "--owner-email",
        "boss@example.com",
        "--owner-name",
        "Boss",
        "--owner-password",
        "pw-123456",
    )
    cli(
        path,
        "admin",
        "create-user",
        "--email",
        "worker@example.com",
        "--full-name",
        "Worker",
        "--password",
        "pw-123456",
    )
    return path


def users(db: Path) -> dict[str, dict]:  # type: ignore[type-arg]
    rows = json.loads(cli(db, "admin", "list-users", "--json").stdout)
    return {row["email"]: row for row in rows}


def failure(db: Path, *args: str) -> str:
    result = cli(db, *args, check=False)
    assert result.returncode == 1, result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_set_role(db: Path) -> None:
    assert "moderator" in cli(db, "admin", "set-role", "worker@example.com", "moderator").stdout
    assert users(db)["worker@example.com"]["role"] == "moderator"
    cli(db, "admin", "set-role", "worker@example.com", "owner")
    assert users(db)["worker@example.com"]["role"] == "owner"
    cli(db, "admin", "set-role", "worker@example.com", "member")
    assert "unknown role 'king'" in failure(db, "admin", "set-role", "worker@example.com", "king")
    assert "The owner permission cannot be removed from the only organization owner." in failure(
        db, "admin", "set-role", "boss@example.com", "admin"
    )
    assert "No user with email 'nobody@example.com'" in failure(
        db, "admin", "set-role", "nobody@example.com", "member"
    )


def test_deactivate_and_reactivate(db: Path) -> None:
    cli(db, "admin", "deactivate-user", "worker@example.com")
    assert users(db)["worker@example.com"]["is_active"] is False
    assert "User is deactivated" in failure(db, "admin", "deactivate-user", "worker@example.com")
    cli(db, "admin", "reactivate-user", "worker@example.com")
    assert users(db)["worker@example.com"]["is_active"] is True
    assert "User is already active." in failure(
        db, "admin", "reactivate-user", "worker@example.com"
    )
    assert "Cannot deactivate the only organization owner" in failure(
        db, "admin", "deactivate-user", "boss@example.com"
    )


def test_defaults_set_and_show(db: Path) -> None:
    shown = json.loads(cli(db, "admin", "defaults", "show", "--json").stdout)
    assert shown["twenty_four_hour_time"] is False and "default_language" not in shown
    cli(db, "admin", "defaults", "set", "twenty_four_hour_time", "true")
    cli(db, "admin", "defaults", "set", "email_address_visibility", "4")
    cli(db, "admin", "defaults", "set", "web_home_view", "recent")
    shown = json.loads(cli(db, "admin", "defaults", "show", "--json").stdout)
    assert shown["twenty_four_hour_time"] is True and shown["web_home_view"] == "recent"
    assert "email_address_visibility" in cli(db, "admin", "defaults", "show").stdout
    cases = [
        (("color_scheme", "9"), "Invalid color_scheme"),
        (("enter_sends", "maybe"), "enter_sends is not a boolean"),
        (("web_font_size_px", "big"), "web_font_size_px is not an integer"),
        (
            ("web_home_view", "nowhere"),
            "Invalid web_home_view: Value error, Not in the list of possible values",
        ),
        (("default_language", "de"), "unknown setting 'default_language'"),
        (("bogus", "1"), "unknown setting 'bogus'"),
    ]
    for args, msg in cases:
        assert msg in failure(db, "admin", "defaults", "set", *args)
    cli(
        db,
        "admin",
        "create-user",
        "--email",
        "newbie@example.com",
        "--full-name",
        "Newbie",
        "--password",
        "pw-123456",
    )
    with sqlite3.connect(db) as conn:
        visibility, settings = conn.execute(
            "SELECT email_address_visibility, settings_json FROM users WHERE delivery_email = ?",
            ("newbie@example.com",),
        ).fetchone()
        old = conn.execute(
            "SELECT email_address_visibility FROM users WHERE delivery_email = 'worker@example.com'"
        ).fetchone()
    assert visibility == 4 and json.loads(settings)["twenty_four_hour_time"] is True
    assert old == (1,)


def test_deactivation_from_the_cli_locks_out_a_live_client(start_server) -> None:  # type: ignore[no-untyped-def]
    proc = start_server()
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        owner.ok("POST", "/users", email="live@example.com", password="pw-123456", full_name="Live")
        with Api(proc.url) as anonymous:
            key = anonymous.ok(
                "POST", "/fetch_api_key", username="live@example.com", password="pw-123456"
            )["api_key"]
    with Api(proc.url, "live@example.com", key) as live:
        live.ok("GET", "/users/me")
        cli(proc.db, "admin", "deactivate-user", "live@example.com")
        assert_error(live.get("/users/me"), "Account is deactivated", "USER_DEACTIVATED", 401)

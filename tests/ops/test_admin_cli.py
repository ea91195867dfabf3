"""Issue 13's "Admin CLI without sharp edges": typed `realm set`, `--db` anywhere, one-line
errors for bad paths, no database created by reading, a private zuliprc, strong passwords."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from tests.support.api import Api, assert_error
from tests.support.server import ServerProcess, cli


def _teamchat(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "teamchat", *args],
        capture_output=True, text=True, timeout=60, cwd=cwd, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def _one_line_error(result: subprocess.CompletedProcess[str], text: str) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().count("\n") == 0, result.stderr
    assert text in " ".join(result.stderr.split()), result.stderr


def test_realm_set_prints_the_stored_value_and_parses_by_type(
    server: ServerProcess, owner: Api
) -> None:
    result = cli(server.db, "admin", "realm", "set", "name", "Acme Chat")
    assert 'name = "Acme Chat"' in result.stdout
    assert owner.ok("GET", "/server_settings")["realm_name"] == "Acme Chat"
    quoted = cli(server.db, "admin", "realm", "set", "name", '"Acme Chat 2"')
    assert 'name = "Acme Chat 2"' in quoted.stdout
    group = cli(server.db, "admin", "realm", "set", "can_invite_users_group", "role:moderators")
    assert 'can_invite_users_group = "role:moderators"' in group.stdout
    off = cli(server.db, "admin", "realm", "set", "enable_read_receipts", "no")
    assert "enable_read_receipts = false" in off.stdout
    none = cli(server.db, "admin", "realm", "set", "signup_announcements_stream_id", "-1")
    assert "signup_announcements_stream_id = -1" in none.stdout
    channel = cli(server.db, "admin", "realm", "set", "signup_announcements_stream_id", "general")
    general = owner.ok("GET", "/get_stream_id", stream="general")["stream_id"]
    assert f"signup_announcements_stream_id = {general}" in channel.stdout
    for args, message in (
        (["waiting_period_threshold", "-5"], "waiting_period_threshold is too small"),
        (["enable_read_receipts", "maybe"], "enable_read_receipts: 'maybe' is not a valid value"),
        (["can_invite_users_group", "wizards"], "accepted: a group name: role:administrators"),
        (["giphy_rating", "x"], "giphy_rating: 'x' is not a valid value (accepted: 0 to 5)"),
        (["bogus", "1"], "unknown setting 'bogus'"),
    ):
        _one_line_error(cli(server.db, "admin", "realm", "set", *args, check=False), message)
    cli(server.db, "admin", "realm", "set", "can_invite_users_group", "role:members")
    cli(server.db, "admin", "realm", "set", "enable_read_receipts", "true")


def test_db_option_after_the_subcommand(server: ServerProcess) -> None:
    result = _teamchat("admin", "list-users", "--json", "--db", str(server.db))
    assert result.returncode == 0, result.stderr
    assert any(u["role"] == "owner" for u in json.loads(result.stdout))
    result = _teamchat("admin", "realm", "show", f"--db={server.db}", "--json")
    assert result.returncode == 0 and "waiting_period_threshold" in result.stdout


def test_bad_database_paths_are_one_line_and_create_nothing(tmp_path: Path) -> None:
    _one_line_error(
        _teamchat("--db", str(tmp_path / "missing" / "x.db"), "admin", "list-users"),
        "directory " + str(tmp_path / "missing") + " does not exist",
    )
    _one_line_error(
        _teamchat("--db", str(tmp_path / "missing" / "x.db"), "serve"), "does not exist"
    )
    for args in (["admin", "list-users"], ["admin", "realm", "show"], ["admin", "groups"]):
        _one_line_error(_teamchat("--db", "typo.db", *args, cwd=tmp_path), "no database at")
    assert list(tmp_path.iterdir()) == []


def test_zuliprc_output_is_private(server: ServerProcess, tmp_path: Path) -> None:
    target = tmp_path / "zuliprc"
    target.write_text("old")
    os.chmod(target, 0o644)
    cli(server.db, "admin", "zuliprc", server.owner_email, "--output", str(target))
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert f"key={server.owner_key}" in target.read_text()


def test_weak_passwords_are_refused_everywhere(server: ServerProcess, owner: Api) -> None:
    weak = owner.post("/users", email="weak@example.com", password="password", full_name="Weak")
    assert_error(weak, "The password is too weak.", "BAD_REQUEST", 400)
    result = cli(server.db, "admin", "set-password", server.owner_email, "--password", "password",
                 check=False)  # fmt: skip
    _one_line_error(result, "The password is too weak.")
    state = owner.ok("POST", "/register", fetch_event_types=["realm"])
    assert (state["password_min_length"], state["password_min_guesses"]) == (6, 10000)

"""`teamchat admin invite|realm|groups|linkifiers` against the session server's database."""

from __future__ import annotations

import json
import re

import httpx

from tests.support.api import Api
from tests.support.server import ServerProcess, cli


def test_invite_prints_a_working_link(server: ServerProcess, owner: Api) -> None:
    result = cli(server.db, "admin", "invite", "--role", "moderator", "--site", server.url)
    link = result.stdout.strip()
    assert re.fullmatch(rf"{re.escape(server.url)}/join/[a-z0-9]+/", link), result.stdout
    page = httpx.get(link, timeout=30)
    assert page.status_code == 200 and 'name="full_name"' in page.text
    entry = next(i for i in owner.ok("GET", "/invites")["invites"] if i.get("link_url") == link)
    assert entry["invited_as"] == 300 and entry["expiry_date"] is not None
    never = cli(server.db, "admin", "invite", "--expires-in-minutes", "never", "--site", server.url)
    entry = next(
        i
        for i in owner.ok("GET", "/invites")["invites"]
        if i.get("link_url") == never.stdout.strip()
    )
    assert entry["expiry_date"] is None


def test_invite_with_channels_and_errors(server: ServerProcess, owner: Api) -> None:
    owner.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": "cli channel"}])
    result = cli(server.db, "admin", "invite", "--channel", "cli channel", "--site", server.url)
    assert "/join/" in result.stdout
    for args, message in (
        (["--channel", "no such channel"], "Channel 'no such channel' does not exist"),
        (["--role", "emperor"], "unknown role 'emperor'"),
        (["--expires-in-minutes", "soon"], "--expires-in-minutes takes a number"),
    ):
        failed = cli(server.db, "admin", "invite", *args, check=False)
        stderr = " ".join(failed.stderr.split())  # rich wraps long lines
        assert failed.returncode == 1 and message in stderr, failed.stderr


def test_realm_show_and_set(server: ServerProcess, owner: Api) -> None:
    shown = json.loads(cli(server.db, "admin", "realm", "show", "--json").stdout)
    assert shown["can_mention_many_users_group"] == "role:administrators"
    assert shown["waiting_period_threshold"] == 0
    cli(server.db, "admin", "realm", "set", "description", "Set from the shell")
    cli(server.db, "admin", "realm", "set", "can_mention_many_users_group", "role:moderators")
    cli(server.db, "admin", "realm", "set", "message_content_edit_limit_seconds", '"unlimited"')
    state = owner.ok("POST", "/register", fetch_event_types=["realm"])
    assert state["realm_description"] == "<p>Set from the shell</p>"
    assert state["realm_message_content_edit_limit_seconds"] is None
    shown = json.loads(cli(server.db, "admin", "realm", "show", "--json").stdout)
    assert shown["can_mention_many_users_group"] == "role:moderators"
    table = cli(server.db, "admin", "realm", "show").stdout
    assert "can_mention_many_users_group" in table
    for args, message in (
        (["allow_message_editing", "maybe"], "allow_message_editing: 'maybe' is not a valid value"),
        (["name", "x" * 41], "name is too long (limit: 40 characters)"),
        (["bogus_setting", "1"], "unknown setting 'bogus_setting'"),
        (["can_create_public_channel_group", "role:everyone"], "cannot be set to 'role:everyone'"),
    ):
        failed = cli(server.db, "admin", "realm", "set", *args, check=False)
        stderr = " ".join(failed.stderr.split())  # rich wraps long lines
        assert failed.returncode == 1 and message in stderr, failed.stderr
    cli(server.db, "admin", "realm", "set", "can_mention_many_users_group", "role:administrators")
    cli(server.db, "admin", "realm", "set", "message_content_edit_limit_seconds", "600")
    cli(server.db, "admin", "realm", "set", "description", "")


def test_groups_and_linkifiers_listings(server: ServerProcess, owner: Api) -> None:
    owner.ok("POST", "/user_groups/create", name="cli listed", description="", members=[])
    owner.ok("POST", "/realm/filters", pattern="CLI-(?P<n>[0-9]+)", url_template="https://cli/{n}")
    groups = json.loads(cli(server.db, "admin", "groups", "--json").stdout)
    names = {g["name"] for g in groups}
    assert {"role:owners", "role:nobody", "cli listed"} <= names
    assert "cli listed" in cli(server.db, "admin", "groups").stdout
    linkifiers = json.loads(cli(server.db, "admin", "linkifiers", "--json").stdout)
    assert {"pattern": "CLI-(?P<n>[0-9]+)", "url_template": "https://cli/{n}"} in [
        {k: v for k, v in item.items() if k != "id"} for item in linkifiers
    ]
    assert "CLI-" in cli(server.db, "admin", "linkifiers").stdout

"""`teamchat admin` covers the daily tasks (channels, group membership, invitations, a
user's settings) through the same actions as the API, and live clients see the changes."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import httpx

from tests.support.api import Api
from tests.support.server import ServerProcess, cli


def _names(api: Api) -> set[str]:
    return {s["name"] for s in api.ok("GET", "/users/me/subscriptions")["subscriptions"]}


def test_channel_create_subscribe_archive(
    server: ServerProcess, owner: Api, make_user: Callable[..., Api]
) -> None:
    first, second = make_user(full_name="Chan One"), make_user(full_name="Chan Two")
    cli(server.db, "admin", "channel-create", "cli made", first.email, "--description", "*hi*")
    assert "cli made" in _names(first) and "cli made" not in _names(second)
    cli(server.db, "admin", "subscribe", "cli made", second.email)
    assert "cli made" in _names(second)
    listed = json.loads(cli(server.db, "admin", "channels", "--json").stdout)
    entry = next(c for c in listed if c["name"] == "cli made")
    assert entry["subscribers"] == 2 and entry["description"] == "*hi*"
    again = cli(server.db, "admin", "channel-create", "cli made", check=False)
    assert again.returncode == 1 and "already exists" in again.stderr
    cli(server.db, "admin", "channel-archive", "cli made")
    stream = owner.ok("GET", f"/streams/{entry['stream_id']}")["stream"]
    assert stream["is_archived"] is True
    missing = cli(server.db, "admin", "subscribe", "no such", first.email, check=False)
    assert missing.returncode == 1 and "does not exist" in missing.stderr


def test_group_membership(server: ServerProcess, owner: Api, make_user: Callable[..., Api]) -> None:
    member = make_user(full_name="Group Joiner")
    group_id = owner.ok("POST", "/user_groups/create", name="cli crew", description="", members=[])[
        "group_id"
    ]
    cli(server.db, "admin", "group-add", "cli crew", member.email)
    members = owner.ok("GET", f"/user_groups/{group_id}/members")["members"]
    assert member.user_id in members  # type: ignore[attr-defined]
    cli(server.db, "admin", "group-remove", "cli crew", member.email)
    assert owner.ok("GET", f"/user_groups/{group_id}/members")["members"] == []
    system = cli(server.db, "admin", "group-add", "role:owners", member.email, check=False)
    assert system.returncode == 1 and "No user group named" in system.stderr


def test_list_and_revoke_invitations(server: ServerProcess, owner: Api) -> None:
    link = cli(server.db, "admin", "invite", "--site", server.url).stdout.strip()
    listed = json.loads(cli(server.db, "admin", "invites", "--json", "--site", server.url).stdout)
    entry = next(i for i in listed if i.get("link_url") == link)
    assert "link" in cli(server.db, "admin", "invites").stdout
    cli(server.db, "admin", "revoke-invite", str(entry["id"]), "--link")
    assert httpx.get(link, timeout=30).status_code == 404
    again = cli(server.db, "admin", "revoke-invite", str(entry["id"]), "--link", check=False)
    assert again.returncode == 1 and "already been revoked" in again.stderr


def test_show_and_set_a_users_settings(
    server: ServerProcess, make_user: Callable[..., Api]
) -> None:
    member = make_user(full_name="Settings Person")
    shown = json.loads(
        cli(server.db, "admin", "user-settings", "show", member.email, "--json").stdout
    )
    assert shown["enter_sends"] is False
    cli(server.db, "admin", "user-settings", "set", member.email, "enter_sends", "true")
    assert member.ok("POST", "/register", fetch_event_types=["user_settings"])["user_settings"][
        "enter_sends"
    ]
    bad = cli(
        server.db, "admin", "user-settings", "set", member.email, "enter_sends", "x", check=False
    )
    assert bad.returncode == 1 and "not a boolean" in bad.stderr
    # Personal settings that realm defaults do not have are settable too.
    cli(
        server.db,
        "admin",
        "user-settings",
        "set",
        member.email,
        "allow_private_data_export",
        "true",
    )
    assert member.ok("POST", "/register", fetch_event_types=["user_settings"])["user_settings"][
        "allow_private_data_export"
    ]
    unknown = cli(
        server.db, "admin", "user-settings", "set", member.email, "no_such", "1", check=False
    )
    assert unknown.returncode == 1 and "unknown setting 'no_such'" in unknown.stderr


def test_access_log_names_users_by_email_and_marks_long_polls(
    start_server: Callable[..., ServerProcess],
) -> None:
    proc = start_server(env={"TEAMCHAT_HEARTBEAT_SECS": "0.2"})
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        queue = owner.ok("POST", "/register", event_types=["message"])
        owner.ok("GET", "/events", queue_id=queue["queue_id"], last_event_id=-1)
        owner.ok("GET", "/events", queue_id=queue["queue_id"], dont_block=True)
    time.sleep(0.3)
    lines = [line for line in proc.log().splitlines() if "GET /api/v1/events" in line]
    assert len(lines) == 2, lines
    assert all(f"user={proc.owner_email}" in line for line in lines)
    assert lines[0].endswith("long-poll") and not lines[1].endswith("long-poll")

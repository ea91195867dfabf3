"""A fresh `teamchat serve` starts like a new Zulip organization, and the README's own
examples work against it as written."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.support.api import Api
from tests.support.server import ServerProcess

STARTER_CHANNELS = {"general", "sandbox", "Zulip"}


def _readme_commands(prefix: str) -> list[str]:
    """Every command in README.md that starts with `prefix`, as written there."""
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    found = []
    for chunk in readme.split("`"):
        if chunk.startswith(prefix):
            found.append(chunk)
    return found


def test_fresh_organization_has_zulips_starting_channels_and_messages(
    start_server: Callable[..., ServerProcess],
) -> None:
    proc = start_server()
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        me = owner.ok("GET", "/users/me")
        streams = {s["name"]: s for s in owner.ok("GET", "/streams")["streams"]}
        assert set(streams) == STARTER_CHANNELS
        subscriptions = owner.ok("GET", "/users/me/subscriptions")["subscriptions"]
        subscribed = {s["name"] for s in subscriptions}
        assert subscribed == STARTER_CHANNELS
        state = owner.ok("POST", "/register", fetch_event_types=["realm", "default_streams"])
        assert {d for d in state["realm_default_streams"]} == {
            s["stream_id"] for s in streams.values()
        }
        general = streams["general"]["stream_id"]
        assert state["realm_new_stream_announcements_stream_id"] == general
        assert state["realm_zulip_update_announcements_stream_id"] == general
        messages = owner.ok(
            "GET", "/messages", anchor="oldest", num_before=0, num_after=20, narrow=[]
        )["messages"]
        channels = {m["display_recipient"] for m in messages if m["type"] == "stream"}
        assert channels == STARTER_CHANNELS
        assert all(m["sender_email"].startswith("welcome-bot@") for m in messages)
        dms = [m for m in messages if m["type"] == "private"]
        assert len(dms) == 1 and "welcome" in dms[0]["content"].lower()
        assert me["user_id"] in {r["id"] for r in dms[0]["display_recipient"]}
    assert "Next:" in proc.first_output and "zulip-send --config-file" in proc.first_output
    shown = proc.db if isinstance(proc.db, str) else proc.db.resolve()  # a URL, or the file
    assert f"database {shown}" in proc.first_output


def test_readme_zulip_send_example_works_on_a_fresh_server(
    start_server: Callable[..., ServerProcess],
) -> None:
    proc = start_server()
    commands = _readme_commands("zulip-send ")
    assert commands, "README.md shows no zulip-send example"
    script_dir = Path(sys.executable).parent
    for command in commands:
        program, *args = command.split()
        result = subprocess.run(
            [str(script_dir / program), *args],
            cwd=proc.directory,  # the zuliprc is written next to the database
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stdout + result.stderr
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        newest = owner.ok(
            "GET", "/messages", anchor="newest", num_before=1, num_after=0,
            narrow=[], apply_markdown=False,
        )["messages"][-1]  # fmt: skip
    assert (newest["display_recipient"], newest["subject"], newest["content"]) == (
        "general",
        "hello",
        "hi",
    )

"""`teamchat admin invite`: the default channels unless `--no-default-channels`, and every
`--channel`, are what a person who signs up with the printed link joins."""

from __future__ import annotations

import re
import time

from tests.support import web
from tests.support.api import Api
from tests.support.server import ServerProcess, cli


def joined_channels(server: ServerProcess, link: str) -> set[int]:
    email = f"cli{time.time_ns()}@example.com"
    page = web.join(link, email=email, full_name="Cli Invitee", password="a-good-pass")
    key = re.search(r'<code id="api_key">([^<]+)</code>', page.text)
    assert key, page.text
    with Api(server.url, email, key.group(1)) as person:
        subs = person.ok("GET", "/users/me/subscriptions")["subscriptions"]
    return {int(s["stream_id"]) for s in subs}


def channel_id(owner: Api, name: str) -> int:
    owner.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": name}])
    return int(owner.ok("GET", "/get_stream_id", stream=name)["stream_id"])


def test_invite_joins_default_channels_unless_told_not_to(
    server: ServerProcess, owner: Api
) -> None:
    stamp = time.time_ns()
    default = channel_id(owner, f"cli default {stamp}")
    first, second = channel_id(owner, f"cli one {stamp}"), channel_id(owner, f"cli two {stamp}")
    owner.ok("POST", "/default_streams", stream_id=default)
    try:
        link = cli(server.db, "admin", "invite", "--site", server.url).stdout.strip()
        joined = joined_channels(server, link)
        assert default in joined and first not in joined and second not in joined

        args = ["--channel", f"cli one {stamp}", "--channel", f"cli two {stamp}"]
        link = cli(server.db, "admin", "invite", *args, "--site", server.url).stdout.strip()
        assert {default, first, second} <= joined_channels(server, link)

        link = cli(
            server.db, "admin", "invite", "--no-default-channels", *args, "--site", server.url
        ).stdout.strip()
        assert joined_channels(server, link) == {first, second}

        link = cli(
            server.db, "admin", "invite", "--no-default-channels", "--site", server.url
        ).stdout.strip()
        assert joined_channels(server, link) == set()
    finally:
        owner.ok("DELETE", "/default_streams", stream_id=default)


def test_invite_help_names_the_flags(server: ServerProcess) -> None:
    shown = " ".join(cli(server.db, "admin", "invite", "--help").stdout.split())
    assert "--no-default-channels" in shown and "--channel" in shown

"""Every way an account is made starts it from the realm's defaults: its settings and
(for POST /users and the CLI, as Zulip's do_create_user) the default channels."""

from __future__ import annotations

import re

from tests.conftest import TEST_PASSWORD
from tests.support import web
from tests.support.api import Api
from tests.support.server import cli


def _subscribed_names(api: Api) -> set[str]:
    return {s["name"] for s in api.ok("GET", "/users/me/subscriptions")["subscriptions"]}


def test_new_accounts_start_from_realm_defaults(start_server) -> None:  # type: ignore[no-untyped-def]
    proc = start_server()
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        owner.ok("PATCH", "/realm/user_settings_defaults", enter_sends=True)
        owner.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": "lobby"}])
        lobby = owner.ok("GET", "/get_stream_id", stream="lobby")["stream_id"]
        owner.ok("POST", "/default_streams", stream_id=lobby)
        # Through the API.
        owner.ok(
            "POST",
            "/users",
            email="api-made@example.com",
            password=TEST_PASSWORD,
            full_name="API Made",
        )
        with Api(proc.url) as anonymous:
            key = anonymous.ok(
                "POST", "/fetch_api_key", username="api-made@example.com", password=TEST_PASSWORD
            )["api_key"]
        with Api(proc.url, "api-made@example.com", key) as made:
            assert "lobby" in _subscribed_names(made)
            state = made.ok(
                "POST",
                "/register",
                fetch_event_types=["user_settings"],
                client_capabilities={"user_settings_object": True},
            )
            assert state["user_settings"]["enter_sends"] is True
        # Through the CLI.
        out = cli(
            proc.db,
            "admin",
            "create-user",
            "--email",
            "cli-made@example.com",
            "--full-name",
            "CLI Made",
            "--password",
            TEST_PASSWORD,
        ).stdout
        with Api(proc.url, "cli-made@example.com", out.split("api_key=")[1].strip()) as made:
            assert "lobby" in _subscribed_names(made)
        # Through an invitation link that leaves out the default channels.
        link = owner.ok("POST", "/invites/multiuse")["invite_link"]
    response = web.join(
        link, email="joined@example.com", full_name="Joined", password=TEST_PASSWORD
    )
    key = re.search(r'<code id="api_key">([^<]+)</code>', response.text)
    assert key, response.text
    with Api(proc.url, "joined@example.com", key.group(1)) as joined:
        state = joined.ok(
            "POST",
            "/register",
            fetch_event_types=["user_settings"],
            client_capabilities={"user_settings_object": True},
        )
        assert state["user_settings"]["enter_sends"] is True
        assert "lobby" not in _subscribed_names(joined)

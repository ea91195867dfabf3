"""Authenticated requests reuse the user they authenticated last time (issue 10); any change
to that user or the realm, by this server or by another process (the admin CLI), is seen by
the next request."""

from __future__ import annotations

from collections.abc import Callable

from tests.people.test_bots import create_bot, short
from tests.support.api import Api, assert_error
from tests.support.server import ServerProcess, cli


def test_a_regenerated_bot_key_is_refused_at_once(
    server: ServerProcess, make_user: Callable[..., Api]
) -> None:
    creator = make_user(full_name="Cache Keeper")
    name = short()
    bot = create_bot(creator, short_name=name)
    host = creator.ok("POST", "/register", fetch_event_types=["realm"])["realm_bot_domain"]
    with Api(server.url, f"{name}-bot@{host}", bot["api_key"]) as old:
        for _ in range(3):  # authenticated again and again: cached
            assert old.ok("GET", "/users/me")["user_id"] == bot["user_id"]
        creator.ok("POST", f"/bots/{bot['user_id']}/api_key/regenerate")
        assert_error(old.get("/users/me"), "Invalid API key", "UNAUTHORIZED", 401)


def test_deactivation_and_role_changes_apply_to_the_next_request(
    server: ServerProcess, owner: Api, make_user: Callable[..., Api]
) -> None:
    member = make_user(full_name="Cached Member")
    me = member.ok("GET", "/users/me")
    assert me["role"] == 400
    # An administrator-only change, refused, then allowed the moment the role changes.
    assert_error(
        member.post(
            "/realm/filters", pattern="#(?P<id>[0-9]+)", url_template="https://x.test/{id}"
        ),
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
    )
    owner.ok("PATCH", f"/users/{me['user_id']}", role=200)
    filter_id = member.ok(
        "POST", "/realm/filters", pattern="#(?P<id>[0-9]+)", url_template="https://x.test/{id}"
    )["id"]
    owner.ok("DELETE", f"/realm/filters/{filter_id}")
    owner.ok("DELETE", f"/users/{me['user_id']}")
    assert_error(member.get("/users/me"), "Account is deactivated", "USER_DEACTIVATED", 401)


def test_the_admin_cli_deactivating_a_user_applies_to_the_next_request(
    server: ServerProcess, make_user: Callable[..., Api]
) -> None:
    member = make_user(full_name="Cli Leaver")
    member.ok("GET", "/users/me")
    member.ok("GET", "/users/me")  # cached
    cli(server.db, "admin", "deactivate-user", member.email)
    assert_error(member.get("/users/me"), "Account is deactivated", "USER_DEACTIVATED", 401)

"""Password guessing is limited per account (whatever alias names it), per unknown username
and per client IP; the old-password check of PATCH /settings counts against the same limit."""

from __future__ import annotations

from teamchat.actions.people.password_checks import client_limit_key
from teamchat.lib.ratelimit import SWEEP_AT_KEYS, RateLimiter
from tests.conftest import TEST_PASSWORD, unique_email
from tests.support import rawdb
from tests.support.api import Api, assert_error, assert_success
from tests.support.server import ServerProcess


def login(proc: ServerProcess, username: str, password: str, ip: str = "10.0.0.1"):  # type: ignore[no-untyped-def]
    # uvicorn trusts X-Forwarded-For from 127.0.0.1 (a local reverse proxy), as in production.
    with Api(proc.url) as anonymous:
        anonymous.http.headers["X-Forwarded-For"] = ip
        return anonymous.post("/fetch_api_key", username=username, password=password)


def assert_failed(response) -> None:  # type: ignore[no-untyped-def]
    assert_error(response, "Your username or password is incorrect", "AUTHENTICATION_FAILED", 401)


def assert_limited(response) -> None:  # type: ignore[no-untyped-def]
    body = assert_error(response, "API usage exceeded rate limit", "RATE_LIMIT_HIT", 429)
    assert body["retry-after"] > 0 and int(response.headers["retry-after"]) >= 1


def password_hash(proc: ServerProcess, email: str) -> str:
    query = "SELECT password_hash FROM users WHERE delivery_email = ?"
    return str(rawdb.value(proc.db, query, (email,)))


def realm_host(proc: ServerProcess) -> str:
    return str(rawdb.value(proc.db, "SELECT host FROM realm"))


def member(proc: ServerProcess) -> tuple[str, int, str]:
    """Create a member whose password is TEST_PASSWORD: (email, user_id, api_key)."""
    email = unique_email()
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        user_id = owner.ok("POST", "/users", email=email, password=TEST_PASSWORD, full_name="M")[
            "user_id"
        ]
    body = assert_success(login(proc, email, TEST_PASSWORD, ip="10.200.0.1"))
    return email, int(user_id), str(body["api_key"])


def test_every_name_of_an_account_shares_one_failure_counter(start_server) -> None:  # type: ignore[no-untyped-def]
    proc = start_server(env={"TEAMCHAT_AUTH_RATE_LIMIT": "3/600"})
    email, user_id, _ = member(proc)
    alias = f"user{user_id}@{realm_host(proc)}"
    for username in (email, f"  {email.upper()} ", alias):
        assert_failed(login(proc, username, "wrong-guess"))
    # Locked: the right password through any name waits out the limit.
    for username in (email, alias, alias.upper()):
        assert_limited(login(proc, username, TEST_PASSWORD))


def test_only_the_canonical_alias_names_an_account(start_server) -> None:  # type: ignore[no-untyped-def]
    proc = start_server(env={"TEAMCHAT_AUTH_RATE_LIMIT": "100/600"})
    _, user_id, _ = member(proc)
    host = realm_host(proc)
    body = assert_success(login(proc, f"user{user_id}@{host}", TEST_PASSWORD))
    assert body["user_id"] == user_id
    arabic_indic = "".join(chr(0x0660 + int(d)) for d in str(user_id))
    for local in (f"user0{user_id}", f"user00{user_id}", f"user{arabic_indic}", "user\u00b2"):
        # Not an account: a correct password through a non-canonical alias never succeeds.
        assert_failed(login(proc, f"{local}@{host}", TEST_PASSWORD))


def test_unknown_usernames_count_as_typed_after_normalizing(start_server) -> None:  # type: ignore[no-untyped-def]
    proc = start_server(env={"TEAMCHAT_AUTH_RATE_LIMIT": "3/600"})
    for username in ("ghost@example.com", " GHOST@example.com", "Ghost@Example.COM  "):
        assert_failed(login(proc, username, "guess"))
    assert_limited(login(proc, "ghost@example.com", "guess"))
    assert_failed(login(proc, "other-ghost@example.com", "guess"))


def test_failures_from_one_ip_across_usernames_are_limited(start_server) -> None:  # type: ignore[no-untyped-def]
    proc = start_server(
        env={"TEAMCHAT_AUTH_RATE_LIMIT": "100/600", "TEAMCHAT_LOGIN_IP_RATE_LIMIT": "5/600"}
    )
    for n in range(5):
        assert_failed(login(proc, f"sprayed{n}@example.com", "Summer2026!", ip="10.9.9.9"))
    assert_limited(login(proc, "sprayed99@example.com", "Summer2026!", ip="10.9.9.9"))
    email, _, _ = member(proc)
    assert_limited(login(proc, email, TEST_PASSWORD, ip="10.9.9.9"))
    # Another client is not affected.
    assert_success(login(proc, email, TEST_PASSWORD, ip="10.1.1.1"))


def test_old_password_guesses_in_settings_are_limited(start_server) -> None:  # type: ignore[no-untyped-def]
    proc = start_server(env={"TEAMCHAT_AUTH_RATE_LIMIT": "3/600"})
    email, _, api_key = member(proc)
    before = password_hash(proc, email)
    with Api(proc.url, email, api_key) as owner:
        for _ in range(3):
            wrong = owner.patch("/settings", old_password="guess", new_password="N3w-password-x")
            assert_error(wrong, "Wrong password!")
        right = owner.patch("/settings", old_password=TEST_PASSWORD, new_password="N3w-password-x")
        body = assert_error(right, None)
        assert body["msg"].startswith("You're making too many attempts! Try again in ")
        assert body["msg"].endswith(" seconds.")
    assert password_hash(proc, email) == before
    # The same counter guards the log-in.
    assert_limited(login(proc, email, TEST_PASSWORD))


def test_rate_limiter_forgets_idle_keys_when_it_grows() -> None:
    now = [0.0]
    limiter = RateLimiter(1, 10, lambda: now[0])
    for n in range(SWEEP_AT_KEYS):
        limiter.hit(f"sprayed{n}")
    assert limiter.retry_after("sprayed0") is not None
    now[0] = 11.0
    limiter.hit("late")
    assert len(limiter._hits) == 1


def test_client_key_groups_an_ipv6_network_and_unmaps_ipv4() -> None:
    assert client_limit_key("203.0.113.7") == "203.0.113.7"
    assert client_limit_key("2001:db8:1:2:aaaa::1") == client_limit_key("2001:db8:1:2:bbbb::9")
    assert client_limit_key("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert client_limit_key("2001:db8:1:3::1") != client_limit_key("2001:db8:1:2::1")
    assert client_limit_key("::ffff:203.0.113.7") == "203.0.113.7"
    assert client_limit_key("testclient") == "testclient"

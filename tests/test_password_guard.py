"""Password budgets hold under concurrency: every password check (API log-in, the web log-in
form, the old password of PATCH /settings, the API key page) reserves its attempt before
argon2 runs, so a burst of simultaneous guesses gets no more verifications than the budget;
`teamchat admin unlock` and a new password lift a lock, also from another process."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import pytest

from teamchat.actions.org import realm
from teamchat.actions.people import auth, password_checks, users
from teamchat.config import RateLimit, Settings
from teamchat.errors import AuthenticationFailedError, RateLimitedError
from teamchat.lib.password_guard import PasswordGuard
from teamchat.runtime import Runtime
from tests.conftest import TEST_PASSWORD, unique_email
from tests.support.api import Api, assert_error, assert_success
from tests.support.server import ServerProcess, cli
from tests.support.web import browser, log_in

BUDGET = 5
BURST = 30


def member(proc: ServerProcess) -> tuple[str, str]:
    email = unique_email("guard")
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        owner.ok("POST", "/users", email=email, password=TEST_PASSWORD, full_name="Guarded")
    with Api(proc.url) as anonymous:
        key = anonymous.ok("POST", "/fetch_api_key", username=email, password=TEST_PASSWORD)
    return email, str(key["api_key"])


async def burst(
    send: Callable[[httpx.AsyncClient], Awaitable[httpx.Response]],
) -> list[httpx.Response]:
    """BURST requests released together by a barrier; their responses."""
    barrier = asyncio.Barrier(BURST)
    limits = httpx.Limits(max_connections=BURST)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:

        async def one() -> httpx.Response:
            await barrier.wait()
            response = await send(client)
            await response.aread()
            return response

        return list(await asyncio.gather(*(one() for _ in range(BURST))))


@pytest.fixture
def guarded(start_server: Callable[..., ServerProcess]) -> ServerProcess:
    return start_server(env={"TEAMCHAT_AUTH_RATE_LIMIT": f"{BUDGET}/600"})


def test_a_burst_of_api_guesses_gets_no_more_verifications_than_the_budget(
    guarded: ServerProcess,
) -> None:
    email, _ = member(guarded)
    url = f"{guarded.url}/api/v1/fetch_api_key"
    codes = [
        r.status_code
        for r in asyncio.run(
            burst(lambda c: c.post(url, data={"username": email, "password": "wrong-guess"}))
        )
    ]
    # 401 = verified and wrong; 429 = refused before any verification.
    assert codes.count(401) <= BUDGET and codes.count(401) + codes.count(429) == BURST, codes
    with Api(guarded.url) as anonymous:
        for _ in range(BUDGET - codes.count(401)):  # what the burst left of the budget
            assert_error(
                anonymous.post("/fetch_api_key", username=email, password="wrong-guess"),
                "Your username or password is incorrect",
                "AUTHENTICATION_FAILED",
                401,
            )
        # Locked: the right password is refused too, until an administrator unlocks.
        limited = anonymous.post("/fetch_api_key", username=email, password=TEST_PASSWORD)
        body = assert_error(limited, "API usage exceeded rate limit", "RATE_LIMIT_HIT", 429)
        assert body["retry-after"] > 0 and int(limited.headers["retry-after"]) >= 1
        result = cli(guarded.db, "admin", "unlock", email)
        assert "Unlocked" in result.stdout
        assert_success(anonymous.post("/fetch_api_key", username=email, password=TEST_PASSWORD))


def test_a_burst_on_the_login_form_is_held_to_the_budget(guarded: ServerProcess) -> None:
    email, _ = member(guarded)
    url = f"{guarded.url}/login/"
    codes = [
        r.status_code
        for r in asyncio.run(
            burst(lambda c: c.post(url, data={"username": email, "password": "wrong-guess"}))
        )
    ]
    assert codes.count(401) <= BUDGET and codes.count(401) + codes.count(429) == BURST, codes
    with browser(guarded.url) as client:
        for _ in range(BUDGET - codes.count(401)):
            assert log_in(client, email, "wrong-guess").status_code == 401
        page = log_in(client, email, TEST_PASSWORD)
        assert page.status_code == 429
        # In words, not seconds.
        assert "try again in 10 minutes" in page.text, page.text
        assert "seconds" not in page.text and "sessionid" not in client.cookies
        # A new password set by an administrator also lifts the lock.
        cli(guarded.db, "admin", "set-password", email, "--password", "A-new-pass-phrase-9")
        assert log_in(client, email, "A-new-pass-phrase-9").status_code == 303


def test_a_burst_of_old_password_guesses_is_held_to_the_budget(guarded: ServerProcess) -> None:
    email, api_key = member(guarded)
    url = f"{guarded.url}/api/v1/settings"
    form = {"old_password": "wrong-guess", "new_password": "Br4nd-new-secret"}
    answers = asyncio.run(burst(lambda c: c.patch(url, data=form, auth=(email, api_key))))
    # Zulip answers both with 400 and its own words.
    messages = [r.json()["msg"] for r in answers if r.status_code == 400]
    assert len(messages) == BURST, [r.text for r in answers]
    wrong = messages.count("Wrong password!")
    assert wrong <= BUDGET, messages
    assert all(
        m == "Wrong password!" or m.startswith("You're making too many attempts! Try again in ")
        for m in messages
    )
    with Api(guarded.url, email, api_key) as me:
        for _ in range(BUDGET - wrong):
            assert_error(me.patch("/settings", **form), "Wrong password!")
        right = me.patch("/settings", old_password=TEST_PASSWORD, new_password="Br4nd-new-secret")
        assert_error(right, None)
        # The log-in shares the account's budget.
        with Api(guarded.url) as anonymous:
            assert_error(
                anonymous.post("/fetch_api_key", username=email, password=TEST_PASSWORD),
                "API usage exceeded rate limit",
                "RATE_LIMIT_HIT",
                429,
            )


async def test_verifications_never_exceed_the_budget_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(
        db_path=tmp_path / "g.db",
        auth_rate_limit=RateLimit(max_requests=BUDGET, window_secs=600),
        login_ip_rate_limit=RateLimit(max_requests=0, window_secs=1),
    )
    rt = await Runtime.open(settings)
    try:
        await realm.check_create_realm(
            rt, name="G", owner_email="o@example.com", owner_full_name="O",
            owner_password=TEST_PASSWORD,
        )  # fmt: skip
        verified = []
        real_verify = password_checks._verify

        def counting(user, password):  # type: ignore[no-untyped-def]
            verified.append(password)
            return real_verify(user, password)

        monkeypatch.setattr(password_checks, "_verify", counting)

        async def guess(password: str) -> str:
            try:
                await auth.fetch_api_key(rt, "o@example.com", password, "10.0.0.1")
            except RateLimitedError:
                return "limited"
            except AuthenticationFailedError:
                return "wrong"
            return "ok"

        results = await asyncio.gather(*(guess(f"guess-{n}") for n in range(BURST)))
        assert len(verified) <= BUDGET and results.count("wrong") == len(verified)
        # Sequential guesses fill the rest of the budget, then nothing more is verified.
        for n in range(BUDGET):
            await guess(f"late-{n}")
        assert len(verified) == BUDGET
        assert await guess(TEST_PASSWORD) == "limited"
        async with rt.db.read() as conn:
            owner = await users.find_user_by_email(conn, "o@example.com")
        assert owner is not None
        await password_checks.do_unlock(rt, owner)
        assert await guess(TEST_PASSWORD) == "ok"
    finally:
        await rt.close()


def test_guard_refuses_a_second_attempt_in_flight_and_counts_unknown_outcomes() -> None:
    now = [0.0]
    guard = PasswordGuard((3, 60), (0, 1), lambda: now[0])
    assert guard.reserve("user:1", "ip") is None
    assert guard.reserve("user:1", "ip") == 1.0  # the first is still being verified
    guard.settle("user:1", "ip", failed=True)
    for _ in range(2):
        assert guard.reserve("user:1", "ip") is None
        guard.settle("user:1", "ip", failed=True)
    wait = guard.reserve("user:1", "ip")
    assert wait is not None and 59 < wait <= 60
    now[0] = 61.0
    assert guard.reserve("user:1", "ip") is None
    guard.settle("user:1", "ip", failed=False)
    guard.sync("user:1", 1)  # cleared elsewhere: the failures are forgotten
    assert guard.reserve("user:1", "ip") is None


def test_client_budget_counts_attempts_in_flight() -> None:
    guard = PasswordGuard((0, 1), (2, 60), lambda: 0.0)
    assert guard.reserve("name:a", "10.0.0.1") is None
    assert guard.reserve("name:b", "10.0.0.1") is None
    assert guard.reserve("name:c", "10.0.0.1") is not None
    assert guard.reserve("name:c", "10.0.0.2") is None


def test_passwords_are_verified_in_one_place_only() -> None:
    """No module but password_checks calls argon2's verification: a new password check
    cannot bypass the budgets by calling it directly."""
    import ast

    package = Path(__file__).resolve().parents[1] / "teamchat"
    allowed = {package / "lib" / "passwords.py", package / "actions/people/password_checks.py"}
    callers = []
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text())
        names = {
            node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute | ast.Name)
        }
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
        }
        if ("verify_password" in names or "verify_password" in imported) and path not in allowed:
            callers.append(str(path.relative_to(package)))
    assert callers == [], callers

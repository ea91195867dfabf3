"""Authentication: HTTP Basic API keys and password log-in (POST /fetch_api_key)."""

from __future__ import annotations

import hmac
import re

from teamchat.actions.org.realm_deactivation import check_realm_active
from teamchat.actions.people import idle_users
from teamchat.actions.people.password_checks import check_password
from teamchat.actions.people.users import find_user_by_email
from teamchat.errors import (
    AuthenticationFailedError,
    InvalidAPIKeyError,
    RateLimitedError,
    UnauthorizedError,
    UserDeactivatedError,
    ZulipError,
)
from teamchat.lib.ratelimit import RateLimiter
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import users as store_users

# Cached successful API-key authentications (one per client credential in use); past this
# many the cache starts over rather than grow without bound.
_AUTH_CACHE_ENTRIES = 10_000


async def authenticate_api_key(rt: Runtime, username: str, api_key: str) -> UserRow:
    """The active user whose API email (or real email) and key match, else a 401 error."""
    user = cached_api_user(rt, username, api_key)
    if user is None:
        version = _auth_version(rt)  # before reading: a change meanwhile makes it stale
        async with rt.db.read() as conn:
            await check_realm_active(conn)
            user = await find_user_by_email(conn, username)
            idle = user is not None and await idle_users.is_idle(conn, user.id)
        if user is None or not hmac.compare_digest(user.api_key.encode(), api_key.encode()):
            raise InvalidAPIKeyError()
        if not user.is_active:
            raise UserDeactivatedError()
        if idle:  # back after a long time: what they missed is written first
            await idle_users.wake(rt, user.id)
        if version is not None:
            if len(rt.auth_cache) >= _AUTH_CACHE_ENTRIES:
                rt.auth_cache.clear()
            rt.auth_cache[(username, api_key)] = (version, user)
    check_api_rate_limit(rt, user)
    return user


_API_KEY_FORMAT = re.compile(r"[a-zA-Z0-9]{32}")


async def authenticate_webhook_key(rt: Runtime, api_key: str) -> UserRow:
    """The active user whose key this is (an integration URL carries only the key, no email),
    else Zulip's 401: "Malformed API key" or "Invalid API key"."""
    api_key = api_key.strip()
    if not _API_KEY_FORMAT.fullmatch(api_key):
        raise UnauthorizedError("Malformed API key")
    async with rt.db.read() as conn:
        await check_realm_active(conn)
        user = await store_users.get_user_by_api_key(conn, api_key)
    if user is None:
        raise InvalidAPIKeyError()
    if not user.is_active:
        raise UserDeactivatedError()
    await idle_users.wake_if_idle(rt, user.id)
    check_api_rate_limit(rt, user)
    return user


def cached_api_user(rt: Runtime, username: str, api_key: str) -> UserRow | None:
    """The user these credentials authenticated last time, if nothing they depend on (their
    user row, the realm) changed since; None means: authenticate through the database.
    Without the rate limit check (the caller makes it)."""
    cached = rt.auth_cache.get((username, api_key))
    if cached is None or cached[0] != _auth_version(rt):
        return None
    return cached[1]


def _auth_version(rt: Runtime) -> int | None:
    """The users, realm and idle_user tables' version (None: unknown now, see
    Database.versions); a user made idle is woken by their next authentication."""
    versions = rt.db.versions()
    # Every version only grows, so their sum grows whenever any does.
    if versions is None:
        return None
    return versions["users"] + versions["realm"] + versions["idle_user"]


async def dev_fetch_api_key(rt: Runtime, username: str) -> UserRow:
    """POST /dev_fetch_api_key: log in without a password, only where TEAMCHAT_DEV_AUTH is on
    (the sandbox); otherwise Zulip's error."""
    if not rt.settings.dev_auth:
        raise ZulipError("DevAuthBackend not enabled.")
    async with rt.db.read() as conn:
        await check_realm_active(conn)
        user = await find_user_by_email(conn, username.strip())
    if user is None:
        raise AuthenticationFailedError()
    if not user.is_active:
        raise UserDeactivatedError()
    return user


async def dev_list_users(rt: Runtime) -> list[UserRow]:
    """GET /dev_list_users: the active people one may log in as (dev auth only)."""
    if not rt.settings.dev_auth:
        raise ZulipError("DevAuthBackend not enabled.")
    async with rt.db.read() as conn:
        users = await store_users.list_users(conn, is_active=True)
    return [user for user in users if not user.is_bot]


def check_api_rate_limit(rt: Runtime, user: UserRow) -> None:
    key = str(user.id)
    _raise_if_limited(rt.api_limiter, key)
    rt.api_limiter.hit(key)


def refund_api_rate_limit(rt: Runtime, user: UserRow) -> None:
    """Give back the count `check_api_rate_limit` took for a request that is then answered
    again from the start (the lean path handing it to the route, which counts it once more)."""
    rt.api_limiter.unhit(str(user.id))


def _raise_if_limited(limiter: RateLimiter, key: str) -> None:
    retry_after = limiter.retry_after(key)
    if retry_after is not None:
        raise RateLimitedError(retry_after)


async def fetch_api_key(rt: Runtime, username: str, password: str, client_ip: str) -> UserRow:
    """Check a password log-in (POST /fetch_api_key, the web log-in form).

    Attempts are limited per account (or unknown username) and per client IP across
    usernames (see password_checks); a limited account is refused even with the right
    password.
    """
    async with rt.db.read() as conn:
        await check_realm_active(conn)
        user = await find_user_by_email(conn, username.strip())
    matches = await check_password(rt, user, password, username=username, client_ip=client_ip)
    if user is None or not matches:
        raise AuthenticationFailedError()
    if not user.is_active:
        raise UserDeactivatedError()
    await idle_users.wake_if_idle(rt, user.id)
    return user

"""Authentication: HTTP Basic API keys and password log-in (POST /fetch_api_key)."""

from __future__ import annotations

import asyncio
import functools
import hmac

from teamchat.actions.people.users import find_user_by_email
from teamchat.errors import (
    AuthenticationFailedError,
    InvalidAPIKeyError,
    RateLimitedError,
    UserDeactivatedError,
)
from teamchat.lib.passwords import hash_password, verify_password
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@functools.cache
def _dummy_hash() -> str:
    """Verified against when the username is unknown, so both failures cost the same time.
    Made on first use: an argon2 hash at import cost every start-up a tenth of a second."""
    return hash_password("not-a-real-password")


def _verify(user: UserRow | None, password: str) -> bool:
    """Check `password` (in a thread: argon2 is CPU-bound), costing the same without a user."""
    return verify_password(user.password_hash if user is not None else _dummy_hash(), password)


async def authenticate_api_key(rt: Runtime, username: str, api_key: str) -> UserRow:
    """The active user whose API email (or real email) and key match, else a 401 error."""
    async with rt.db.read() as conn:
        user = await find_user_by_email(conn, username)
    if user is None or not hmac.compare_digest(user.api_key.encode(), api_key.encode()):
        raise InvalidAPIKeyError()
    if not user.is_active:
        raise UserDeactivatedError()
    check_api_rate_limit(rt, user)
    return user


def check_api_rate_limit(rt: Runtime, user: UserRow) -> None:
    key = str(user.id)
    retry_after = rt.api_limiter.retry_after(key)
    if retry_after is not None:
        raise RateLimitedError(retry_after)
    rt.api_limiter.hit(key)


async def fetch_api_key(rt: Runtime, username: str, password: str) -> UserRow:
    """Check a password log-in; repeated failures for one username are rate limited."""
    limit_key = username.strip().lower()
    retry_after = rt.auth_limiter.retry_after(limit_key)
    if retry_after is not None:
        raise RateLimitedError(retry_after)
    async with rt.db.read() as conn:
        user = await find_user_by_email(conn, username.strip())
    matches = await asyncio.to_thread(_verify, user, password)
    if user is None or not matches:
        rt.auth_limiter.hit(limit_key)
        raise AuthenticationFailedError()
    if not user.is_active:
        raise UserDeactivatedError()
    return user

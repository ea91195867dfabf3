"""Browser log-in sessions of the built-in web client: log in, authenticate a cookie, log out.

A session ends on log-out, on expiry, when its user is deactivated and when the user's
password changes (the session remembers a fingerprint of the password hash it started with).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from teamchat.actions.org.realm_deactivation import check_realm_active
from teamchat.actions.people import idle_users
from teamchat.actions.people.auth import check_api_rate_limit, fetch_api_key
from teamchat.errors import SessionRequiredError, SessionUserDeactivatedError
from teamchat.records import UserRow, WebSessionRow
from teamchat.runtime import Runtime
from teamchat.store import users as store_users
from teamchat.store import web_sessions as store_sessions
from teamchat.store.db import Tx

# zulip-compat: Django's SESSION_COOKIE_AGE in Zulip, two weeks.
SESSION_AGE_SECS = 14 * 24 * 3600


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _fingerprint(user: UserRow) -> str:
    return _password_fingerprint(user.password_hash)


def _password_fingerprint(password_hash: str | None) -> str:
    return _sha256(password_hash or "")


async def do_create_session(rt: Runtime, user: UserRow) -> tuple[str, WebSessionRow]:
    """Start a session for `user`: (the cookie's token, the stored row). Drops expired ones."""
    token = secrets.token_urlsafe(32)
    now = rt.clock()
    session = WebSessionRow(
        key_hash=_sha256(token),
        user_id=user.id,
        csrf_token=secrets.token_urlsafe(32),
        auth_fingerprint=_fingerprint(user),
        created_at=now,
        expires_at=now + SESSION_AGE_SECS,
    )
    async with rt.db.write() as tx:
        await store_sessions.delete_expired(tx, now)
        await store_sessions.insert(tx, session)
    return token, session


async def log_in(
    rt: Runtime, username: str, password: str, client_ip: str
) -> tuple[str, WebSessionRow]:
    """Check a password as POST /fetch_api_key does (same rate limits), then start a session."""
    user = await fetch_api_key(rt, username, password, client_ip)
    return await do_create_session(rt, user)


async def authenticate_session(rt: Runtime, token: str) -> tuple[UserRow, WebSessionRow]:
    """The active user of a live session cookie and the session, else SessionRequiredError."""
    async with rt.db.read() as conn:
        await check_realm_active(conn)
        session = await store_sessions.get_session(conn, _sha256(token))
        user = await store_users.get_user_by_id(conn, session.user_id) if session else None
        idle = user is not None and await idle_users.is_idle(conn, user.id)
    if session is None or user is None or session.expires_at <= rt.clock():
        raise SessionRequiredError()
    if not hmac.compare_digest(session.auth_fingerprint, _fingerprint(user)):
        raise SessionRequiredError()
    if not user.is_active:
        raise SessionUserDeactivatedError()
    if idle:  # back after a long time: what they missed is written first
        await idle_users.wake(rt, user.id)
    check_api_rate_limit(rt, user)
    return user, session


async def do_delete_session(rt: Runtime, token: str) -> None:
    """End the session of `token` (log out); nothing happens for an unknown token."""
    async with rt.db.write() as tx:
        await store_sessions.delete_session(tx, _sha256(token))


async def keep_session(tx: Tx, token: str, user_id: int, password_hash: str) -> None:
    """Inside the password change's transaction: the session of `token` (if it is
    `user_id`'s) goes on with the new password; every other session of the user ends."""
    await store_sessions.update_fingerprint(
        tx, _sha256(token), user_id, _password_fingerprint(password_hash)
    )

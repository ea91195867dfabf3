"""Lost passwords (Zulip's /accounts/password/reset/ flow): a request emails a single-use link
that expires; the link's page sets a new password.

A request answers the same whatever the address: the lookup and the email happen in the
background, so neither the page nor its timing says whether the address has an account.
Setting the password spends every link of the account, forgives its failed attempts and ends
its web sessions; the API key stays.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
from dataclasses import dataclass

from teamchat import store
from teamchat.actions.org.mail import send_email
from teamchat.actions.people.password_checks import client_limit_key, password_changed
from teamchat.lib.passwords import hash_password, password_problem_explained
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import passwords as password_store

log = logging.getLogger(__name__)
# zulip-compat: Zulip's reset emails say the link expires in 24 hours.
RESET_LINK_VALIDITY_SECS = 24 * 3600
RESET_PATH = "/accounts/password/reset/"
_MAX_EMAIL_CHARS = 254


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def reset_link(site: str, token: str) -> str:
    return f"{site}{RESET_PATH}{token}/"


def request_password_reset(rt: Runtime, email: str, client_ip: str) -> None:
    """POST /accounts/password/reset/: email a reset link (or, for an address without an
    account, a note saying so) in the background; at most a few emails per address and a
    few dozen per client an hour (past that, nothing is sent, and the page says the same)."""
    address = email.strip()[:_MAX_EMAIL_CHARS]
    key = "reset:" + address.casefold()
    client_key = client_limit_key(client_ip)
    for limiter, limit_key in (
        (rt.reset_email_limiter, key),
        (rt.reset_client_limiter, client_key),
    ):
        if limiter.retry_after(limit_key) is not None:
            log.info("password reset emails limited; none sent")
            return
    rt.reset_email_limiter.hit(key)
    rt.reset_client_limiter.hit(client_key)
    rt.spawn(_email_reset(rt, address))


async def _email_reset(rt: Runtime, address: str) -> None:
    async with rt.db.read() as conn:
        realm = await store.realm.get_realm(conn)
        user = await store.users.get_user_by_delivery_email(conn, address)
    if realm is None:
        return
    site = rt.external_url  # never a request's Host header
    subject = f"Reset your password for {realm.name}"
    if user is None or user.is_bot:
        body = (
            f"Someone (hopefully you) asked to reset the password of {address} in "
            f"{realm.name} ({site}), but there is no account with this address there.\n\n"
            "If you have an account, it may use another address. If you did not ask for "
            "this, you can ignore this email.\n"
        )
    elif not user.is_active:
        body = (
            f"Someone (hopefully you) asked to reset the password of {address} in "
            f"{realm.name} ({site}), but this account has been deactivated. Ask an "
            "administrator of the organization to reactivate it.\n"
        )
    else:
        token = await do_create_password_reset(rt, user)
        body = (
            f"Someone (hopefully you) asked to reset the password of {address} in "
            f"{realm.name}.\n\nOpen this link to choose a new password:\n\n"
            f"{reset_link(site, token)}\n\n"
            f"The link works once, for {RESET_LINK_VALIDITY_SECS // 3600} hours. If you did "
            "not ask for this, ignore this email: your password stays as it is.\n"
        )
    await send_email(rt.settings, to=address, subject=subject, body=body)


async def do_create_password_reset(rt: Runtime, user: UserRow) -> str:
    """Store a new reset link for `user`; return its token (only its hash is stored)."""
    token = secrets.token_urlsafe(32)
    now = rt.now()
    async with rt.db.write() as tx:
        await password_store.insert_reset(
            tx, _sha256(token), user.id, now, now + RESET_LINK_VALIDITY_SECS
        )
    return token


async def access_reset(rt: Runtime, token: str) -> UserRow | None:
    """The active account a live reset link is for, or None (unknown, used, expired)."""
    async with rt.db.read() as conn:
        user_id = await password_store.get_reset_user_id(conn, _sha256(token), rt.now())
        user = await store.users.get_user_by_id(conn, user_id) if user_id else None
    if user is None or not user.is_active or user.is_bot:
        return None
    return user


@dataclass(frozen=True)
class ResetResult:
    """The account whose password was set, or the problem to show on the form."""

    user: UserRow | None = None
    problem: str | None = None


LINK_PROBLEM = "This password reset link has expired or has already been used. Ask for a new one."


async def check_reset_password(
    rt: Runtime, token: str, new_password: str, confirm: str
) -> ResetResult:
    """Validate the new password (the sign-up rules), then set it."""
    if new_password != confirm:
        return ResetResult(problem="The two passwords do not match.")
    problem = password_problem_explained(new_password)
    if problem:
        return ResetResult(problem=problem)
    password_hash = await asyncio.to_thread(hash_password, new_password)
    user = await do_reset_password(rt, token, password_hash)
    return ResetResult(user=user) if user else ResetResult(problem=LINK_PROBLEM)


async def do_reset_password(rt: Runtime, token: str, password_hash: str) -> UserRow | None:
    """Spend the link and set the password in one transaction; None if the link is dead."""
    async with rt.db.write() as tx:
        user_id = await password_store.get_reset_user_id(tx, _sha256(token), rt.now())
        user = await store.users.get_user_by_id(tx, user_id) if user_id else None
        if user is None or not user.is_active or user.is_bot:
            return None
        await store.users.update_password_hash(tx, user.id, password_hash)
        await password_changed(tx, rt, user)
    return user

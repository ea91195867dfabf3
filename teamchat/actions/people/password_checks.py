"""The one place a password is verified: log-ins (API and web), the old password of a password
change, and re-entering one's password to see the API key all come through `check_password`.

Each check reserves an attempt in the runtime's PasswordGuard before argon2 runs and settles
it after, so the budgets (per account, per client IP) hold however many guesses arrive at
once. Failures are counted in memory; forgiving them (`admin unlock`, a new password) is
stored, so a server sees an unlock made by the CLI in another process.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress

from teamchat.errors import RateLimitedError, ZulipError
from teamchat.lib.passwords import hash_password, verify_password
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import passwords as password_store
from teamchat.store.db import Tx

_MAX_USERNAME_KEY_CHARS = 256


@functools.cache
def _dummy_hash() -> str:
    """Verified against when the username is unknown, so both failures cost the same time.
    Made on first use: an argon2 hash at import cost every start-up a tenth of a second."""
    return hash_password("not-a-real-password")


def _verify(user: UserRow | None, password: str) -> bool:
    """Check `password` (in a thread: argon2 is CPU-bound), costing the same without a user."""
    return verify_password(user.password_hash if user is not None else _dummy_hash(), password)


def login_limit_key(user: UserRow | None, username: str) -> str:
    """The failure counter a password guess counts against: the account it names, whatever
    alias was typed, else the unknown username as typed (stripped, casefolded)."""
    if user is not None:
        return f"user:{user.id}"
    # No email is longer than 254 characters: a longer key would only cost memory.
    return "name:" + username.strip().casefold()[:_MAX_USERNAME_KEY_CHARS]


def client_limit_key(client_ip: str) -> str:
    """The per-client failure counter: the IPv4 address, or the IPv6 /64 (one subscriber's
    network, whose addresses an attacker can rotate through freely)."""
    try:
        address = ipaddress.ip_address(client_ip)
    except ValueError:
        return client_ip
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


async def check_password(
    rt: Runtime, user: UserRow | None, password: str, *, username: str, client_ip: str
) -> bool:
    """Whether `password` is `user`'s (None: an unknown username, always False).

    Raises RateLimitedError, without verifying, when the account or the client has no
    attempt left or another attempt for the account is being verified."""
    account_key = login_limit_key(user, username)
    client_key = client_limit_key(client_ip)
    if user is not None:
        async with rt.db.read() as conn:
            generation = await password_store.get_failures_generation(conn, user.id)
        rt.password_guard.sync(account_key, generation)
    # No await between the budget check and the reservation: concurrent checks see each other.
    retry_after = rt.password_guard.reserve(account_key, client_key)
    if retry_after is not None:
        raise RateLimitedError(retry_after)
    matches = False
    try:
        matches = await asyncio.to_thread(_verify, user, password)
    finally:
        # An attempt cut short (the client went away) counts as a failure.
        rt.password_guard.settle(account_key, client_key, failed=not matches)
    return matches and user is not None


async def require_password(rt: Runtime, user: UserRow, password: str, client_ip: str) -> None:
    """The logged-in person enters their password again (to see their API key): raise
    "Wrong password!" (or RateLimitedError) unless it is right."""
    if not await check_password(
        rt, user, password, username=user.delivery_email, client_ip=client_ip
    ):
        raise ZulipError("Wrong password!")


async def clear_failures(tx: Tx, rt: Runtime, user: UserRow) -> None:
    """Inside an action's transaction: forgive `user`'s failed attempts, in every process."""
    generation = await password_store.bump_failures_generation(tx, user.id)
    key = login_limit_key(user, user.delivery_email)
    tx.after_commit(lambda: rt.password_guard.sync(key, generation))


async def password_changed(tx: Tx, rt: Runtime, user: UserRow) -> None:
    """Inside the transaction that sets a new password: forgive the failed attempts and spend
    every reset link (web sessions end by themselves: see web_sessions)."""
    await clear_failures(tx, rt, user)
    await password_store.delete_resets_of(tx, user.id)


async def do_unlock(rt: Runtime, user: UserRow) -> None:
    """`teamchat admin unlock`: the account may try its password again at once."""
    async with rt.db.write() as tx:
        await clear_failures(tx, rt, user)

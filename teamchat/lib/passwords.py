"""Password hashing (argon2id) and random secrets. CPU-bound: callers run these off the loop."""

from __future__ import annotations

import random
import secrets
import string
from collections.abc import Iterator
from contextlib import contextmanager

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_HASHER = PasswordHasher()
API_KEY_CHARS = 32
# zulip-compat: Zulip's default PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH and
# PASSWORD_MIN_GUESSES (zxcvbn's estimate of the guesses an attacker needs).
MIN_PASSWORD_CHARS = 6
MAX_PASSWORD_CHARS = 100
MIN_PASSWORD_GUESSES = 10000
_API_KEY_ALPHABET = string.ascii_letters + string.digits
# Where API keys and generated passwords come from; only `seeded_secrets` replaces it.
_RANDOM: random.Random = secrets.SystemRandom()


def use_insecure_fast_hashing() -> None:
    """INSECURE, for `teamchat sandbox` only: hash new passwords with argon2's smallest
    parameters (microseconds instead of a tenth of a second), for throwaway accounts."""
    global _HASHER
    _HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


@contextmanager
def seeded_secrets(seed: str) -> Iterator[None]:
    """INSECURE, for `teamchat sandbox` only: API keys and passwords made inside are a
    fixed sequence for `seed`, so a rebuilt sandbox gives the same credentials."""
    global _RANDOM
    saved, _RANDOM = _RANDOM, random.Random(seed)
    try:
        yield
    finally:
        _RANDOM = saved


def hash_password(password: str) -> str:
    return _HASHER.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    """True if `password` matches; False for a wrong password or an unusable hash."""
    if not password_hash:
        return False
    try:
        return _HASHER.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def random_api_key() -> str:
    """A 32-character random API key, as Zulip generates."""
    return "".join(_RANDOM.choice(_API_KEY_ALPHABET) for _ in range(API_KEY_CHARS))


def random_password() -> str:
    """16 URL-safe characters (96 random bits, as `secrets.token_urlsafe(12)`)."""
    alphabet = string.ascii_letters + string.digits + "-_"
    return "".join(_RANDOM.choice(alphabet) for _ in range(16))


def password_problem(password: str) -> str | None:
    """Why `password` is too weak, or None."""
    if len(password) < MIN_PASSWORD_CHARS:
        return f"The password must be at least {MIN_PASSWORD_CHARS} characters long."
    if len(password) > MAX_PASSWORD_CHARS:
        return f"The password must be at most {MAX_PASSWORD_CHARS} characters long."
    if password_guesses(password) < MIN_PASSWORD_GUESSES:
        return "The password is too weak."
    return None


def password_guesses(password: str) -> float:
    """zxcvbn's estimate of how many guesses finding `password` takes (about 1 ms)."""
    # Imported on first use: it loads word lists (start-up time). The package has no types.
    from zxcvbn import zxcvbn  # type: ignore[import-untyped]

    return float(zxcvbn(password)["guesses"])

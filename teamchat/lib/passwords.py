"""Password hashing (argon2id) and random secrets. CPU-bound: callers run these off the loop."""

from __future__ import annotations

import secrets
import string

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
    return "".join(secrets.choice(_API_KEY_ALPHABET) for _ in range(API_KEY_CHARS))


def random_password() -> str:
    return secrets.token_urlsafe(12)


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

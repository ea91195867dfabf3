"""Password hashing (argon2id) and random secrets. CPU-bound: callers run these off the loop."""

from __future__ import annotations

import random
import secrets
import string
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import msgspec
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from teamchat.lib.lazy import lazy_module

if TYPE_CHECKING:
    import zxcvbn  # type: ignore[import-untyped]
else:  # its word lists: loaded by the first password that is judged
    zxcvbn = lazy_module("zxcvbn")

_HASHER = PasswordHasher()
API_KEY_CHARS = 32
# zulip-compat: Zulip's default PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH and
# PASSWORD_MIN_GUESSES (zxcvbn's estimate of the guesses an attacker needs).
MIN_PASSWORD_CHARS = 6
MAX_PASSWORD_CHARS = 100
MIN_PASSWORD_GUESSES = 10000
ZXCVBN_MAX_CHARS = 72
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


def password_problem_explained(password: str) -> str | None:
    """`password_problem`, followed by zxcvbn's warning and advice when it is too guessable
    (for the pages a person fills in; the API keeps the short sentence)."""
    problem = password_problem(password)
    if problem is None or len(password) < MIN_PASSWORD_CHARS or len(password) > MAX_PASSWORD_CHARS:
        return problem
    strength = password_strength(password)
    advice = " ".join(text for text in (strength.warning, *strength.suggestions[:1]) if text)
    return f"{problem} {advice}" if advice else problem


def password_guesses(password: str) -> float:
    """zxcvbn's estimate of how many guesses finding `password` takes (milliseconds)."""
    return float(_zxcvbn(password)["guesses"])


class PasswordStrength(msgspec.Struct, frozen=True, kw_only=True):
    """What the sign-up and reset pages show while a password is typed (zxcvbn's feedback)."""

    score: int  # zxcvbn's 0 (too guessable) .. 4 (very unguessable)
    acceptable: bool  # whether `password_problem` finds nothing
    problem: str
    warning: str
    suggestions: list[str]


def password_strength(password: str) -> PasswordStrength:
    """zxcvbn's score and advice for `password`, and whether we accept it."""
    problem = password_problem(password) or ""
    if len(password) > MAX_PASSWORD_CHARS:
        return PasswordStrength(
            score=0, acceptable=False, problem=problem, warning="", suggestions=[]
        )
    result = _zxcvbn(password)
    feedback = result["feedback"]
    return PasswordStrength(
        score=int(result["score"]),
        acceptable=not problem,
        problem=problem,
        warning=str(feedback.get("warning") or ""),
        suggestions=[str(text) for text in feedback.get("suggestions") or []],
    )


def _zxcvbn(password: str) -> dict[str, Any]:
    # zxcvbn refuses more than 72 characters (and slows down with length): the prefix's
    # estimate is a lower bound for the whole password, so judging it errs on the safe side.
    result: dict[str, Any] = zxcvbn.zxcvbn(password[:ZXCVBN_MAX_CHARS])
    return result

"""Small input checks shared by actions: emails, names, short texts."""

from __future__ import annotations

import re

from teamchat.errors import ZulipError
from teamchat.lib.text import check_text, first_unprintable

# Django's EmailValidator in spirit: a local part, then a dotted domain or "localhost".
_EMAIL_RE = re.compile(
    r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@"
    r"(localhost|([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63})$"
)
MAX_NAME_CHARS = 100


def is_valid_email(email: str) -> bool:
    return bool(_EMAIL_RE.match(email)) and len(email) <= 254 and ".." not in email


def full_name_problem(full_name: str) -> str | None:
    """Zulip's checks on a full name, or None if it is fine."""
    if not full_name.strip():
        return "Name too short!"
    if len(full_name) > MAX_NAME_CHARS:
        return "Name too long!"
    if any(ch in full_name for ch in '*`\\>"@') or first_unprintable(full_name) is not None:
        return "Invalid characters in name!"
    return None


def clean_text(name: str, value: str, limit: int, *, multiline: bool = False) -> str:
    """Zulip's StringConstraints(min_length=1, max_length, strip_whitespace=True), then the
    one text check (no control characters; line breaks only when `multiline`)."""
    value = value.strip()
    if not value:
        raise ZulipError(f"{name} is too short.")
    return check_text(name, value, max_chars=limit, multiline=multiline)

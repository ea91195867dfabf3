"""Custom profile field types and Zulip's checks on field definitions and values (pure)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime

from teamchat.lib.text import first_unprintable

SHORT_TEXT, LONG_TEXT, SELECT, DATE, URL, USER, EXTERNAL_ACCOUNT, PRONOUNS = range(1, 9)

# id -> (key in `custom_profile_field_types`, display name).
FIELD_TYPES: Mapping[int, tuple[str, str]] = {
    SHORT_TEXT: ("SHORT_TEXT", "Text (short)"),
    LONG_TEXT: ("LONG_TEXT", "Text (long)"),
    SELECT: ("SELECT", "List of options"),
    DATE: ("DATE", "Date"),
    URL: ("URL", "Link"),
    USER: ("USER", "Users"),
    EXTERNAL_ACCOUNT: ("EXTERNAL_ACCOUNT", "External account"),
    PRONOUNS: ("PRONOUNS", "Pronouns"),
}
# Values of these types are Markdown and get a `rendered_value`.
RENDERED_TYPES = frozenset({SHORT_TEXT, LONG_TEXT})
TYPES_WITH_FIELD_DATA = frozenset({SELECT, EXTERNAL_ACCOUNT})
NOT_IN_PROFILE_SUMMARY = frozenset({LONG_TEXT, USER})
USER_MATCHING_TYPES = frozenset({SHORT_TEXT, EXTERNAL_ACCOUNT})
NAME_MAX_CHARS = 40
HINT_MAX_CHARS = 80
SHORT_VALUE_MAX_CHARS = 50
LONG_VALUE_MAX_CHARS = 500
MAX_DISPLAY_IN_PROFILE_SUMMARY = 2
USERNAME_PLACEHOLDER = "%(username)s"

DEFAULT_EXTERNAL_ACCOUNTS: Mapping[str, Mapping[str, str]] = {
    "github": {
        "name": "GitHub",
        "text": "GitHub",
        "hint": "Enter your GitHub username",
        "url_pattern": "https://github.com/%(username)s",
    },
    "twitter": {
        "name": "Twitter",
        "text": "Twitter",
        "hint": "Enter your Twitter username",
        "url_pattern": "https://twitter.com/%(username)s",
    },
}

_URL_RE = re.compile(
    r"^(?:https?|ftps?)://"
    r"(?:[^\s:@/]+(?::[^\s:@/]*)?@)?"
    r"(?:localhost|\[[0-9a-fA-F:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)"
    r"(?::\d{1,5})?(?:[/?#]\S*)?$"
)


def is_url(value: str) -> bool:
    return bool(_URL_RE.match(value)) and len(value) <= 2048


def is_default_external_account(field_type: int, field_data: Mapping[str, object]) -> bool:
    return field_type == EXTERNAL_ACCOUNT and field_data.get("subtype") != "custom"


def field_data_problem(field_type: int, field_data: Mapping[str, object]) -> str | None:
    """Zulip's message for bad `field_data` of a Dropdown or External account field."""
    if field_type == SELECT:
        return _select_data_problem(field_data)
    if field_type == EXTERNAL_ACCOUNT:
        return _external_account_data_problem(field_data)
    return None


def _select_data_problem(field_data: Mapping[str, object]) -> str | None:
    if len(field_data) < 1:
        return "Field must have at least one choice."
    texts = set()
    for key, choice in field_data.items():
        if not key.strip():
            return "'value' cannot be blank."
        if not isinstance(choice, dict):
            return "field_data is not a dict"
        for name in ("text", "order"):
            if name not in choice:
                return f"{name} key is missing from field_data"
            if not isinstance(choice[name], str):
                return f'field_data["{name}"] is not a string'
            if not choice[name].strip():
                return f'field_data["{name}"] cannot be blank.'
        extra = sorted(set(choice) - {"text", "order"})
        if extra:
            return f"Unexpected arguments: {', '.join(extra)}"
        texts.add(choice["text"])
    if len(texts) != len(field_data):
        return "Field must not have duplicate choices."
    return None


def _external_account_data_problem(field_data: Mapping[str, object]) -> str | None:
    subtype = field_data.get("subtype")
    if subtype is None:
        return "subtype key is missing from field_data"
    if not isinstance(subtype, str) or not subtype.strip():
        return 'field_data["subtype"] cannot be blank.'
    extra = sorted(set(field_data) - {"subtype", "url_pattern"})
    if extra:
        return f"Unexpected arguments: {', '.join(extra)}"
    pattern = field_data.get("url_pattern")
    if pattern is not None:
        if not isinstance(pattern, str) or pattern.count(USERNAME_PLACEHOLDER) != 1:
            return "URL pattern must contain '%(username)s'."
        if not is_url(pattern.replace(USERNAME_PLACEHOLDER, "username")):
            return 'field_data["url_pattern"] is not a URL'
    if subtype not in DEFAULT_EXTERNAL_ACCOUNTS:
        if subtype != "custom":
            return "Invalid external account type"
        if pattern is None:
            return "Custom external account must define URL pattern"
    return None


def value_problem(
    field_name: str, field_type: int, field_data: Mapping[str, object], value: object
) -> str | None:
    """Zulip's message for a bad value of a non-Users field, or None."""
    if not isinstance(value, str):
        return f"{field_name} is not a string"
    if field_type == LONG_TEXT:
        limit = LONG_VALUE_MAX_CHARS
    elif field_type in (SHORT_TEXT, PRONOUNS, EXTERNAL_ACCOUNT):
        limit = SHORT_VALUE_MAX_CHARS
    else:
        limit = 0
    if limit and len(value) > limit:
        return f"{field_name} is too long (limit: {limit} characters)"
    position = first_unprintable(value, multiline=field_type == LONG_TEXT)
    if position is not None:
        return f"Invalid character in {field_name}, at position {position}!"
    if field_type == DATE and not _is_date(value):
        return f"{field_name} is not a date"
    if field_type == URL and not is_url(value):
        return f"{field_name} is not a URL"
    if field_type == SELECT and value not in field_data:
        return f"'{value}' is not a valid choice for '{field_name}'."
    return None


def _is_date(value: str) -> bool:
    try:
        datetime.strptime(value, "%Y-%m-%d")
    except ValueError:
        return False
    return True

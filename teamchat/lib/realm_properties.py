"""PATCH /realm properties: how each is decoded from a request and which values it accepts.

Pure: decoding and per-value checks with Zulip's messages. Permission checks and storage
are in `actions.realm_settings`.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from teamchat.errors import RequestVariableConversionError, ZulipError
from teamchat.lib.json_input import decode_json
from teamchat.lib.limits import check_int_range
from teamchat.lib.text import check_text

MAX_REALM_NAME_CHARS = 40
MAX_REALM_DESCRIPTION_CHARS = 1000
MAX_WELCOME_MESSAGE_CUSTOM_TEXT_CHARS = 8000
MAX_JITSI_SERVER_URL_CHARS = 200

# Sent as plain strings; every other property is JSON (Zulip's Json[...] parameters).
STRING_PROPERTIES = frozenset(
    {
        "name",
        "description",
        "default_language",
        "default_code_block_language",
        "welcome_message_custom_text",
        "message_edit_history_visibility_policy",
        "topics_policy",
    }
)
BOOL_PROPERTIES = frozenset(
    {
        "allow_message_editing",
        "avatar_changes_disabled",
        "digest_emails_enabled",
        "disallow_disposable_email_addresses",
        "email_changes_disabled",
        "emails_restricted_to_domains",
        "enable_guest_user_dm_warning",
        "enable_guest_user_indicator",
        "enable_read_receipts",
        "enable_spectator_access",
        "inline_image_preview",
        "inline_url_embed_preview",
        "invite_required",
        "message_content_allowed_in_email_notifications",
        "name_changes_disabled",
        "require_e2ee_push_notifications",
        "require_unique_names",
        "send_welcome_emails",
        "want_advertise_in_communities_directory",
        # zulip-compat: replaced by message_edit_history_visibility_policy; still accepted.
        "allow_edit_history",
    }
)
# Time limits: a positive number of seconds or "unlimited" (stored as null).
TIME_LIMIT_PROPERTIES = frozenset(
    {
        "message_content_edit_limit_seconds",
        "message_content_delete_limit_seconds",
        "move_messages_within_stream_limit_seconds",
        "move_messages_between_streams_limit_seconds",
    }
)
# Channel-valued: a channel id, or -1 for none.
CHANNEL_PROPERTIES = frozenset(
    {
        "moderation_request_channel_id",
        "new_stream_announcements_stream_id",
        "signup_announcements_stream_id",
        "zulip_update_announcements_stream_id",
    }
)
# Only organization owners may change these (Zulip's update_realm).
OWNER_ONLY = frozenset(
    {
        "invite_required",
        "emails_restricted_to_domains",
        "disallow_disposable_email_addresses",
        "waiting_period_threshold",
        "message_retention_days",
        "authentication_methods",
        "create_multiuse_invite_group",
        "can_create_groups",
        "can_invite_users_group",
        "can_manage_all_groups",
        "can_manage_billing_group",
    }
)

EDIT_HISTORY_POLICIES = ("all", "moves", "none")
TOPICS_POLICIES = ("allow_empty_topic", "disable_empty_topic")
VIDEO_CHAT_PROVIDERS = {
    "disabled": {"name": "None", "id": 0},
    "jitsi_meet": {"name": "Jitsi Meet", "id": 1},
}
GIPHY_RATINGS = range(0, 6)
ORG_TYPES = (0, 10, 20, 30, 35, 40, 50, 60, 70, 80, 90, 100, 1000)
DIGEST_WEEKDAYS = range(0, 7)
# Zulip's translations (language_name_map.json), by code.
LANGUAGE_CODES = frozenset(
    [
        "ar",
        "be",
        "bg",
        "bn",
        "ca",
        "cs",
        "cy",
        "da",
        "de",
        "el",
        "en",
        "en-gb",
        "eo",
        "es",
        "fa",
        "fi",
        "fr",
        "gl",
        "gu",
        "hi",
        "hu",
        "id",
        "it",
        "ja",
        "ko",
        "lt",
        "lv",
        "ml",
        "mn",
        "nl",
        "no",
        "pl",
        "pt",
        "pt-br",
        "pt-pt",
        "ro",
        "ru",
        "si",
        "sk",
        "sl",
        "sr",
        "sv",
        "ta",
        "te",
        "tl",
        "tr",
        "uk",
        "uz",
        "vi",
        "zh-hans",
        "zh-hant",
        "zh-tw",
    ]
)


# JSON properties whose JSON value may be a string: a bare string is taken as is, the way
# clients that JSON-encode only non-strings (python-zulip-api) send it.
STRING_OR_JSON = TIME_LIMIT_PROPERTIES | {"jitsi_server_url", "message_retention_days"}


def decode(name: str, raw: str) -> object:
    """A request value: raw for string properties, JSON for every other one."""
    if name in STRING_PROPERTIES:
        return raw
    try:
        return decode_json(raw)
    except msgspec.DecodeError:
        if name in STRING_OR_JSON:
            return raw
        raise ZulipError(f"{name} is not valid JSON") from None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ZulipError(f"{name} is not a boolean")
    return value


# zulip-compat: Zulip stores realm integers in PostgreSQL integer columns (32-bit signed).
MAX_SETTING_INT = 2**31 - 1


def _bounded(name: str, value: int) -> int:
    return check_int_range(name, value, MAX_SETTING_INT)


def _check_int(name: str, value: object) -> int:
    if not _is_int(value):
        raise ZulipError(f"{name} is not an integer")
    assert isinstance(value, int)
    return _bounded(name, value)


def _check_str(
    name: str, value: object, max_chars: int | None = None, *, multiline: bool = False
) -> str:
    if not isinstance(value, str):
        raise ZulipError(f"{name} is not a string")
    return check_text(name, value, max_chars=max_chars, multiline=multiline)


def _check_time_limit(name: str, value: object) -> int | None:
    # zulip-compat: parse_message_time_limit_setting.
    if value == "unlimited":
        return None
    if not _is_int(value) or value <= 0:  # type: ignore[operator]
        raise RequestVariableConversionError(name, value)
    assert isinstance(value, int)
    return _bounded(name, value)


def _check_in(name: str, value: int, allowed: object, message: str | None = None) -> int:
    if value not in allowed:  # type: ignore[operator]
        raise ZulipError(message or f"Invalid {name}")
    return value


def _check_retention(name: str, value: object) -> int:
    if value == "unlimited":
        return -1
    if not _is_int(value) or value <= 0:  # type: ignore[operator]
        raise RequestVariableConversionError(name, value)
    assert isinstance(value, int)
    return _bounded(name, value)


def _check_jitsi(name: str, value: object) -> str | None:
    text = _check_str(name, value)
    if text == "default":
        return None
    if len(text) > MAX_JITSI_SERVER_URL_CHARS or not text.startswith(("http://", "https://")):
        raise ZulipError(f"{name} is not an allowed_type")
    return text


def _check_language(name: str, value: object) -> str:
    text = _check_str(name, value)
    if text not in LANGUAGE_CODES:
        raise ZulipError(f"Invalid language '{text}'")
    return text


def _check_waiting_period(name: str, value: object) -> int:
    number = _check_int(name, value)
    if number < 0:
        raise ZulipError(f"{name} is too small")
    return number


def _check_choice(choices: tuple[str, ...]) -> Callable[[str, object], str]:
    def check(name: str, value: object) -> str:
        text = _check_str(name, value)
        if text not in choices:
            raise ZulipError(f"Invalid {name}")
        return text

    return check


def _check_name(name: str, value: object) -> str:
    text = _check_str(name, value, MAX_REALM_NAME_CHARS)
    if not text.strip():
        raise ZulipError("Organization name can't be empty")
    return text


_SPECIAL: dict[str, Callable[[str, object], object]] = {
    "name": _check_name,
    "description": lambda n, v: _check_str(n, v, MAX_REALM_DESCRIPTION_CHARS, multiline=True),
    "welcome_message_custom_text": lambda n, v: _check_str(
        n, v, MAX_WELCOME_MESSAGE_CUSTOM_TEXT_CHARS, multiline=True
    ),
    "default_code_block_language": _check_str,
    "default_language": _check_language,
    "message_edit_history_visibility_policy": _check_choice(EDIT_HISTORY_POLICIES),
    "topics_policy": _check_choice(TOPICS_POLICIES),
    "waiting_period_threshold": _check_waiting_period,
    "message_retention_days": _check_retention,
    "jitsi_server_url": _check_jitsi,
    "digest_weekday": lambda n, v: _check_in(n, _check_int(n, v), DIGEST_WEEKDAYS),
    "org_type": lambda n, v: _check_in(n, _check_int(n, v), ORG_TYPES),
    "giphy_rating": lambda n, v: _check_in(
        n, _check_int(n, v), GIPHY_RATINGS, f"Invalid giphy_rating {v}"
    ),
    "video_chat_provider": lambda n, v: _check_in(
        n,
        _check_int(n, v),
        {p["id"] for p in VIDEO_CHAT_PROVIDERS.values()},
        f"Invalid video_chat_provider {v}",
    ),
}


def is_property(name: str) -> bool:
    """Whether `name` is a PATCH /realm property (group settings are handled apart)."""
    return (
        name in _SPECIAL
        or name in BOOL_PROPERTIES
        or name in TIME_LIMIT_PROPERTIES
        or name in CHANNEL_PROPERTIES
    )


PROPERTY_NAMES = sorted(
    set(_SPECIAL) | BOOL_PROPERTIES | TIME_LIMIT_PROPERTIES | CHANNEL_PROPERTIES
)


def check_value(name: str, value: object) -> object:
    """The value to store for property `name`, or a Zulip error naming what is wrong."""
    if name in _SPECIAL:
        return _SPECIAL[name](name, value)
    if name in BOOL_PROPERTIES:
        return _check_bool(name, value)
    if name in TIME_LIMIT_PROPERTIES:
        return _check_time_limit(name, value)
    if name in CHANNEL_PROPERTIES:
        return _check_int(name, value)
    raise ZulipError(f"Invalid property {name}")

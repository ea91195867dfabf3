"""Personal settings: Zulip's names, defaults and allowed values (a pure data module).

A user's row stores the settings JSON copied from the realm defaults when they joined
(`RealmUserDefault` in Zulip); later changes to the defaults do not touch existing users.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec


class UserSettings(msgspec.Struct, kw_only=True, frozen=True):
    twenty_four_hour_time: bool = False
    web_mark_read_on_scroll_policy: int = 1
    web_channel_default_view: int = 1
    starred_message_counts: bool = True
    receives_typing_notifications: bool = True
    web_suggest_update_timezone: bool = True
    fluid_layout_width: bool = False
    high_contrast_mode: bool = False
    web_font_size_px: int = 16
    web_line_height_percent: int = 140
    color_scheme: int = 1
    translate_emoticons: bool = False
    display_emoji_reaction_users: bool = True
    default_language: str = "en"
    web_home_view: str = "inbox"
    web_escape_navigates_to_home_view: bool = True
    left_side_userlist: bool = False
    emojiset: str = "google"
    demote_inactive_streams: int = 1
    user_list_style: int = 3
    web_animate_image_previews: str = "on_hover"
    web_stream_unreads_count_display_policy: int = 2
    hide_ai_features: bool = False
    web_inbox_show_channel_folders: bool = True
    web_left_sidebar_show_channel_folders: bool = True
    web_left_sidebar_unreads_count_summary: bool = True
    enter_sends: bool = False
    enable_drafts_synchronization: bool = True
    enable_stream_desktop_notifications: bool = False
    enable_stream_email_notifications: bool = False
    enable_stream_push_notifications: bool = False
    enable_stream_audible_notifications: bool = False
    notification_sound: str = "zulip"
    enable_desktop_notifications: bool = True
    enable_sounds: bool = True
    enable_followed_topic_desktop_notifications: bool = True
    enable_followed_topic_email_notifications: bool = True
    enable_followed_topic_push_notifications: bool = True
    enable_followed_topic_audible_notifications: bool = True
    email_notifications_batching_period_seconds: int = 120
    enable_offline_email_notifications: bool = True
    enable_offline_push_notifications: bool = True
    enable_online_push_notifications: bool = True
    enable_digest_emails: bool = True
    enable_marketing_emails: bool = True
    enable_login_emails: bool = True
    message_content_in_email_notifications: bool = True
    pm_content_in_desktop_notifications: bool = True
    wildcard_mentions_notify: bool = True
    enable_followed_topic_wildcard_mentions_notify: bool = True
    desktop_icon_count_display: int = 1
    realm_name_in_email_notifications_policy: int = 1
    automatically_follow_topics_policy: int = 3
    automatically_unmute_topics_in_muted_streams_policy: int = 2
    automatically_follow_topics_where_mentioned: bool = True
    resolved_topic_notice_auto_read_policy: str = "except_followed"
    presence_enabled: bool = True
    send_private_typing_notifications: bool = True
    send_stream_typing_notifications: bool = True
    send_read_receipts: bool = True
    allow_private_data_export: bool = False
    email_address_visibility: int = 1
    web_navigate_to_sent_message: bool = True


# Policy values shared by the automatic follow/unmute settings.
FOLLOW_POLICY_VALUES = frozenset({1, 2, 3, 4})
AUTOMATICALLY_CHANGE_VISIBILITY_POLICY_ON_PARTICIPATION = 1
AUTOMATICALLY_CHANGE_VISIBILITY_POLICY_ON_SEND = 2
AUTOMATICALLY_CHANGE_VISIBILITY_POLICY_ON_INITIATION = 3
AUTOMATICALLY_CHANGE_VISIBILITY_POLICY_NEVER = 4

# Allowed values for settings that are not free-form (SPEC: Update realm-level defaults).
CHOICES: Mapping[str, frozenset[object]] = {
    "web_mark_read_on_scroll_policy": frozenset({1, 2, 3}),
    "web_channel_default_view": frozenset({1, 2, 3, 4}),
    "color_scheme": frozenset({1, 2, 3}),
    "demote_inactive_streams": frozenset({1, 2, 3}),
    "user_list_style": frozenset({1, 2, 3}),
    "web_stream_unreads_count_display_policy": frozenset({1, 2, 3}),
    "desktop_icon_count_display": frozenset({1, 2, 3, 4}),
    "realm_name_in_email_notifications_policy": frozenset({1, 2, 3}),
    "automatically_follow_topics_policy": FOLLOW_POLICY_VALUES,
    "automatically_unmute_topics_in_muted_streams_policy": FOLLOW_POLICY_VALUES,
    "email_address_visibility": frozenset({1, 2, 3, 4, 5}),
    "web_home_view": frozenset({"recent", "inbox", "all_messages"}),
    "web_animate_image_previews": frozenset({"always", "on_hover", "never"}),
    "resolved_topic_notice_auto_read_policy": frozenset({"always", "except_followed", "never"}),
    "emojiset": frozenset({"google", "twitter", "text", "google-blob"}),
}
EMOJISET_CHOICES = [
    {"key": "google", "text": "Google"},
    {"key": "twitter", "text": "Twitter"},
    {"key": "text", "text": "Plain text"},
]
AVAILABLE_NOTIFICATION_SOUNDS = ["chime-saved", "ding", "zulip", "none"]

# zulip-compat: Zulip's frozen legacy sets (display_settings_legacy plus the time zone, and
# notification_settings_legacy): clients without `user_settings_object` get exactly these at
# the top level of /register and as update_display_settings / update_global_notifications.
DISPLAY_SETTINGS = frozenset(
    {
        "color_scheme",
        "default_language",
        "web_home_view",
        "demote_inactive_streams",
        "emojiset",
        "enable_drafts_synchronization",
        "enter_sends",
        "fluid_layout_width",
        "high_contrast_mode",
        "left_side_userlist",
        "starred_message_counts",
        "translate_emoticons",
        "twenty_four_hour_time",
        "timezone",
    }
)
NOTIFICATION_SETTINGS = frozenset(
    {
        "desktop_icon_count_display",
        "email_notifications_batching_period_seconds",
        "enable_desktop_notifications",
        "enable_digest_emails",
        "enable_login_emails",
        "enable_marketing_emails",
        "enable_offline_email_notifications",
        "enable_offline_push_notifications",
        "enable_online_push_notifications",
        "enable_sounds",
        "enable_stream_audible_notifications",
        "enable_stream_desktop_notifications",
        "enable_stream_email_notifications",
        "enable_stream_push_notifications",
        "message_content_in_email_notifications",
        "notification_sound",
        "pm_content_in_desktop_notifications",
        "presence_enabled",
        "realm_name_in_email_notifications_policy",
        "wildcard_mentions_notify",
    }
)


def load(settings_json: str | bytes) -> UserSettings:
    """A user's settings: their stored values over the defaults (unknown keys ignored)."""
    return msgspec.json.decode(settings_json or b"{}", type=UserSettings)


def dump(settings: UserSettings) -> str:
    return msgspec.json.encode(settings).decode()


# -- validation ----------------------------------------------------------------------------
SettingValue = bool | int | str

# Each setting's value type (bool, int or str), from UserSettings' annotations.
SETTING_TYPES: Mapping[str, type] = {
    field.name: field.type for field in msgspec.structs.fields(UserSettings)
}
# zulip-compat: settings a user has that PATCH /realm/user_settings_defaults does not take.
NOT_REALM_DEFAULTS = frozenset(
    {
        "allow_private_data_export",
        "default_language",
        "enable_login_emails",
        "enable_marketing_emails",
    }
)
REALM_DEFAULT_SETTINGS = tuple(n for n in SETTING_TYPES if n not in NOT_REALM_DEFAULTS)
MAX_EMAIL_BATCHING_PERIOD_SECS = 7 * 24 * 3600

# Language codes Zulip offers for `default_language`, with their English names.
LANGUAGES: Mapping[str, str] = {
    "ar": "Arabic",
    "be": "Belarusian",
    "bg": "Bulgarian",
    "bn": "Bengali",
    "ca": "Catalan",
    "cs": "Czech",
    "cy": "Welsh",
    "da": "Danish",
    "de": "German",
    "el": "Greek",
    "en": "English",
    "en-gb": "British English",
    "eo": "Esperanto",
    "es": "Spanish",
    "fa": "Persian",
    "fi": "Finnish",
    "fr": "French",
    "gl": "Galician",
    "gu": "Gujarati",
    "hi": "Hindi",
    "hu": "Hungarian",
    "id": "Indonesian",
    "it": "Italian",
    "ja": "Japanese",
    "ko": "Korean",
    "lt": "Lithuanian",
    "lv": "Latvian",
    "ml": "Malayalam",
    "mn": "Mongolian",
    "nl": "Dutch",
    "no": "Norwegian",
    "pl": "Polish",
    "pt": "Portuguese",
    "pt-br": "Portuguese (Brazil)",
    "pt-pt": "Portuguese (Portugal)",
    "ro": "Romanian",
    "ru": "Russian",
    "si": "Sinhala",
    "sk": "Slovak",
    "sr": "Serbian",
    "sv": "Swedish",
    "ta": "Tamil",
    "te": "Telugu",
    "tl": "Tagalog",
    "tr": "Turkish",
    "uk": "Ukrainian",
    "uz": "Uzbek",
    "vi": "Vietnamese",
    "zh-hans": "Simplified Chinese",
    "zh-hant": "Traditional Chinese",
}


# SPEC (Update realm-level defaults): "notification_sound: sound name, free string" and the
# batching period is "any integer", so the defaults take any value of these two.
FREE_IN_REALM_DEFAULTS = frozenset(
    {"notification_sound", "email_notifications_batching_period_seconds"}
)


def setting_problem(name: str, value: SettingValue, *, realm_default: bool = False) -> str | None:
    """Zulip's message for an unacceptable value of setting `name`, or None if it is fine."""
    expected = SETTING_TYPES[name]
    if type(value) is not expected:
        kind = {bool: "a boolean", int: "an integer", str: "a string"}[expected]
        return f"{name} is not {kind}"
    choices = CHOICES.get(name)
    if choices is not None and value not in choices:
        # zulip-compat: string choices are pydantic AfterValidators in Zulip (value_error).
        if isinstance(value, str):
            return f"Invalid {name}: Value error, Not in the list of possible values"
        return f"Invalid {name}"
    if name == "default_language" and value not in LANGUAGES:
        return "Invalid default_language"
    if realm_default and name in FREE_IN_REALM_DEFAULTS:
        return None
    if name == "notification_sound" and value not in AVAILABLE_NOTIFICATION_SOUNDS:
        return f"Invalid notification sound '{value}'"
    if name == "email_notifications_batching_period_seconds" and not (
        0 < int(value) <= MAX_EMAIL_BATCHING_PERIOD_SECS
    ):
        return f"Invalid email batching period: {value} seconds"
    return None


def with_changes(settings: UserSettings, changes: Mapping[str, SettingValue]) -> UserSettings:
    return msgspec.structs.replace(settings, **changes)


def as_dict(settings: UserSettings) -> dict[str, SettingValue]:
    return {name: getattr(settings, name) for name in SETTING_TYPES}

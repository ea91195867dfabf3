"""The `realm` part of POST /register: every realm setting, permission group and server limit.

Adds to the keys `actions.state` already sets (name, URLs, length limits). Reads only.
"""

from __future__ import annotations

import time

import msgspec

from teamchat import store
from teamchat.actions.org import group_settings, permissions
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.lib import group_permissions as gp
from teamchat.lib import realm_properties as props
from teamchat.lib import realm_settings
from teamchat.lib.api_types import JsonDict
from teamchat.lib.passwords import MIN_PASSWORD_GUESSES
from teamchat.lib.presence import OFFLINE_THRESHOLD_SECS
from teamchat.lib.thumbnails import server_thumbnail_formats

# When this server process started (Zulip's server_generation).
SERVER_GENERATION = int(time.time())
# Zulip's default Jitsi server (JITSI_SERVER_URL), used unless the realm sets its own.
SERVER_JITSI_SERVER_URL = "https://meet.jit.si"
# Zulip's typing protocol defaults (milliseconds) and presence timing (seconds).
TYPING_STARTED_EXPIRY_PERIOD_MS = 45000
TYPING_STOPPED_WAIT_PERIOD_MS = 12000
TYPING_STARTED_WAIT_PERIOD_MS = 30000
PRESENCE_PING_INTERVAL_SECS = 60
# Zulip's MIN_DEACTIVATED_REALM_DELETION_DAYS: the shortest wait an owner may choose before a
# deactivated organization is deleted.
MIN_DEACTIVATED_REALM_DELETION_DAYS = 14
MAX_AVATAR_FILE_SIZE_MIB = 5
MAX_ICON_FILE_SIZE_MIB = 5
MAX_LOGO_FILE_SIZE_MIB = 5
MAX_BULK_NEW_SUBSCRIPTION_MESSAGES = 100
MAX_REMINDER_NOTE_LENGTH = 1000

# Account types offered for "external account" custom profile fields (Zulip's defaults).
DEFAULT_EXTERNAL_ACCOUNTS = {
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
REPORT_MESSAGE_TYPES = [
    {"key": "spam", "name": "Spam"},
    {"key": "harassment", "name": "Harassment"},
    {"key": "inappropriate", "name": "Inappropriate content"},
    {"key": "norms", "name": "Violates community norms"},
    {"key": "other", "name": "Other reason"},
]
GIPHY_RATING_OPTIONS = {
    "disabled": {"name": "GIPHY integration disabled", "id": 0},
    "y": {"name": "Allow GIFs rated Y (Very young audience)", "id": 1},
    "g": {"name": "Allow GIFs rated G (General audience)", "id": 2},
    "pg": {"name": "Allow GIFs rated PG (Parental guidance)", "id": 3},
    "pg-13": {"name": "Allow GIFs rated PG-13 (Parental guidance - under 13)", "id": 4},
    "r": {"name": "Allow GIFs rated R (Restricted)", "id": 5},
}


# Stored with the realm's settings but, in Zulip, a server operator's grant rather than an
# organization setting: never in the register state.
SERVER_ONLY_SETTINGS = frozenset({"can_change_user_emails"})


@state_fetcher("realm")
async def _realm_settings_state(ctx: StateContext) -> None:
    settings = realm_settings.load(ctx.realm.settings_json)
    state = ctx.state
    for name, value in msgspec.structs.asdict(settings).items():
        if name not in SERVER_ONLY_SETTINGS:
            state[f"realm_{name}"] = value
    policy = settings.message_edit_history_visibility_policy
    state["realm_allow_edit_history"] = policy != "none"
    state["realm_mandatory_topics"] = settings.topics_policy == "disable_empty_topic"
    await _group_settings_state(ctx)
    state.update(
        realm_authentication_methods={
            name: {"enabled": True, "available": True} for name in ("Email",)
        },
        realm_email_auth_enabled=True,
        realm_password_auth_enabled=True,
        realm_push_notifications_enabled=ctx.rt.settings.push_service_url is not None,
        realm_push_notifications_enabled_end_timestamp=None,
        realm_is_zephyr_mirror_realm=False,
        realm_org_type=settings.org_type,
        realm_plan_type=1,
        zulip_plan_is_not_limited=True,
        realm_upload_quota_mib=None,
        realm_default_external_accounts=DEFAULT_EXTERNAL_ACCOUNTS,
        realm_available_video_chat_providers=props.VIDEO_CHAT_PROVIDERS,
        realm_logo_source="D",
        realm_logo_url="",
        realm_night_logo_source="D",
        realm_night_logo_url="",
        jitsi_server_url=settings.jitsi_server_url or SERVER_JITSI_SERVER_URL,
        server_jitsi_server_url=SERVER_JITSI_SERVER_URL,
        giphy_rating_options=GIPHY_RATING_OPTIONS,
        settings_send_digest_emails=False,
        development_environment=False,
    )
    _server_state(ctx)


async def _group_settings_state(ctx: StateContext) -> None:
    values = await permissions.realm_group_settings(ctx.conn, ctx.realm)
    active = set(await store.users.list_active_user_ids(ctx.conn))
    names = {group_id: name for name, group_id in (await _system_ids(ctx)).items()}
    for name, value in values.items():
        ctx.state[f"realm_{name}"] = group_settings.api_value(value, active)
    legacy = {
        "realm_wildcard_mention_policy": "can_mention_many_users_group",
        "realm_create_public_stream_policy": "can_create_public_channel_group",
        "realm_create_private_stream_policy": "can_create_private_channel_group",
        "realm_create_web_public_stream_policy": "can_create_web_public_channel_group",
    }
    for key, setting in legacy.items():
        value = values[setting]
        group_name = names.get(value) if isinstance(value, int) else None
        ctx.state[key] = gp.legacy_policy(setting, group_name)


async def _system_ids(ctx: StateContext) -> dict[str, int]:
    return await store.groups.system_group_ids(ctx.conn)


def _server_state(ctx: StateContext) -> None:
    ctx.state.update(
        server_typing_started_expiry_period_milliseconds=TYPING_STARTED_EXPIRY_PERIOD_MS,
        server_typing_stopped_wait_period_milliseconds=TYPING_STOPPED_WAIT_PERIOD_MS,
        server_typing_started_wait_period_milliseconds=TYPING_STARTED_WAIT_PERIOD_MS,
        server_presence_ping_interval_seconds=PRESENCE_PING_INTERVAL_SECS,
        server_presence_offline_threshold_seconds=OFFLINE_THRESHOLD_SECS,
        server_supported_permission_settings=gp.supported_settings_json(),
        server_min_deactivated_realm_deletion_days=MIN_DEACTIVATED_REALM_DELETION_DAYS,
        server_max_deactivated_realm_deletion_days=None,
        server_inline_image_preview=True,
        server_inline_url_embed_preview=True,
        server_thumbnail_formats=server_thumbnail_formats(),
        server_avatar_changes_disabled=False,
        server_name_changes_disabled=False,
        server_web_public_streams_enabled=False,
        server_needs_upgrade=False,
        server_can_summarize_topics=False,
        server_report_message_types=REPORT_MESSAGE_TYPES,
        server_generation=SERVER_GENERATION,
        max_avatar_file_size_mib=MAX_AVATAR_FILE_SIZE_MIB,
        max_icon_file_size_mib=MAX_ICON_FILE_SIZE_MIB,
        max_logo_file_size_mib=MAX_LOGO_FILE_SIZE_MIB,
        max_bulk_new_subscription_messages=MAX_BULK_NEW_SUBSCRIPTION_MESSAGES,
        max_reminder_note_length=MAX_REMINDER_NOTE_LENGTH,
        password_min_guesses=MIN_PASSWORD_GUESSES,
    )


def realm_domains() -> list[JsonDict]:
    """The realm's allowed email domains: none can be configured, so none are listed
    (sign-up is never restricted to domains: emails_restricted_to_domains is false)."""
    return []


@state_fetcher("realm_domains")
async def _realm_domains_state(ctx: StateContext) -> None:
    ctx.state["realm_domains"] = realm_domains()

"""Organization settings: Zulip's names (without the `realm_` prefix), defaults, and the
group-valued permission settings with their default system groups. A pure data module.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from teamchat.lib import system_groups as sg

# A group-valued setting: a group id, or an anonymous group of members and subgroups.
GroupSettingValue = int | dict[str, list[int]]


class RealmSettings(msgspec.Struct, kw_only=True, frozen=True):
    allow_message_editing: bool = True
    message_content_edit_limit_seconds: int | None = 600
    message_content_delete_limit_seconds: int | None = 600
    allow_edit_history: bool = True
    message_edit_history_visibility_policy: str = "all"
    move_messages_within_stream_limit_seconds: int | None = 604800
    move_messages_between_streams_limit_seconds: int | None = 604800
    waiting_period_threshold: int = 0
    message_retention_days: int = -1
    mandatory_topics: bool = False
    topics_policy: str = "allow_empty_topic"
    enable_read_receipts: bool = True
    presence_disabled: bool = False
    default_language: str = "en"
    default_code_block_language: str = ""
    inline_image_preview: bool = True
    inline_url_embed_preview: bool = False
    digest_emails_enabled: bool = False
    digest_weekday: int = 1
    send_welcome_emails: bool = True
    invite_required: bool = True
    emails_restricted_to_domains: bool = False
    disallow_disposable_email_addresses: bool = True
    name_changes_disabled: bool = False
    email_changes_disabled: bool = False
    avatar_changes_disabled: bool = False
    require_unique_names: bool = False
    enable_spectator_access: bool = False
    enable_guest_user_indicator: bool = True
    enable_guest_user_dm_warning: bool = True
    jitsi_server_url: str | None = None
    video_chat_provider: int = 1
    giphy_rating: int = 2
    org_type: int = 0
    want_advertise_in_communities_directory: bool = False
    welcome_message_custom_text: str = ""
    message_content_allowed_in_email_notifications: bool = True
    new_stream_announcements_stream_id: int = -1
    signup_announcements_stream_id: int = -1
    zulip_update_announcements_stream_id: int = -1
    moderation_request_channel_id: int = -1
    require_e2ee_push_notifications: bool = False
    can_change_user_emails: bool = True


# Permission settings and the system group each defaults to (Zulip's defaults).
GROUP_SETTING_DEFAULTS: Mapping[str, str] = {
    "can_access_all_users_group": sg.EVERYONE,
    "can_add_custom_emoji_group": sg.MEMBERS,
    "can_add_subscribers_group": sg.MEMBERS,
    "can_create_bots_group": sg.MEMBERS,
    "can_create_groups": sg.MEMBERS,
    "can_create_private_channel_group": sg.MEMBERS,
    "can_create_public_channel_group": sg.MEMBERS,
    "can_create_web_public_channel_group": sg.OWNERS,
    "can_create_write_only_bots_group": sg.MEMBERS,
    "can_delete_any_message_group": sg.ADMINISTRATORS,
    "can_delete_own_message_group": sg.EVERYONE,
    "can_invite_users_group": sg.MEMBERS,
    "can_manage_all_groups": sg.OWNERS,
    "can_manage_billing_group": sg.ADMINISTRATORS,
    "can_mention_many_users_group": sg.ADMINISTRATORS,
    "can_move_messages_between_channels_group": sg.MEMBERS,
    "can_move_messages_between_topics_group": sg.EVERYONE,
    "can_resolve_topics_group": sg.EVERYONE,
    "can_set_delete_message_policy_group": sg.MODERATORS,
    "can_set_topics_policy_group": sg.MEMBERS,
    "can_summarize_topics_group": sg.EVERYONE,
    "create_multiuse_invite_group": sg.ADMINISTRATORS,
    "direct_message_initiator_group": sg.EVERYONE,
    "direct_message_permission_group": sg.EVERYONE,
}


def load(settings_json: str | bytes) -> RealmSettings:
    """The realm's settings: stored values over the defaults (group settings ignored here)."""
    return msgspec.json.decode(settings_json or b"{}", type=RealmSettings)


def group_settings(
    settings_json: str | bytes, system_group_ids: Mapping[str, int]
) -> dict[str, GroupSettingValue]:
    """Every permission setting's value: stored, or the id of its default system group."""
    stored = msgspec.json.decode(settings_json or b"{}")
    return {
        name: stored.get(name, system_group_ids[default])
        for name, default in GROUP_SETTING_DEFAULTS.items()
    }

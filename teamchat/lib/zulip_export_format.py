"""Zulip's `manage.py export` format: file layout, table names, codes and flag bits.

The one place both `teamchat export` (writer) and `teamchat import` (reader) learn the
format from. Pure data and conversions; no I/O. Facts from Zulip's zerver/lib/export.py and
zerver/lib/import_realm.py (the importer reads what is named here) and zerver/models.
"""

from __future__ import annotations

from collections.abc import Mapping

# --- File layout of an export directory (and of the tarball, under one top folder) -------
REALM_FILE = "realm.json"
ATTACHMENT_FILE = "attachment.json"
ANALYTICS_FILE = "analytics.json"
STATS_FILE = "stats.txt"
RECORDS_FILE = "records.json"
UPLOADS_DIR = "uploads"
AVATARS_DIR = "avatars"
EMOJI_DIR = "emoji"
REALM_ICONS_DIR = "realm_icons"
# Zulip writes zerver_message / zerver_usermessage in files of at most this many messages.
MESSAGES_PER_FILE = 1000


def message_file_name(number: int) -> str:
    """`messages-000001.json` for 1: the importer reads them from 1 until one is missing."""
    return f"messages-{number:06}.json"


# Custom emoji live under this path inside emoji/ (RealmEmoji.PATH_ID_TEMPLATE).
EMOJI_PATH_TEMPLATE = "{realm_id}/emoji/images/{file_name}"
# Avatars: "{realm_id}/{hash}" plus ".original" (the upload) or ".png" (the rendered one);
# the importer rehashes the path, so any stable name per user works.
AVATAR_ORIGINAL_SUFFIX = ".original"


def avatar_path(realm_id: int, user_id: int) -> str:
    """Base path (without suffix) of a user's avatar files inside avatars/."""
    return f"{realm_id}/user-{user_id}"


# --- Table names ----------------------------------------------------------------------
# Keys of realm.json the importer reads unconditionally (a missing one is a KeyError).
REALM_TABLES_REQUIRED = (
    "zerver_realm",
    "zerver_client",
    "zerver_userprofile",
    "zerver_userprofile_mirrordummy",
    "zerver_userprofile_crossrealm",
    "zerver_stream",
    "zerver_recipient",
    "zerver_subscription",
    "zerver_huddle",
    "zerver_defaultstream",
    "zerver_realmemoji",
    "zerver_realmdomain",
    "zerver_realmfilter",
    "zerver_realmplayground",
    "zerver_realmauthenticationmethod",
    "zerver_userpresence",
    "zerver_useractivity",
    "zerver_useractivityinterval",
    "zerver_customprofilefield",
    "zerver_customprofilefieldvalue",
    "zerver_reaction",
)
# Keys read only when present.
REALM_TABLES_OPTIONAL = (
    "zerver_usergroup",
    "zerver_namedusergroup",
    "zerver_usergroupmembership",
    "zerver_groupgroupmembership",
    "zerver_realmauditlog",
    "zerver_alertword",
    "zerver_onboardingstep",
    "zerver_usertopic",
    "zerver_muteduser",
    "zerver_service",
    "zerver_botstoragedata",
    "zerver_botconfigdata",
    "zerver_realmuserdefault",
    "zerver_scheduledmessage",
    "zerver_userstatus",
    "zerver_channelfolder",
    "zerver_savedsnippet",
    "zerver_navigationview",
    # Not in Zulip's own exports yet (widgets' state); its importer ignores the key.
    "zerver_submessage",
)
MESSAGE_TABLES = ("zerver_message", "zerver_usermessage")
# zerver_message.edit_history is a JSON string (or null) of entries, newest first, each with
# user_id, timestamp and prev_content/prev_rendered_content/prev_rendered_content_version,
# prev_topic/topic, prev_stream/stream as they apply.
ATTACHMENT_TABLE = "zerver_attachment"

# Fields Zulip stores as datetimes; the export writes them as float UNIX timestamps.
DATE_FIELDS: Mapping[str, tuple[str, ...]] = {
    "zerver_attachment": ("create_time",),
    "zerver_message": ("last_edit_time", "date_sent"),
    "zerver_muteduser": ("date_muted",),
    "zerver_realmauditlog": ("event_time",),
    "zerver_realm": ("date_created",),
    "zerver_scheduledmessage": ("scheduled_timestamp",),
    "zerver_stream": ("date_created",),
    "zerver_useractivityinterval": ("start", "end"),
    "zerver_useractivity": ("last_visit",),
    "zerver_onboardingstep": ("timestamp",),
    "zerver_userpresence": ("last_active_time", "last_connected_time"),
    "zerver_userprofile": ("date_joined", "last_login", "last_reminder"),
    "zerver_userprofile_mirrordummy": ("date_joined", "last_login", "last_reminder"),
    "zerver_userstatus": ("timestamp",),
    "zerver_usertopic": ("last_updated",),
}

# --- Codes -----------------------------------------------------------------------------
# Recipient.type
RECIPIENT_PERSONAL = 1
RECIPIENT_STREAM = 2
RECIPIENT_DIRECT_MESSAGE_GROUP = 3
# UserProfile.role: the same numbers as teamchat's roles.
ROLE_OWNER, ROLE_ADMINISTRATOR, ROLE_MODERATOR, ROLE_MEMBER, ROLE_GUEST = 100, 200, 300, 400, 600
# RealmExport.type (the API's export_type); FULL_WITHOUT_CONSENT is the CLI's default.
EXPORT_PUBLIC = 1
EXPORT_FULL_WITH_CONSENT = 2
EXPORT_FULL_WITHOUT_CONSENT = 3
EXPORT_TYPES = (EXPORT_PUBLIC, EXPORT_FULL_WITH_CONSENT, EXPORT_FULL_WITHOUT_CONSENT)
# Message.type: normal messages (Zulip also has resolve-topic notifications, 2).
MESSAGE_TYPE_NORMAL = 1
# Realm/Stream policies Zulip stores as integers (teamchat and the API use the names).
EDIT_HISTORY_POLICY: Mapping[str, int] = {"all": 1, "moves": 2, "none": 3}
TOPICS_POLICY: Mapping[str, int] = {
    "inherit": 1,
    "allow_empty_topic": 2,
    "disable_empty_topic": 3,
    "empty_topic_only": 4,
}
# Client names used where teamchat keeps no client (zerver_client rows).
DEFAULT_CLIENT = "Internal"
# Zulip's system bots; exports reference them in zerver_userprofile_crossrealm.
CROSS_REALM_BOT_EMAILS = (
    "notification-bot@zulip.com",
    "emailgateway@zulip.com",
    "welcome-bot@zulip.com",
)

# --- UserMessage.flags bits (Zulip's ALL_FLAGS order; bit n = 1 << n) ------------------
ZULIP_FLAG_ORDER = (
    "read",
    "starred",
    "collapsed",
    "mentioned",
    "stream_wildcard_mentioned",
    "topic_wildcard_mentioned",
    "group_mentioned",
    "force_expand",
    "force_collapse",
    "has_alert_word",
    "historical",
    "is_private",
    "active_mobile_push_notification",
)
ZULIP_FLAG_BITS: Mapping[str, int] = {name: 1 << n for n, name in enumerate(ZULIP_FLAG_ORDER)}
# teamchat's bits (teamchat.lib.flags) by the same names; group mentions are `mentioned`.
_TEAMCHAT_FLAG_BITS: Mapping[str, int] = {
    "read": 1,
    "starred": 2,
    "collapsed": 4,
    "mentioned": 8,
    "stream_wildcard_mentioned": 16,
    "topic_wildcard_mentioned": 32,
    "has_alert_word": 64,
    "historical": 128,
    "is_private": 256,
}


def zulip_flags_mask(teamchat_flags: int) -> int:
    """The `flags_mask` Zulip's importer reads for a teamchat `user_message.flags`."""
    mask = 0
    for name, bit in _TEAMCHAT_FLAG_BITS.items():
        if teamchat_flags & bit:
            mask |= ZULIP_FLAG_BITS[name]
    return mask


def teamchat_flags(zulip_flags_mask_value: int) -> int:
    """teamchat's `user_message.flags` for a Zulip `flags_mask` (unknown bits dropped)."""
    flags = 0
    for name, bit in _TEAMCHAT_FLAG_BITS.items():
        if zulip_flags_mask_value & ZULIP_FLAG_BITS[name]:
            flags |= bit
    if zulip_flags_mask_value & ZULIP_FLAG_BITS["group_mentioned"]:
        flags |= _TEAMCHAT_FLAG_BITS["mentioned"]
    return flags

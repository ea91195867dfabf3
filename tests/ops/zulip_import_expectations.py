"""What Zulip's importer reads from an export, as data (written independently of teamchat).

Taken from zulip/zulip zerver/lib/import_realm.py (do_import_realm, import_message_data,
import_attachments, import_uploads, fix_* and re_map_* helpers) and zerver/lib/export.py
(DATE_FIELDS, write_records_json_file): every key it indexes (`item[key]`, a KeyError when
missing) with the type it needs. `FLOAT` marks datetimes the importer passes to
datetime.fromtimestamp; `ID_OR_NONE` foreign keys it remaps (None stays None).
"""

from __future__ import annotations

INT, STR, BOOL, LIST = "int", "str", "bool", "list"
FLOAT_OR_NONE = "float|None"
FLOAT = "float"
ID_OR_NONE = "int|None"
STR_OR_NONE = "str|None"

# realm.json: tables read unconditionally, each with the keys read from every row.
REALM_JSON: dict[str, dict[str, str]] = {
    "zerver_realm": {
        "id": INT,
        "string_id": STR,
        "name": STR,
        "date_created": FLOAT,
        "deactivated": BOOL,
        "new_stream_announcements_stream": ID_OR_NONE,
        "signup_announcements_stream": ID_OR_NONE,
        "zulip_update_announcements_stream": ID_OR_NONE,
        # Realm.REALM_PERMISSION_GROUP_SETTINGS (remapped as user group ids).
        "can_access_all_users_group": INT,
        "can_add_custom_emoji_group": INT,
        "can_create_groups": INT,
        "can_create_private_channel_group": INT,
        "can_create_public_channel_group": INT,
        "can_create_web_public_channel_group": INT,
        "can_delete_any_message_group": INT,
        "can_delete_own_message_group": INT,
        "can_invite_users_group": INT,
        "can_manage_all_groups": INT,
        "can_mention_many_users_group": INT,
        "can_move_messages_between_channels_group": INT,
        "can_move_messages_between_topics_group": INT,
        "create_multiuse_invite_group": INT,
        "direct_message_initiator_group": INT,
        "direct_message_permission_group": INT,
    },
    "zerver_client": {"id": INT, "name": STR},
    "zerver_userprofile": {
        "id": INT,
        "realm": INT,
        "email": STR,
        "delivery_email": STR,
        "full_name": STR,
        "role": INT,
        "is_active": BOOL,
        "is_bot": BOOL,
        "is_mirror_dummy": BOOL,
        "bot_owner": ID_OR_NONE,
        "default_sending_stream": ID_OR_NONE,
        "default_events_register_stream": ID_OR_NONE,
        "last_active_message_id": ID_OR_NONE,
        "user_permissions": LIST,
        "groups": LIST,
        "translate_emoticons": BOOL,
        "date_joined": FLOAT,
        "last_login": FLOAT_OR_NONE,
        "last_reminder": FLOAT_OR_NONE,
    },
    "zerver_userprofile_mirrordummy": {"id": INT},
    "zerver_userprofile_crossrealm": {"id": INT, "email": STR, "recipient_id": INT},
    "zerver_stream": {
        "id": INT,
        "realm": INT,
        "name": STR,
        "description": STR,
        "creator": ID_OR_NONE,
        "can_remove_subscribers_group": INT,
        "date_created": FLOAT,
    },
    "zerver_recipient": {"id": INT, "type": INT, "type_id": INT},
    "zerver_subscription": {"id": INT, "user_profile": INT, "recipient": INT},
    # DirectMessageGroup (still the zerver_huddle table): group_size is NOT NULL, no default.
    "zerver_huddle": {"id": INT, "huddle_hash": STR, "group_size": INT},
    "zerver_defaultstream": {"id": INT, "realm": INT, "stream": INT},
    "zerver_realmemoji": {"id": INT, "realm": INT, "author": ID_OR_NONE, "name": STR},
    "zerver_realmdomain": {"id": INT, "realm": INT},
    "zerver_realmfilter": {"id": INT, "realm": INT, "pattern": STR, "url_template": STR},
    "zerver_realmplayground": {"id": INT, "realm": INT},
    "zerver_realmauthenticationmethod": {"id": INT, "realm": INT, "name": STR},
    "zerver_userpresence": {
        "id": INT,
        "user_profile": INT,
        "realm": INT,
        "last_active_time": FLOAT_OR_NONE,
        "last_connected_time": FLOAT_OR_NONE,
    },
    "zerver_useractivity": {"id": INT, "user_profile": INT, "client": INT, "last_visit": FLOAT},
    "zerver_useractivityinterval": {"id": INT, "user_profile": INT, "start": FLOAT, "end": FLOAT},
    "zerver_customprofilefield": {"id": INT, "realm": INT, "field_type": INT},
    "zerver_customprofilefieldvalue": {"id": INT, "user_profile": INT, "field": INT, "value": STR},
    "zerver_reaction": {
        "id": INT,
        "message": INT,
        "user_profile": INT,
        "emoji_name": STR,
        "emoji_code": STR,
        "reaction_type": STR,
    },
}
# realm.json tables read only when present, with the same rule.
REALM_JSON_OPTIONAL: dict[str, dict[str, str]] = {
    "zerver_usergroup": {"id": INT, "realm": INT},
    "zerver_namedusergroup": {
        "usergroup_ptr": INT,
        "realm_for_sharding": INT,
        "name": STR,
        "description": STR,
        "is_system_group": BOOL,
        "can_mention_group": INT,
    },
    "zerver_usergroupmembership": {"id": INT, "user_group": INT, "user_profile": INT},
    "zerver_groupgroupmembership": {"id": INT, "supergroup": INT, "subgroup": INT},
    "zerver_alertword": {"id": INT, "user_profile": INT, "realm": INT},
    "zerver_usertopic": {
        "id": INT,
        "user_profile": INT,
        "stream": INT,
        "recipient": INT,
        "last_updated": FLOAT,
    },
    "zerver_muteduser": {"id": INT, "user_profile": INT, "muted_user": INT, "date_muted": FLOAT},
    "zerver_service": {"id": INT, "user_profile": INT, "token": STR},
    "zerver_botstoragedata": {"id": INT, "bot_profile": INT},
    "zerver_botconfigdata": {"id": INT, "bot_profile": INT},
    "zerver_realmuserdefault": {"id": INT, "realm": INT},
    "zerver_scheduledmessage": {
        "id": INT,
        "sender": INT,
        "recipient": INT,
        "sending_client": INT,
        "stream": ID_OR_NONE,
        "realm": INT,
        "delivered_message": ID_OR_NONE,
        "has_attachment": BOOL,
        "content": STR,
        "rendered_content": STR_OR_NONE,
        "scheduled_timestamp": FLOAT,
    },
    "zerver_userstatus": {
        "id": INT,
        "user_profile": INT,
        "client": INT,
        "timestamp": FLOAT,
        "emoji_name": STR,
        "emoji_code": STR,
        "reaction_type": STR,
    },
}
# messages-000001.json ...
MESSAGE_FILE: dict[str, dict[str, str]] = {
    "zerver_message": {
        "id": INT,
        "sender": INT,
        "recipient": INT,
        "sending_client": INT,
        "realm": INT,
        "content": STR,
        "rendered_content": STR_OR_NONE,
        "has_attachment": BOOL,
        "date_sent": FLOAT,
        "last_edit_time": FLOAT_OR_NONE,
    },
    "zerver_usermessage": {"message": INT, "user_profile": INT, "flags_mask": INT},
}
ATTACHMENT_FILE: dict[str, dict[str, str]] = {
    "zerver_attachment": {
        "id": INT,
        "owner": INT,
        "realm": INT,
        "path_id": STR,
        "create_time": FLOAT,
        "messages": LIST,
        "scheduled_messages": LIST,
    },
}
# records.json of uploads/ and avatars/ (realm_id and user_profile_id are remapped).
UPLOAD_RECORD = {"path": STR, "s3_path": STR, "realm_id": INT, "user_profile_id": INT}
EMOJI_RECORD = {"path": STR, "s3_path": STR, "realm_id": INT, "file_name": STR}
# Zulip's system bots, which exports list as cross-realm users.
CROSS_REALM_EMAILS = {
    "notification-bot@zulip.com",
    "emailgateway@zulip.com",
    "welcome-bot@zulip.com",
}
# UserMessage.flags bits (AbstractUserMessage.ALL_FLAGS order).
FLAG_BITS = {"read": 1, "starred": 2, "mentioned": 8, "has_alert_word": 512, "is_private": 2048}

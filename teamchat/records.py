"""Frozen row Structs returned by the store, and the enums their columns hold.

A leaf module: stdlib and msgspec only. Rows are plain data; Zulip's JSON shapes are built
from them in `teamchat.lib.wire`.
"""

from __future__ import annotations

from enum import IntEnum

import msgspec


class Role(IntEnum):
    OWNER = 100
    ADMINISTRATOR = 200
    MODERATOR = 300
    MEMBER = 400
    GUEST = 600


ROLE_BY_NAME = {
    "owner": Role.OWNER,
    "admin": Role.ADMINISTRATOR,
    "administrator": Role.ADMINISTRATOR,
    "moderator": Role.MODERATOR,
    "member": Role.MEMBER,
    "guest": Role.GUEST,
}


class EmailVisibility(IntEnum):
    EVERYONE = 1
    MEMBERS = 2
    ADMINS = 3
    NOBODY = 4
    MODERATORS = 5


class BotType(IntEnum):
    GENERIC = 1
    INCOMING_WEBHOOK = 2
    OUTGOING_WEBHOOK = 3
    EMBEDDED = 4


class RealmRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    string_id: str
    name: str
    description: str
    # `description` (Markdown) rendered and sanitized: what clients are shown.
    rendered_description: str
    host: str
    date_created: int
    # JSON object of the realm settings that differ from their defaults.
    settings_json: str
    deactivated: bool = False


class UserRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    delivery_email: str
    full_name: str
    api_key: str
    password_hash: str | None
    role: Role
    is_active: bool
    is_bot: bool
    bot_type: int | None
    bot_owner_id: int | None
    date_joined: int
    timezone: str
    avatar_source: str
    avatar_version: int
    email_address_visibility: EmailVisibility
    # JSON object of the user's own settings (copied from the realm defaults at creation).
    settings_json: str

    @property
    def is_admin(self) -> bool:
        return self.role <= Role.ADMINISTRATOR

    @property
    def is_owner(self) -> bool:
        return self.role == Role.OWNER

    @property
    def is_moderator(self) -> bool:
        return self.role <= Role.MODERATOR

    @property
    def is_guest(self) -> bool:
        return self.role == Role.GUEST


class UserGroupRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    name: str
    description: str
    is_system_group: bool
    deactivated: bool
    date_created: int | None
    creator_id: int | None
    # JSON object: the group's own permission settings (group ids or anonymous groups).
    settings_json: str


class ChannelFolderRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    name: str
    description: str
    rendered_description: str
    order: int
    date_created: int
    creator_id: int | None
    is_archived: bool


class LinkifierRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    pattern: str
    url_template: str
    order: int


class PlaygroundRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    name: str
    pygments_language: str
    url_template: str


class InvitationRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    # None for a reusable invitation link.
    email: str | None
    key: str
    referred_by: int
    invited_as: int
    date_created: int
    # None: never expires.
    expiry_date: int | None
    # 0 active, 1 used (email invitations), 2 revoked.
    status: int
    stream_ids: list[int]
    group_ids: list[int]
    include_realm_default_subscriptions: bool
    notify_referrer_on_join: bool
    welcome_message_custom_text: str | None

    @property
    def is_multiuse(self) -> bool:
        return self.email is None


class ClientDeviceRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    user_id: int
    date_created: int
    push_key_id: int | None
    push_key: bytes | None
    token_kind: str | None
    token_id: bytes | None
    bouncer_public_key: str | None
    encrypted_push_registration: str | None
    push_updated: int | None


class LegacyPushTokenRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    user_id: int
    kind: str
    token: str
    ios_app_id: str | None
    date_created: int


class CustomProfileFieldRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    name: str
    hint: str
    field_type: int
    # JSON text for Dropdown (3) and External account (7) fields, else "".
    field_data: str
    order: int
    display_in_profile_summary: bool
    required: bool
    editable_by_user: bool
    use_for_user_matching: bool


class ProfileValueRow(msgspec.Struct, frozen=True, kw_only=True):
    user_id: int
    field_id: int
    value: str
    rendered_value: str | None


class PresenceRow(msgspec.Struct, frozen=True, kw_only=True):
    user_id: int
    last_active_time: int | None
    last_connected_time: int | None
    last_update_id: int


class UserStatusRow(msgspec.Struct, frozen=True, kw_only=True):
    user_id: int
    timestamp: int
    status_text: str
    emoji_name: str
    emoji_code: str
    reaction_type: str


class BotServiceRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    bot_id: int
    name: str
    base_url: str
    interface: int
    token: str


class MutedUserRow(msgspec.Struct, frozen=True, kw_only=True):
    user_id: int
    muted_user_id: int
    date_muted: int


class AttachmentRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    path_id: str
    file_name: str
    content_type: str
    size: int
    owner_id: int
    create_time: int


class ImageAttachmentRow(msgspec.Struct, frozen=True, kw_only=True):
    """An uploaded image: its size as shown, frames, and thumbnail state (Zulip's
    ImageAttachment). `state` is "pending", "ready" or "failed"."""

    attachment_id: int
    path_id: str
    content_type: str
    width: int
    height: int
    frames: int
    state: str
    thumbnail_names: tuple[str, ...] = ()


class RealmExportRow(msgspec.Struct, frozen=True, kw_only=True):
    """An export requested through the API (Zulip's RealmExport)."""

    id: int
    acting_user_id: int
    export_type: int
    status: int
    date_requested: int
    date_succeeded: int | None
    date_failed: int | None
    date_deleted: int | None
    realm_url: str
    secret: str
    file_name: str | None
    size: int | None


class RealmEmojiRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    name: str
    file_name: str
    content_type: str
    author_id: int | None
    date_created: int
    deactivated: bool
    # Whether a still (first frame) of an animated image is stored.
    has_still: bool


class StreamRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    name: str
    description: str
    rendered_description: str
    invite_only: bool
    is_web_public: bool
    history_public_to_subscribers: bool
    message_retention_days: int | None
    topics_policy: str
    date_created: int
    creator_id: int | None
    is_archived: bool
    first_message_id: int | None
    folder_id: int | None
    recipient_id: int
    # JSON object: permission setting name -> group id or anonymous group.
    settings_json: str

    @property
    def is_public(self) -> bool:
        return not self.invite_only


class SubscriptionRow(msgspec.Struct, frozen=True, kw_only=True):
    stream_id: int
    user_id: int
    active: bool
    color: str
    is_muted: bool
    pin_to_top: bool
    desktop_notifications: bool | None
    audible_notifications: bool | None
    push_notifications: bool | None
    email_notifications: bool | None
    wildcard_mentions_notify: bool | None


class MessageRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    sender_id: int
    recipient_id: int
    # None for direct messages.
    stream_id: int | None
    topic: str
    content: str
    rendered_content: str
    client: str
    date_sent: int
    last_edit_time: int | None
    last_moved_time: int | None
    # JSON list of edit entries, oldest first.
    edit_history: str | None
    has_link: bool
    has_image: bool
    has_attachment: bool
    is_me_message: bool

    @property
    def is_stream_message(self) -> bool:
        return self.stream_id is not None


class ReactionRow(msgspec.Struct, frozen=True, kw_only=True):
    message_id: int
    user_id: int
    emoji_name: str
    emoji_code: str
    reaction_type: str


class UserTopicRow(msgspec.Struct, frozen=True, kw_only=True):
    user_id: int
    stream_id: int
    topic_name: str
    visibility_policy: int
    last_updated: int


class SavedSnippetRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    user_id: int
    title: str
    content: str
    date_created: int


class ChangeLogRow(msgspec.Struct, frozen=True, kw_only=True):
    """One change another process made: an event to publish (with its audience as JSON)
    or a user whose queues to drop."""

    id: int
    kind: str
    payload_json: str
    audience_json: str
    created_at: float


class NavigationViewRow(msgspec.Struct, frozen=True, kw_only=True):
    user_id: int
    fragment: str
    is_pinned: bool
    name: str | None


class SubmessageRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    message_id: int
    sender_id: int
    msg_type: str
    content: str


class ScheduledMessageRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    sender_id: int
    delivery_type: str  # "send_later" or "remind"
    recipient_type: str  # "stream" or "private"
    stream_id: int | None
    to_user_ids: list[int]
    topic: str
    content: str
    rendered_content: str
    scheduled_timestamp: int
    read_by_sender: bool
    client: str
    failed: bool
    failure_message: str | None
    reminder_target_message_id: int | None
    reminder_note: str | None
    realm_url: str


class BotDefaultsRow(msgspec.Struct, frozen=True, kw_only=True):
    bot_id: int
    sending_stream_id: int | None = None
    events_register_stream_id: int | None = None
    all_public_streams: bool = False
    # Names of those channels (read with the row; None when unset).
    sending_stream: str | None = None
    events_register_stream: str | None = None


class DraftRow(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    user_id: int
    type: str  # "stream", "private" or ""
    to: list[int]
    topic: str
    content: str
    timestamp: int


class WebSessionRow(msgspec.Struct, frozen=True, kw_only=True):
    key_hash: str  # sha256 of the cookie's token
    user_id: int
    csrf_token: str
    auth_fingerprint: str  # sha256 of the password hash at log-in
    created_at: float
    expires_at: float

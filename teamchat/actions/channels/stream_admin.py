"""Administering a channel: PATCH /streams/{id} (name, description, privacy, settings,
unarchiving) and DELETE /streams/{id} (archiving).

Events: `stream` update per changed property to everyone who can see the channel; `stream`
create/delete (and `peer_add`) to users who gain or lose sight of it; archiving reaches
`archived_channels` clients as an update and the others as a delete.
"""

from __future__ import annotations

from typing import Any

import msgspec

from teamchat.actions.channels import channel_access as access
from teamchat.actions.channels.channel_state import notification_defaults, subscription_objects
from teamchat.actions.channels.streams import (
    check_folder,
    check_group_setting_value,
    render_description,
)
from teamchat.actions.org.permissions import has_realm_permission
from teamchat.errors import (
    OrganizationOwnerRequiredError,
    ZulipError,
)
from teamchat.events.internal import IF_CAPS
from teamchat.events.types_streams import (
    NOTIFICATION_DEFAULTS,
    StreamCreateEvent,
    StreamDeleteEvent,
    StreamUpdateEvent,
    SubscriptionAddEvent,
    SubscriptionPeerAddEvent,
)
from teamchat.lib import channels as ch
from teamchat.lib import realm_settings
from teamchat.lib.api_types import JsonDict
from teamchat.lib.realm_settings import GroupSettingValue
from teamchat.lib.text import check_text
from teamchat.records import StreamRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import realm as realm_store
from teamchat.store import streams as stream_store
from teamchat.store import subscriptions as sub_store
from teamchat.store import users as user_store
from teamchat.store.db import Conn, Tx

UNCHANGED: Any = object()
# Settings whose holders may read the channel, so changing them needs content access.
CONTENT_SETTINGS = frozenset({"can_add_subscribers_group", "can_subscribe_group"})


class GroupSettingChange(msgspec.Struct, kw_only=True):
    new: GroupSettingValue
    old: GroupSettingValue | None = None


class StreamChange(msgspec.Struct, kw_only=True):
    """The PATCH /streams/{id} parameters; None means "not given"."""

    description: str | None = None
    new_name: str | None = None
    is_private: bool | None = None
    is_web_public: bool | None = None
    history_public_to_subscribers: bool | None = None
    # UNCHANGED when not given; None means the organization default.
    message_retention_days: Any = UNCHANGED
    topics_policy: str | None = None
    is_archived: bool | None = None
    # UNCHANGED when not given; None removes the channel from its folder.
    folder_id: Any = UNCHANGED
    group_settings: dict[str, GroupSettingChange] = msgspec.field(default_factory=dict)


async def access_stream_for_admin(conn: Conn, user: UserRow, stream_id: int) -> StreamRow:
    """A channel `user` may administer: realm admins, or its can_administer_channel_group."""
    stream, _ = await access.access_stream_by_id(conn, user, stream_id, content=False)
    if user.is_admin:
        return stream
    group_ids = await stream_store.user_group_ids(conn, user)
    settings = ch.group_settings(stream)
    if not ch.is_in_setting(settings["can_administer_channel_group"], user.id, group_ids):
        # zulip-compat: access_stream_for_administration's words (a plain JsonableError).
        raise ZulipError("You do not have permission to administer this channel.")
    return stream


def _proposed_privacy(stream: StreamRow, change: StreamChange) -> tuple[bool, bool, bool]:
    invite_only = stream.invite_only if change.is_private is None else change.is_private
    web_public = stream.is_web_public if change.is_web_public is None else change.is_web_public
    if change.history_public_to_subscribers is not None:
        history = change.history_public_to_subscribers
    elif change.is_private is not None:
        history = not change.is_private
    else:
        history = stream.history_public_to_subscribers
    if (web_public and (not history or invite_only)) or (not invite_only and not history):
        raise ZulipError("Invalid parameters")
    return invite_only, web_public, history


async def check_update_stream(
    rt: Runtime, user: UserRow, stream_id: int, change: StreamChange
) -> None:
    """Validate PATCH /streams/{id} and apply every given change."""
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        assert realm is not None
        stream = await access_stream_for_admin(conn, user, stream_id)
        invite_only, web_public, history = _proposed_privacy(stream, change)
        sub = await sub_store.get_subscription(conn, user.id, stream.id)
        group_ids = await stream_store.user_group_ids(conn, user)
        content = access.has_content_access(user, stream, sub is not None and sub.active, group_ids)
        needs_content = change.is_private is not None or bool(
            CONTENT_SETTINGS & set(change.group_settings)
        )
        if needs_content and not content:
            raise ZulipError("Channel content access is required.")
        if change.is_private is not None:
            setting = "can_create_private_channel_group" if invite_only else None
            setting = setting or "can_create_public_channel_group"
            if not await has_realm_permission(conn, realm, user, setting):
                raise ZulipError("Insufficient permission")
        if change.is_web_public:
            if not realm_settings.load(realm.settings_json).enable_spectator_access:
                raise ZulipError("Web-public channels are not enabled.")
            if not await has_realm_permission(
                conn, realm, user, "can_create_web_public_channel_group"
            ):
                raise ZulipError("Insufficient permission")
        if change.message_retention_days is not UNCHANGED and not user.is_owner:
            raise OrganizationOwnerRequiredError()
        if change.topics_policy is not None and not await has_realm_permission(
            conn, realm, user, "can_set_topics_policy_group"
        ):
            raise ZulipError("Insufficient permission")
        fields = await _changed_fields(conn, user, stream, change)
    if (invite_only, web_public, history) != (
        stream.invite_only,
        stream.is_web_public,
        stream.history_public_to_subscribers,
    ):
        fields.update(
            invite_only=invite_only, is_web_public=web_public, history_public_to_subscribers=history
        )
    if fields:
        await do_update_stream(rt, stream, fields)


async def _changed_fields(
    conn: Conn, user: UserRow, stream: StreamRow, change: StreamChange
) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if change.description is not None:
        check_text(
            "description", change.description, max_chars=ch.MAX_DESCRIPTION_LENGTH, multiline=True
        )
        fields["description"] = change.description.replace("\n", " ")
        fields["rendered_description"] = await render_description(conn, user, fields["description"])
    if change.new_name is not None:
        fields["name"] = await _checked_new_name(conn, stream, change.new_name)
    if change.message_retention_days is not UNCHANGED:
        fields["message_retention_days"] = change.message_retention_days
    if change.topics_policy is not None:
        fields["topics_policy"] = change.topics_policy
    if change.folder_id is not UNCHANGED:
        await check_folder(conn, change.folder_id)
        fields["folder_id"] = change.folder_id
    if change.is_archived is False and stream.is_archived:
        fields["is_archived"] = False
    if change.group_settings:
        settings = ch.group_settings(stream)
        for name, setting in change.group_settings.items():
            if setting.old is not None and _canonical(setting.old) != _canonical(settings[name]):
                raise ZulipError("'old' value does not match the expected value.")
            await check_group_setting_value(conn, name, setting.new)
            settings[name] = setting.new
        fields["settings_json"] = msgspec.json.encode(settings).decode()
    return fields


async def _checked_new_name(conn: Conn, stream: StreamRow, raw: str) -> str:
    new_name = raw.strip()
    if new_name == stream.name:
        raise ZulipError("Channel already has that name.")
    ch.check_stream_name(new_name)
    taken = await stream_store.get_stream_by_name(conn, new_name)
    # Only the case may change (the old name is then "taken" by this very channel).
    if taken is not None and taken.id != stream.id:
        raise ZulipError("Channel name already in use.")
    return new_name


def _canonical(value: GroupSettingValue) -> object:
    if isinstance(value, int):
        return value
    return (sorted(value.get("direct_members", [])), sorted(value.get("direct_subgroups", [])))


async def do_update_stream(rt: Runtime, stream: StreamRow, fields: dict[str, Any]) -> None:
    """Store the changed columns and send the events clients need to follow them."""
    async with rt.db.write() as tx:
        before = await access.stream_audience(tx, stream)
        await stream_store.update_stream(tx, stream.id, **fields)
        updated = await stream_store.get_stream_by_id(tx, stream.id)
        assert updated is not None
        after = await access.stream_audience(tx, updated)
        everyone = sorted(set(before) | set(after))
        if fields.get("is_archived") is False:
            await _publish_unarchived(rt, tx, updated, after)
        for event in _update_events(stream, updated, fields):
            _publish(rt, tx, event, everyone)
        await _publish_visibility(rt, tx, updated, before, after)


def _update_events(old: StreamRow, new: StreamRow, fields: dict[str, Any]) -> list[JsonDict]:
    events: list[StreamUpdateEvent] = []

    def add(prop: str, value: object, **extra: Any) -> None:
        events.append(
            StreamUpdateEvent(stream_id=new.id, name=old.name, property=prop, value=value, **extra)
        )

    if "name" in fields:
        add("name", new.name)
    if "description" in fields:
        add("description", new.description, rendered_description=new.rendered_description)
    if old.invite_only != new.invite_only:
        add(
            "invite_only",
            new.invite_only,
            history_public_to_subscribers=new.history_public_to_subscribers,
            is_web_public=new.is_web_public,
        )
    else:
        if old.history_public_to_subscribers != new.history_public_to_subscribers:
            add("history_public_to_subscribers", new.history_public_to_subscribers)
        if old.is_web_public != new.is_web_public:
            add("is_web_public", new.is_web_public)
    for prop in ("message_retention_days", "topics_policy", "folder_id"):
        if prop in fields:
            add(prop, getattr(new, prop))
    if "settings_json" in fields:
        old_settings, new_settings = ch.group_settings(old), ch.group_settings(new)
        for name in ch.CHANNEL_GROUP_SETTING_DEFAULTS:
            if _canonical(old_settings[name]) != _canonical(new_settings[name]):
                add(name, msgspec.to_builtins(ch.wire_setting(new_settings[name])))
    return [msgspec.to_builtins(e) for e in events]


async def _publish_visibility(
    rt: Runtime, tx: Tx, stream: StreamRow, before: list[int], after: list[int]
) -> None:
    gained = sorted(set(after) - set(before))
    lost = sorted(set(before) - set(after))
    objects = await access.channel_objects(tx, [stream], rt.now())
    if gained:
        # Subscribers (and their count) follow in peer_add, as for a brand-new channel.
        fresh = [msgspec.structs.replace(obj, subscriber_count=0) for obj in objects]
        _publish(rt, tx, msgspec.to_builtins(StreamCreateEvent(streams=fresh)), gained)
        subscribers = (await sub_store.subscriber_ids(tx, [stream.id])).get(stream.id, [])
        if subscribers:
            event = SubscriptionPeerAddEvent(stream_ids=[stream.id], user_ids=subscribers)
            _publish(rt, tx, msgspec.to_builtins(event), gained)
    if lost:
        await sub_store.delete_inactive(tx, stream.id, lost)
        delete = StreamDeleteEvent(streams=objects, stream_ids=[stream.id])
        _publish(rt, tx, msgspec.to_builtins(delete), lost)


def _publish(rt: Runtime, tx: Tx, payload: JsonDict, audience: list[int]) -> None:
    tx.after_commit(lambda: rt.broker.publish(payload, audience))


async def check_archive_stream(rt: Runtime, user: UserRow, stream_id: int) -> None:
    """DELETE /streams/{id}: channel administrators archive a channel once."""
    async with rt.db.read() as conn:
        stream = await access_stream_for_admin(conn, user, stream_id)
    if stream.is_archived:
        raise ZulipError("Channel is already deactivated")
    await do_archive_stream(rt, stream)


async def do_archive_stream(rt: Runtime, stream: StreamRow) -> None:
    """Archive the channel; subscriptions are kept so it can be unarchived."""
    async with rt.db.write() as tx:
        audience = await access.stream_audience(tx, stream)
        await stream_store.update_stream(tx, stream.id, is_archived=True)
        objects = await access.channel_objects(tx, [stream], rt.now())
        update = StreamUpdateEvent(
            stream_id=stream.id, name=stream.name, property="is_archived", value=True
        )
        modern = {**msgspec.to_builtins(update), IF_CAPS: {"archived_channels": True}}
        legacy = {
            **msgspec.to_builtins(StreamDeleteEvent(streams=objects, stream_ids=[stream.id])),
            IF_CAPS: {"archived_channels": False},
        }
        _publish(rt, tx, modern, audience)
        _publish(rt, tx, legacy, audience)


async def _publish_unarchived(rt: Runtime, tx: Tx, stream: StreamRow, audience: list[int]) -> None:
    """Tell `archived_channels` clients; legacy clients were told the channel was deleted,
    so recreate it and its subscriptions for them."""
    update = StreamUpdateEvent(
        stream_id=stream.id, name=stream.name, property="is_archived", value=False
    )
    modern = {**msgspec.to_builtins(update), IF_CAPS: {"archived_channels": True}}
    _publish(rt, tx, modern, audience)
    legacy = {IF_CAPS: {"archived_channels": False}}
    objects = await access.channel_objects(tx, [stream], rt.now())
    _publish(
        rt, tx, {**msgspec.to_builtins(StreamCreateEvent(streams=objects)), **legacy}, audience
    )
    for user_id in (await sub_store.subscriber_ids(tx, [stream.id])).get(stream.id, []):
        sub = await sub_store.get_subscription(tx, user_id, stream.id)
        user = await user_store.get_user_by_id(tx, user_id)
        assert sub is not None and user is not None
        subs = await subscription_objects(tx, [(stream, sub)], rt.now(), include_subscribers=True)
        payload = {
            **msgspec.to_builtins(SubscriptionAddEvent(subscriptions=subs)),
            NOTIFICATION_DEFAULTS: notification_defaults(user),
            **legacy,
        }
        _publish(rt, tx, payload, [user_id])

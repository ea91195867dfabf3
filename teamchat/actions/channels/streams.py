"""Creating channels (through subscribing) and the checks that come with it.

Events: `stream` create to everyone who can see a new channel (before anyone is subscribed),
then the subscription events of `teamchat.actions.channels.subscriptions`.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from teamchat.actions.channels import channel_access as access
from teamchat.actions.channels import subscriptions as subs
from teamchat.actions.channels.stream_notifications import send_subscription_messages
from teamchat.actions.messages.message_common import render
from teamchat.actions.org.permissions import has_realm_permission
from teamchat.errors import OrganizationOwnerRequiredError, ZulipError
from teamchat.events.types_streams import StreamCreateEvent
from teamchat.lib import channels as ch
from teamchat.lib import realm_settings
from teamchat.lib import system_groups as sg
from teamchat.lib.api_types import JsonDict
from teamchat.lib.realm_settings import GroupSettingValue
from teamchat.records import RealmRow, StreamRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import channel_folders as folder_store
from teamchat.store import realm as realm_store
from teamchat.store import streams as stream_store
from teamchat.store import subscriptions as sub_store
from teamchat.store.db import Conn, Tx


class ChannelRequest(msgspec.Struct, kw_only=True):
    """One entry of `subscriptions`: a channel name, optional description and color."""

    name: str
    description: str | None = None
    color: str | None = None


class CreateOptions(msgspec.Struct, kw_only=True):
    """How channels that do not exist yet are created."""

    invite_only: bool = False
    is_web_public: bool = False
    history_public_to_subscribers: bool | None = None
    # None: the organization's policy; -1: forever.
    message_retention_days: int | None = None
    topics_policy: str = "inherit"
    folder_id: int | None = None
    group_settings: dict[str, GroupSettingValue] = msgspec.field(default_factory=dict)


class NewChannel(msgspec.Struct, kw_only=True):
    name: str
    description: str
    rendered_description: str


async def render_description(conn: Conn, user: UserRow, text: str) -> str:
    """The channel description as HTML (Zulip-flavoured Markdown, like a message)."""
    if not text:
        return ""
    return (await render(conn, user, text, "")).html


def normalize_requests(requests: Sequence[ChannelRequest]) -> list[ChannelRequest]:
    result = []
    for request in requests:
        name = request.name.strip()
        ch.check_stream_name(name)
        description = request.description
        if description is not None:
            if len(description) > ch.MAX_DESCRIPTION_LENGTH:
                raise ZulipError(
                    f"description is too long (limit: {ch.MAX_DESCRIPTION_LENGTH} characters)"
                )
            # zulip-compat: newlines in channel descriptions become spaces.
            description = description.replace("\n", " ")
        color = None if request.color is None else ch.normalize_color("add.color", request.color)
        result.append(ChannelRequest(name=name, description=description, color=color))
    return result


class Notify(msgspec.Struct, frozen=True, kw_only=True):
    """Which Notification Bot messages a subscription request asks for."""

    announce: bool
    send_new_subscription_messages: bool
    realm_url: str


async def check_add_subscriptions(
    rt: Runtime,
    user: UserRow,
    requests: Sequence[ChannelRequest],
    options: CreateOptions,
    *,
    principals: subs.Principals | None,
    authorization_errors_fatal: bool,
    notify: Notify | None = None,
) -> JsonDict:
    """POST /users/me/subscriptions: create missing channels, subscribe, report per user."""
    if user.is_guest:
        raise ZulipError("Not allowed for guest users")
    requests = normalize_requests(requests)
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        assert realm is not None
        existing, missing = await _split_requests(conn, requests)
        if missing:
            await check_create(conn, realm, user, options)
        targets = await subs.access_principals(conn, principals) if principals else [user]
        others = any(target.id != user.id for target in targets)
        authorized, unauthorized = await _authorize_existing(conn, user, existing, others)
        rendered = {
            r.name: await render_description(conn, user, r.description or "") for r in missing
        }
    if unauthorized and authorization_errors_fatal:
        raise ZulipError(f"Unable to access channel ({unauthorized[0].name}).")
    colors = {r.name: r.color for r in requests if r.color is not None}
    new = [
        NewChannel(
            name=r.name, description=r.description or "", rendered_description=rendered[r.name]
        )
        for r in missing
    ]
    change = await do_add_subscriptions(rt, user, new, authorized, targets, colors, options)
    if notify is not None:
        new_names = {channel.name for channel in new}
        created = list({s.id: s for _, s in change.done if s.name in new_names}.values())
        await send_subscription_messages(
            rt,
            user,
            change.done,
            created,
            announce=notify.announce,
            send_new_subscription_messages=notify.send_new_subscription_messages,
            realm_url=notify.realm_url,
        )
    result: JsonDict = {
        "subscribed": _by_user(change.done),
        "already_subscribed": _by_user(change.unchanged),
    }
    if not authorization_errors_fatal:
        result["unauthorized"] = [stream.name for stream in unauthorized]
    return result


async def _split_requests(
    conn: Conn, requests: Sequence[ChannelRequest]
) -> tuple[list[StreamRow], list[ChannelRequest]]:
    """(existing channels, requests for channels to create); archived ones are refused."""
    existing: dict[int, StreamRow] = {}
    missing: dict[str, ChannelRequest] = {}
    for request in requests:
        stream = await stream_store.get_stream_by_name(conn, request.name)
        if stream is None:
            missing.setdefault(request.name.lower(), request)
        elif stream.is_archived:
            raise ZulipError(f"Channel '{stream.name}' is archived.")
        else:
            existing[stream.id] = stream
    return list(existing.values()), list(missing.values())


async def _authorize_existing(
    conn: Conn, user: UserRow, streams: list[StreamRow], others: bool
) -> tuple[list[StreamRow], list[StreamRow]]:
    """(channels the user may subscribe the targets to, channels the user cannot access)."""
    authorized, unauthorized = [], []
    group_ids = await stream_store.user_group_ids(conn, user)
    for stream in streams:
        sub = await sub_store.get_subscription(conn, user.id, stream.id)
        content = access.has_content_access(user, stream, sub is not None and sub.active, group_ids)
        if others and await subs.may_add_subscribers(conn, user, stream):
            authorized.append(stream)
        elif not content:
            unauthorized.append(stream)
        elif others:
            raise ZulipError("Insufficient permission")
        else:
            authorized.append(stream)
    return authorized, unauthorized


def _by_user(pairs: list[tuple[UserRow, StreamRow]]) -> dict[str, list[str]]:
    result: dict[str, list[str]] = {}
    for user, stream in pairs:
        result.setdefault(str(user.id), []).append(stream.name)
    return result


async def check_create(conn: Conn, realm: RealmRow, user: UserRow, options: CreateOptions) -> None:
    if options.is_web_public and options.invite_only:
        raise ZulipError("Invalid parameters")
    setting = (
        "can_create_private_channel_group"
        if options.invite_only
        else "can_create_public_channel_group"
    )
    if not await has_realm_permission(conn, realm, user, setting):
        raise ZulipError("Insufficient permission")
    if options.is_web_public:
        if not realm_settings.load(realm.settings_json).enable_spectator_access:
            raise ZulipError("Web-public channels are not enabled.")
        if not await has_realm_permission(conn, realm, user, "can_create_web_public_channel_group"):
            raise ZulipError("Insufficient permission")
    if options.message_retention_days is not None and not user.is_owner:
        raise OrganizationOwnerRequiredError()
    if options.topics_policy != "inherit" and not await has_realm_permission(
        conn, realm, user, "can_set_topics_policy_group"
    ):
        raise ZulipError("Insufficient permission")
    for name, value in options.group_settings.items():
        await check_group_setting_value(conn, name, value)
    await check_folder(conn, options.folder_id)


async def check_folder(conn: Conn, folder_id: int | None) -> None:
    """A channel folder id must name an existing folder (None: no folder)."""
    if folder_id is not None and await folder_store.get_channel_folder(conn, folder_id) is None:
        raise ZulipError("Invalid channel folder ID")


async def check_group_setting_value(conn: Conn, name: str, value: GroupSettingValue) -> None:
    """Zulip's checks on a channel permission setting's new value."""
    group_ids = [value] if isinstance(value, int) else list(value.get("direct_subgroups", []))
    names = await stream_store.system_group_names(conn)
    for group_id in group_ids:
        if not await stream_store.user_group_exists(conn, group_id):
            raise ZulipError("Invalid user group")
        if names.get(group_id) in (sg.INTERNET, sg.EVERYONE) and name != "can_send_message_group":
            raise ZulipError(f"'{name}' setting cannot be set to '{names[group_id]}' group.")


async def do_add_subscriptions(
    rt: Runtime,
    user: UserRow,
    new: Sequence[NewChannel],
    existing: Sequence[StreamRow],
    targets: Sequence[UserRow],
    colors: dict[str, str],
    options: CreateOptions,
) -> subs.SubscriptionChange:
    """Create the new channels, then subscribe every target to every channel."""
    async with rt.db.write() as tx:
        created = [await create_stream(rt, tx, user, channel, options) for channel in new]
        return await subs.subscribe_users(rt, tx, [*created, *existing], targets, colors)


async def create_stream(
    rt: Runtime, tx: Tx, user: UserRow, channel: NewChannel, options: CreateOptions
) -> StreamRow:
    if await stream_store.get_stream_by_name(tx, channel.name) is not None:
        raise ZulipError(f"Channel '{channel.name}' already exists")
    system_ids = {name: gid for gid, name in (await stream_store.system_group_names(tx)).items()}
    settings = ch.default_group_settings(system_ids, user.id)
    settings.update(options.group_settings)
    history_public = True
    if options.invite_only:
        # zulip-compat: private channels default to protected history; public ones never have it.
        history_public = bool(options.history_public_to_subscribers)
    stream_id = await stream_store.insert_stream(
        tx,
        name=channel.name,
        description=channel.description,
        rendered_description=channel.rendered_description,
        invite_only=options.invite_only,
        is_web_public=options.is_web_public,
        history_public_to_subscribers=history_public,
        message_retention_days=options.message_retention_days,
        topics_policy=options.topics_policy,
        date_created=rt.now(),
        creator_id=user.id,
        settings_json=msgspec.json.encode(settings).decode(),
    )
    if options.folder_id is not None:
        await stream_store.update_stream(tx, stream_id, folder_id=options.folder_id)
    stream = await stream_store.get_stream_by_id(tx, stream_id)
    assert stream is not None
    audience = await access.stream_audience(tx, stream)
    objects = await access.channel_objects(tx, [stream], rt.now())
    payload = msgspec.to_builtins(StreamCreateEvent(streams=objects))
    tx.after_commit(lambda: rt.broker.publish(payload, audience))
    return stream

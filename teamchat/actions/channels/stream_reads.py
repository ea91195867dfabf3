"""Read-only channel endpoints: GET /streams, /streams/{id}, /get_stream_id, members,
GET /users/me/subscriptions and GET /users/{user_id}/subscriptions/{stream_id}.
"""

from __future__ import annotations

import msgspec

from teamchat.actions.channels import channel_access as access
from teamchat.actions.channels.channel_state import gather_subscriptions
from teamchat.errors import ZulipError
from teamchat.lib.api_types import JsonDict
from teamchat.lib.channel_types import ChannelObject, SubscriptionObject
from teamchat.records import StreamRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import streams as stream_store
from teamchat.store import subscriptions as sub_store
from teamchat.store import users as user_store


class StreamsQuery(msgspec.Struct, kw_only=True, frozen=True):
    """GET /streams filters (Zulip's do_get_streams)."""

    include_public: bool = True
    include_web_public: bool = False
    include_subscribed: bool = True
    exclude_archived: bool = True
    include_all: bool = False
    include_default: bool = False
    include_owner_subscribed: bool = False
    include_can_access_content: bool = False


async def get_subscriptions(
    rt: Runtime, user: UserRow, *, include_subscribers: bool
) -> list[SubscriptionObject]:
    """GET /users/me/subscriptions: the user's active, unarchived subscriptions."""
    async with rt.db.read() as conn:
        gathered = await gather_subscriptions(
            conn, user, rt.now(), include_subscribers=include_subscribers, include_archived=False
        )
    return gathered.subscriptions


async def get_streams(rt: Runtime, user: UserRow, query: StreamsQuery) -> list[JsonDict]:
    """The channels selected by the GET /streams filters, by id."""
    if query.include_all and not user.is_admin:
        raise ZulipError("User not authorized for this query")
    async with rt.db.read() as conn:
        streams = await stream_store.list_streams(conn, include_archived=not query.exclude_archived)
        subscribed = await sub_store.active_stream_ids(conn, user.id)
        owner_subscribed: set[int] = set()
        if query.include_owner_subscribed and user.is_bot and user.bot_owner_id is not None:
            owner_subscribed = await sub_store.active_stream_ids(conn, user.bot_owner_id)
        group_ids = await stream_store.user_group_ids(conn, user)
        selected = []
        for stream in streams:
            public = stream.is_public and not user.is_guest
            wanted = (
                query.include_all
                or (query.include_subscribed and stream.id in subscribed)
                or (query.include_public and public)
                or (query.include_web_public and stream.is_web_public)
                or stream.id in owner_subscribed
                or (
                    query.include_can_access_content
                    and access.has_content_access(user, stream, stream.id in subscribed, group_ids)
                )
            )
            if wanted:
                selected.append(stream)
        objects = await access.channel_objects(conn, selected, rt.now())
    result = [msgspec.to_builtins(obj) for obj in objects]
    if query.include_default:
        for item in result:
            # zulip-compat: teamchat has no default channels for new users yet.
            item["is_default"] = False
    return result


async def get_stream(rt: Runtime, user: UserRow, stream_id: int) -> ChannelObject:
    """GET /streams/{id}: a channel whose metadata the user may see."""
    async with rt.db.read() as conn:
        stream, _ = await access.access_stream_by_id(conn, user, stream_id, content=False)
        objects = await access.channel_objects(conn, [stream], rt.now())
    return objects[0]


async def get_stream_id(rt: Runtime, user: UserRow, name: str) -> int:
    """GET /get_stream_id: the id of a channel the user may read."""
    async with rt.db.read() as conn:
        stream, _ = await access.access_stream_by_name(conn, user, name)
    return stream.id


async def get_subscribers(rt: Runtime, user: UserRow, stream_id: int) -> list[int]:
    """GET /streams/{id}/members: the channel's active subscribers."""
    async with rt.db.read() as conn:
        stream, _ = await access.access_stream_by_id(conn, user, stream_id, content=False)
        subscribers = await sub_store.subscriber_ids(conn, [stream.id])
    return subscribers.get(stream.id, [])


async def is_user_subscribed(rt: Runtime, user: UserRow, target_id: int, stream_id: int) -> bool:
    """Whether `target_id` is subscribed to the channel, as `user` may know."""
    async with rt.db.read() as conn:
        target = await user_store.get_user_by_id(conn, target_id)
        if target is None:
            raise ZulipError("No such user")
        stream, _ = await access.access_stream_by_id(conn, user, stream_id, content=False)
        sub = await sub_store.get_subscription(conn, target.id, stream.id)
    return sub is not None and sub.active


async def stream_for_topic_mute(
    rt: Runtime, user: UserRow, stream_id: int | None, name: str | None, *, mute: bool
) -> StreamRow:
    """The channel of a legacy mute request: accessible to mute, merely existing to unmute."""
    async with rt.db.read() as conn:
        if mute:
            if stream_id is not None:
                stream, _ = await access.access_stream_by_id(conn, user, stream_id)
            else:
                stream, _ = await access.access_stream_by_name(conn, user, str(name))
            return stream
        found = (
            await stream_store.get_stream_by_id(conn, stream_id)
            if stream_id is not None
            else await stream_store.get_stream_by_name(conn, str(name))
        )
    if found is None:
        raise ZulipError(
            "Invalid channel ID" if stream_id is not None else f"Invalid channel name '{name}'"
        )
    return found

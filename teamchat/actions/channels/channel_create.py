"""POST /channels/create: create one channel with its settings and first subscribers.

The same checks and events as creating a channel by subscribing to it (`streams`), in one
transaction: `stream` create, the subscription events, and `default_streams` when the new
channel is made a default channel; then the Notification Bot's messages.
"""

from __future__ import annotations

from collections.abc import Sequence

from teamchat.actions.channels import default_streams
from teamchat.actions.channels import subscriptions as subs
from teamchat.actions.channels.stream_notifications import send_subscription_messages
from teamchat.actions.channels.streams import (
    ChannelRequest,
    CreateOptions,
    NewChannel,
    Notify,
    check_create,
    create_stream,
    normalize_requests,
    render_description,
)
from teamchat.actions.org.permissions import require_realm_admin
from teamchat.errors import ChannelExistsError, ZulipError
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import default_streams as default_store
from teamchat.store import realm as realm_store
from teamchat.store import streams as stream_store


async def check_create_channel(
    rt: Runtime,
    user: UserRow,
    request: ChannelRequest,
    options: CreateOptions,
    subscriber_ids: Sequence[int],
    *,
    is_default_stream: bool,
    notify: Notify,
) -> int:
    """Create the channel, subscribe `subscriber_ids`; return the new channel's id."""
    if user.is_guest:
        raise ZulipError("Not allowed for guest users")
    [request] = normalize_requests([request])
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        assert realm is not None
        existing = await stream_store.get_stream_by_name(conn, request.name)
        if existing is not None:
            raise ChannelExistsError(existing.name)
        await check_create(conn, realm, user, options)
        if is_default_stream:
            require_realm_admin(user)
            if options.invite_only:
                raise ZulipError("Private channels cannot be made default.")
        targets = await subs.access_principals(conn, list(subscriber_ids))
        rendered = await render_description(conn, user, request.description or "")
    channel = NewChannel(
        name=request.name, description=request.description or "", rendered_description=rendered
    )
    async with rt.db.write() as tx:
        if await stream_store.get_stream_by_name(tx, channel.name) is not None:
            raise ChannelExistsError(channel.name)
        stream = await create_stream(rt, tx, user, channel, options)
        change = await subs.subscribe_users(rt, tx, [stream], targets, {})
        if is_default_stream:
            await default_store.add_default_stream(tx, stream.id)
            await default_streams.publish_default_streams(rt, tx)
    await send_subscription_messages(
        rt,
        user,
        change.done,
        [stream],
        announce=notify.announce,
        send_new_subscription_messages=notify.send_new_subscription_messages,
        realm_url=notify.realm_url,
    )
    return stream.id

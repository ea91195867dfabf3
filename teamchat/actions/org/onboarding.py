"""A new organization's first content, as Zulip's `do_create_realm` and
`send_initial_realm_messages` make it: the three starting channels (default channels for
new members, the owner subscribed), the announcement settings pointing at `general`, the
Welcome Bot's first channel messages and its direct message to the owner.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from teamchat.actions.channels.default_streams import check_add_default_stream
from teamchat.actions.channels.streams import ChannelRequest, CreateOptions, check_add_subscriptions
from teamchat.actions.messages.message_send import check_send_message, internal_request
from teamchat.actions.org.realm_settings import check_update_realm
from teamchat.actions.org.system_bots import WELCOME_BOT, ensure_system_bot
from teamchat.actions.org.welcome import send_welcome_messages
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import streams as stream_store

GENERAL = "general"
SANDBOX = "sandbox"
DISCUSSION = "Zulip"


class StarterMessage(msgspec.Struct, frozen=True):
    stream: str
    topic: str
    content: str


# zulip-compat: Zulip's starting channels, in its order, with its descriptions.
STARTER_CHANNELS = (
    ChannelRequest(name=DISCUSSION, description="Questions and discussion about using Zulip."),
    ChannelRequest(name=SANDBOX, description="Experiment with Zulip here. :test_tube:"),
    ChannelRequest(name=GENERAL, description="For team-wide conversations"),
)

STARTER_MESSAGES = (
    StarterMessage(
        GENERAL,
        "welcome to your organization!",
        "Welcome! This is #**general**, the channel for team-wide conversations. "
        "New channels are announced here.\n\n"
        "Every message in a channel has a topic: a short subject line that keeps "
        "conversations apart. Start a new topic whenever you are not replying to an "
        "earlier message.",
    ),
    StarterMessage(
        SANDBOX,
        "experiments",
        "Use #**sandbox** to try things out: **bold**, *italics*, `code`, :smile: "
        "emoji, @-mentions and topics. Nobody minds what happens here.",
    ),
    StarterMessage(
        DISCUSSION,
        "questions",
        "Ask here how to use this chat: any Zulip client (the web and mobile apps, "
        "zulip-terminal, the `zulip` Python package and its bots) connects to this server.",
    ),
)


async def do_setup_new_realm(
    rt: Runtime, owner: UserRow, *, realm_url: str, progress: Callable[[str], None] | None = None
) -> None:
    """Create the starting channels, defaults and Welcome Bot messages of a new realm."""
    step = progress or (lambda _text: None)
    step("creating the starting channels")
    await check_add_subscriptions(
        rt,
        owner,
        STARTER_CHANNELS,
        CreateOptions(),
        principals=None,
        authorization_errors_fatal=True,
    )
    async with rt.db.read() as conn:
        ids = {}
        for request in STARTER_CHANNELS:
            stream = await stream_store.get_stream_by_name(conn, request.name)
            assert stream is not None
            ids[request.name] = stream.id
    for stream_id in ids.values():
        await check_add_default_stream(rt, owner, stream_id)
    announcements = {
        "new_stream_announcements_stream_id": ids[GENERAL],
        "zulip_update_announcements_stream_id": ids[GENERAL],
    }
    await check_update_realm(rt, owner, announcements)
    step("sending the Welcome Bot's first messages")
    bot = await ensure_system_bot(rt, WELCOME_BOT)
    for message in STARTER_MESSAGES:
        send = internal_request("stream", message.stream, message.topic, message.content, realm_url)
        await check_send_message(rt, bot, send)
    await send_welcome_messages(rt, owner, None, realm_url=realm_url)

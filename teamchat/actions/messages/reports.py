"""POST /messages/{message_id}/report: a reader reports a message to the moderators.

The Notification Bot posts the report in the organization's moderation-request channel
(`moderation_request_channel_id`), in the topic "<sender> moderation", with Zulip's text:
who reported whom and when, the reason and explanation, and the message behind a spoiler.
"""

from __future__ import annotations

from teamchat.actions.messages.message_common import access_message
from teamchat.actions.messages.message_send import check_send_message, internal_request
from teamchat.actions.messages.notice_text import (
    global_time,
    mention,
    mention_list,
    message_url,
    unused_fence,
)
from teamchat.actions.org.system_bots import NOTIFICATION_BOT, ensure_system_bot
from teamchat.actions.state import MAX_MESSAGE_LENGTH
from teamchat.errors import ZulipError
from teamchat.lib import realm_settings
from teamchat.lib.messages import truncate
from teamchat.records import MessageRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import messages as message_store
from teamchat.store import realm as realm_store
from teamchat.store import streams as stream_store
from teamchat.store import users as user_store
from teamchat.store.db import Conn

REPORT_REASONS = {
    "spam": "Spam",
    "harassment": "Harassment",
    "inappropriate": "Inappropriate content",
    "norms": "Violates community norms",
    "other": "Other reason",
}
MAX_EXPLANATION_LENGTH = 1000
# zulip-compat: room for the explanation and the report's own text in one message.
MAX_SNIPPET_LENGTH = MAX_MESSAGE_LENGTH - MAX_EXPLANATION_LENGTH - 500


def check_report_params(report_type: str, description: str) -> None:
    if report_type not in REPORT_REASONS:
        raise ZulipError("Invalid report_type")
    if len(description) > MAX_EXPLANATION_LENGTH:
        raise ZulipError(f"description is too long (limit: {MAX_EXPLANATION_LENGTH} characters)")
    if report_type == "other" and not description:
        raise ZulipError("An explanation is required.")


async def _report_text(
    conn: Conn, reporter: UserRow, message: MessageRow, report_type: str, description: str,
    realm_url: str,
) -> tuple[str, str]:  # fmt: skip
    """(topic, content) of the report, with Zulip's wording."""
    sender = await user_store.get_user_by_id(conn, message.sender_id)
    assert sender is not None
    header = f"{mention(reporter)} reported a message sent by {mention(sender)}"
    if message.stream_id is not None:
        stream = await stream_store.get_stream_by_id(conn, message.stream_id)
        assert stream is not None
        original = f"Original message at #**{stream.name}>{message.topic}@{message.id}**"
    else:
        participants = (await message_store.dm_participants(conn, [message.recipient_id]))[
            message.recipient_id
        ]
        if len(participants) > 2:
            others = [uid for uid in participants if uid != sender.id]
            header += " to " + mention_list(await user_store.list_users(conn, user_ids=others))
        elif sender.id == reporter.id:
            other = [uid for uid in participants if uid != reporter.id] or [reporter.id]
            recipient = await user_store.get_user_by_id(conn, other[0])
            assert recipient is not None
            header += f" to {mention(recipient)}"
        url = message_url(realm_url, message, None, participants)
        original = f"[Original message]({url})"
    snippet = truncate(message.content, MAX_SNIPPET_LENGTH, "\n[message truncated]")
    fence = unused_fence(snippet)
    content = (
        f"{header} at {global_time(message.date_sent)}.\n"
        f"```quote\n**{REPORT_REASONS[report_type]}**. {description}\n```\n\n"
        f"{fence} spoiler {original}\n{snippet}\n{fence}\n"
    )
    return f"{sender.full_name} moderation", content


async def check_report_message(
    rt: Runtime, reporter: UserRow, message_id: int, report_type: str, description: str,
    realm_url: str,
) -> None:  # fmt: skip
    """Post the report in the moderation-request channel as the Notification Bot."""
    check_report_params(report_type, description)
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        assert realm is not None
        channel_id = realm_settings.load(realm.settings_json).moderation_request_channel_id
        channel = await stream_store.get_stream_by_id(conn, channel_id) if channel_id > 0 else None
        if channel is None or channel.is_archived:
            raise ZulipError("Message reporting is not enabled in this organization.")
        message, _ = await access_message(conn, reporter, message_id)
        topic, content = await _report_text(
            conn, reporter, message, report_type, description, realm_url
        )
    if channel.topics_policy == "empty_topic_only":
        topic = ""
    bot = await ensure_system_bot(rt, NOTIFICATION_BOT)
    request = internal_request("stream", channel.id, topic, content, realm_url)
    await check_send_message(rt, bot, request)

"""Outgoing webhooks: when an outgoing-webhook bot is @-mentioned in a channel or sent a direct
message (by a person: bots never trigger bots), the server POSTs Zulip's payload to the bot's
service URL in the background, and posts the `content` of the reply as the bot, in the same
topic or conversation. Connection failures and 5xx answers are retried; a request that still
fails, a 4xx, or a reply that cannot be posted is reported to the bot's owner by the
Notification Bot, as Zulip does.

Interfaces: 1 (Zulip's generic JSON payload) and 2 (Slack's outgoing-webhook form).
"""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.parse
from collections.abc import Sequence

import msgspec

from teamchat.actions.integrations.triggers import triggered_bots
from teamchat.actions.messages.message_deliver import Delivered, send_hook
from teamchat.actions.messages.message_send import (
    SendRequest,
    check_send_message,
    internal_request,
)
from teamchat.actions.messages.notice_text import mention, message_link
from teamchat.actions.org.system_bots import NOTIFICATION_BOT, ensure_system_bot
from teamchat.errors import ZulipError
from teamchat.lib.api_types import JsonDict
from teamchat.lib.outbound import (
    OutboundError,
    OutboundProtocolError,
    TargetNotAllowedError,
    safe_excerpt,
)
from teamchat.records import BotType, StreamRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import bots as bots_store
from teamchat.store import users as user_store
from teamchat.store.db import Conn, Tx

log = logging.getLogger("teamchat.outgoing_webhooks")
MAX_TRIES = 4  # the first request and Zulip's three retries
RETRY_DELAY_SECS = 1.0
MAX_RESPONSE_BYTES = 1024 * 1024
SLACK_INTERFACE = 2
CLIENT = "OutgoingWebhookResponse"


class Delivery(msgspec.Struct, frozen=True, kw_only=True):
    """One request to one bot's service about one message."""

    bot: UserRow
    base_url: str
    token: str
    interface: int
    trigger: str  # "mention" or "direct_message"
    message: JsonDict  # the message as the bot's API client would get it (raw Markdown)
    stream: StreamRow | None
    participant_ids: list[int]
    realm_host: str
    realm_url: str


async def deliveries_for(
    conn: Conn, sender: UserRow, stream: StreamRow | None, mentioned: Sequence[int],
    participants: Sequence[int], message: JsonDict, *, realm_host: str, realm_url: str,
) -> list[Delivery]:  # fmt: skip
    """The requests a just-sent message triggers (none when a bot sent it)."""
    called = await triggered_bots(
        conn, sender, stream, mentioned, participants, BotType.OUTGOING_WEBHOOK
    )
    deliveries = []
    for user, trigger in called:
        for service in await bots_store.list_services(conn, user.id):
            delivery = Delivery(
                bot=user, base_url=service.base_url, token=service.token,
                interface=service.interface, trigger=trigger, message=message, stream=stream,
                participant_ids=list(participants), realm_host=realm_host, realm_url=realm_url,
            )  # fmt: skip
            deliveries.append(delivery)
    return deliveries


@send_hook
async def _on_send(rt: Runtime, tx: Tx, sent: Delivered) -> None:
    """Every delivered message: the webhooks it triggers start once it is committed."""
    draft = sent.draft
    if sent.sender.is_bot:
        return
    raw = {**sent.message, "content": draft.content, "content_type": "text/x-markdown"}
    deliveries = await deliveries_for(
        tx, sent.sender, draft.stream, sorted(draft.rendered.mentioned_user_ids),
        draft.participant_ids, raw, realm_host=sent.realm.host, realm_url=draft.realm_url,
    )  # fmt: skip
    if deliveries:
        tx.after_commit(lambda: start(rt, deliveries))


def start(rt: Runtime, deliveries: Sequence[Delivery]) -> None:
    for delivery in deliveries:
        rt.spawn(deliver(rt, delivery))


def _request_body(d: Delivery) -> tuple[bytes, str]:
    """(body, content type) in the bot's interface."""
    if d.interface == SLACK_INTERFACE:
        form = {
            "token": d.token,
            "team_id": d.realm_host,
            "team_domain": d.realm_host,
            "channel_id": str(d.message.get("stream_id", "")),
            "channel_name": str(d.message["display_recipient"]),
            "timestamp": str(d.message["timestamp"]),
            "user_id": str(d.message["sender_id"]),
            "user_name": str(d.message["sender_full_name"]),
            "text": str(d.message["content"]),
            "trigger_word": d.trigger,
            "service_id": str(d.bot.id),
        }
        return urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded"
    payload = {
        "data": d.message["content"],
        "message": d.message,
        "bot_email": d.bot.delivery_email,
        "bot_full_name": d.bot.full_name,
        "token": d.token,
        "trigger": d.trigger,
    }
    return json.dumps(payload).encode(), "application/json"


async def _post(rt: Runtime, d: Delivery, body: bytes, content_type: str) -> tuple[int, bytes]:
    """(status, body) of one request to the bot's service; OutboundError when none came."""
    answer = await rt.outbound.fetch(
        d.base_url, method="POST", body=body, headers={"Content-Type": content_type},
        max_bytes=MAX_RESPONSE_BYTES, deadline_secs=rt.settings.outbound_deadline_secs,
        purpose="outgoing-webhook", senders=_senders(d.bot),
    )  # fmt: skip
    if answer.truncated:
        raise OutboundProtocolError("the response is larger than 1 MiB")
    return answer.status, answer.body


def _senders(bot: UserRow) -> tuple[str, ...]:
    """The caps a delivery counts against: its bot's, and its owner's (over all their bots)."""
    owner = (f"user:{bot.bot_owner_id}",) if bot.bot_owner_id is not None else ()
    return (f"bot:{bot.id}", *owner)


async def deliver(rt: Runtime, d: Delivery) -> None:
    """Send the request (retrying failures), then act on the reply or tell the owner."""
    if d.interface == SLACK_INTERFACE and d.stream is None:
        await _notify_owner(rt, d, "Slack outgoing webhooks don't support direct messages.")
        return
    body, content_type = _request_body(d)
    status, reply, failure = 0, b"", ""
    for attempt in range(MAX_TRIES):
        if attempt:
            await asyncio.sleep(RETRY_DELAY_SECS * attempt)
        try:
            status, reply = await _post(rt, d, body, content_type)
        except TargetNotAllowedError as error:
            failure = f"The webhook's URL cannot be used: {error}."
            break  # the same answer every time
        except OutboundError as error:
            failure = f"The webhook service could not be reached: {error}."
            continue
        failure = ""
        if status < 500:
            break
    if failure:
        await _notify_owner(rt, d, failure)
    elif not 200 <= status < 300:
        notice = f"The webhook got a response with status code *{status}*."
        await _notify_owner(rt, d, notice, reply)
    else:
        await _handle_reply(rt, d, reply)


def _reply_content(d: Delivery, reply: bytes) -> tuple[str | None, str | None]:
    """(content, widget_content) the bot answered with; raises ValueError if unreadable."""
    data = json.loads(reply.decode("utf-8")) if reply.strip() else {}
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    if data.get("response_not_required"):
        return None, None
    key = "text" if d.interface == SLACK_INTERFACE else "content"
    content = data.get(key, data.get("response_string"))
    widget = data.get("widget_content")
    return (
        None if content is None else str(content),
        None if widget is None else (widget if isinstance(widget, str) else json.dumps(widget)),
    )


async def _handle_reply(rt: Runtime, d: Delivery, reply: bytes) -> None:
    try:
        content, widget = _reply_content(d, reply)
    except (ValueError, UnicodeDecodeError):
        await _notify_owner(rt, d, "The webhook response is not valid JSON.", reply)
        return
    if content is None or not content.strip():
        return
    to: int | list[int] = d.stream.id if d.stream is not None else d.participant_ids
    request = SendRequest(
        recipient_type="stream" if d.stream is not None else "private", to=to,
        topic=str(d.message.get("subject", "")) if d.stream is not None else None,
        content=content, client=CLIENT, realm_url=d.realm_url, internal=True,
        widget_content=widget,
    )  # fmt: skip
    try:
        await check_send_message(rt, d.bot, request)
    except ZulipError as error:
        notice = (
            "The outgoing webhook server attempted to send a message in Zulip, but that request"
            f" resulted in the following error:\n> {error.msg}"
        )
        await _notify_owner(rt, d, notice, reply)


async def _notify_owner(rt: Runtime, d: Delivery, notice: str, reply: bytes = b"") -> None:
    """Zulip's notify_bot_owner: a direct message from the Notification Bot."""
    log.info("outgoing webhook of bot %s failed: %s", d.bot.id, notice.splitlines()[0])
    async with rt.db.read() as conn:
        owner = await user_store.get_user_by_id(conn, d.bot.bot_owner_id or 0)
    if owner is None or not owner.is_active:
        return
    stream_id, stream_name = (d.stream.id, d.stream.name) if d.stream is not None else (None, None)
    topic = str(d.message.get("subject", ""))
    message_id = d.message["id"]
    assert isinstance(message_id, int)
    link = message_link(d.realm_url, message_id, stream_id, stream_name, topic, d.participant_ids)
    content = f"[A message]({link}) to your bot {mention(d.bot)} triggered an outgoing webhook.\n"
    content += notice
    excerpt = safe_excerpt(reply)
    if excerpt:
        # A short, printable excerpt only: the owner is not shown what the service sent
        # verbatim (it may be a page of some other host's).
        content += f"\nThe response began with:\n```text\n{excerpt}\n```"
    bot = await ensure_system_bot(rt, NOTIFICATION_BOT)
    request = internal_request("private", [owner.id], None, content, d.realm_url)
    try:
        await check_send_message(rt, bot, request)
    except ZulipError as error:
        log.info("could not tell the owner of bot %s: %s", d.bot.id, error.msg)

"""Incoming webhooks: send what an integration formatted, as the bot, through the ordinary
send action (Zulip's check_send_webhook_message), and tell the bot's owner what went wrong.

Formatting lives in `webhooks/` (pure); the HTTP entry point is `http/webhooks.py`.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from dataclasses import dataclass
from urllib.parse import unquote

from teamchat.actions.integrations.webhooks import INTEGRATIONS
from teamchat.actions.integrations.webhooks.base import (
    Integration,
    Notice,
    UnsupportedWebhookEventTypeError,
    WebhookRequest,
    event_wanted,
)
from teamchat.actions.messages.message_send import SendRequest, check_send_message, internal_request
from teamchat.actions.org.system_bots import NOTIFICATION_BOT, ensure_system_bot
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import (
    ResourceNotFoundError,
    StreamDoesNotExistError,
    StreamIdDoesNotExistError,
    ZulipError,
)
from teamchat.lib.api_types import JsonDict
from teamchat.lib.integers import is_ascii_digits
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import users as user_store

log = logging.getLogger(__name__)

# zulip-compat: send_rate_limited_pm_notification_to_bot_owner tells an owner at most once a
# day per bot. Kept in memory: a restart may repeat one notice, never lose a message.
OWNER_NOTICE_INTERVAL_SECS = 24 * 3600
_last_owner_notice: dict[int, float] = {}

# A mention written by the tool's payload (`@**all**`, `@**Name**`, `@*group*`) becomes a
# silent one: it still shows who was named but notifies nobody, so no commit message or
# issue title can page a channel or a person.
_MENTION_RE = re.compile(r"(?<![\w@])@(?=\*)")

MISSING_HEADER_NOTICE = (
    "Hi there!  Your bot {bot_name} just sent an HTTP request to {path} that\n"
    "is missing the HTTP {header} header.  Because this header is how\n"
    "{integration} indicates the event type, this usually indicates a configuration\n"
    "issue, where you either entered the URL for a different integration, or are running\n"
    "an older version of the third-party service that doesn't provide that header.\n"
    "Contact {support} if you need help debugging!"
)
INVALID_JSON_NOTICE = (
    "Hi there! It looks like you tried to set up the Zulip {webhook_name} integration,\n"
    "but didn't correctly configure the webhook to send data in the JSON format\n"
    "that this integration expects!"
)


@dataclass(frozen=True)
class WebhookTarget:
    """Where the URL asks the message to go, and which events it wants."""

    stream: str | None
    topic: str | None
    only_events: list[str] | None
    exclude_events: list[str] | None
    realm_url: str


# zulip-compat: the names Zulip's integrations list shows where they differ from the name the
# webhook gives itself in its errors and client name ("SlackIncoming", "JSON"...).
LISTED_NAMES = {
    "alertmanager": "Prometheus Alertmanager",
    "json": "JSON formatter",
    "slack_incoming": "Slack-compatible webhook",
}


# Zulip's preset URL options (WebhookUrlOption.build_preset_config) of the integrations that
# read them: `branches` (a comma-separated list) and GitHub's private-repository switch.
_BRANCHES: JsonDict = {"key": "branches", "label": "", "validator": "check_string"}
_PRIVATE: JsonDict = {
    "key": "ignore_private_repositories",
    "label": "Exclude notifications from private repositories",
    "validator": "check_bool",
}
URL_OPTIONS: dict[str, list[JsonDict]] = {
    "github": [_BRANCHES, _PRIVATE],
    "gitlab": [_BRANCHES],
    "gitea": [_BRANCHES],
    "gogs": [_BRANCHES],
}


def integration_descriptions() -> list[JsonDict]:
    """Register's `realm_incoming_webhook_bots`: the integrations this server serves, for
    clients that build integration URLs (the web client's Integrations page)."""
    return [
        {
            "name": integration.name,
            "display_name": LISTED_NAMES.get(integration.name, integration.display_name),
            # zulip-compat: null for an integration that does not filter events.
            "all_event_types": list(integration.events) or None,
            "config_options": [],
            "url_options": URL_OPTIONS.get(integration.name, []),
        }
        for integration in sorted(INTEGRATIONS.values(), key=lambda item: item.name)
    ]


@state_fetcher("realm_incoming_webhook_bots")
async def _incoming_webhook_bots_state(ctx: StateContext) -> None:
    ctx.state["realm_incoming_webhook_bots"] = integration_descriptions()


def access_integration(name: str) -> Integration:
    integration = INTEGRATIONS.get(name)
    if integration is None:
        raise ResourceNotFoundError("Not Found")
    return integration


def silence_mentions(body: str) -> str:
    return _MENTION_RE.sub("@_", body)


async def check_send_webhook_message(
    rt: Runtime, bot: UserRow, integration: Integration, req: WebhookRequest, target: WebhookTarget
) -> None:
    """Format the delivery and send it as `bot`: to the channel and topic the URL names,
    else to the bot's owner. An unknown channel is not an error: the owner is told."""
    if integration.needs_people:
        req = dataclasses.replace(req, people=await _people(rt))
    try:
        result = integration.format(req)
    except UnsupportedWebhookEventTypeError as error:
        log.info("webhook %s: %s", integration.name, error.msg)
        raise
    notices = [] if result is None else [result] if isinstance(result, Notice) else result
    for notice in notices:
        if event_wanted(notice.event, target.only_events, target.exclude_events):
            await _send(rt, bot, integration, notice, target)


async def _people(rt: Runtime) -> tuple[tuple[str, str], ...]:
    async with rt.db.read() as conn:
        users = await user_store.list_users(conn, is_active=True)
    return tuple((user.delivery_email, user.full_name) for user in users)


async def _send(
    rt: Runtime, bot: UserRow, integration: Integration, notice: Notice, target: WebhookTarget
) -> None:
    client = f"Zulip{integration.display_name.replace(' ', '')}Webhook"
    body = silence_mentions(notice.body)
    if target.stream is None:
        owner = bot.bot_owner_id if bot.bot_owner_id is not None else bot.id
        request = SendRequest(
            recipient_type="private", to=[owner], topic=None, content=body, client=client,
            realm_url=target.realm_url,
        )  # fmt: skip
        await check_send_message(rt, bot, request)
        return
    stream, topic = target.stream.strip(), target.topic
    if integration.unquote_url_parameters:
        # zulip-compat: Jira double-escapes URLs, so Zulip decodes stream and topic again.
        stream, topic = unquote(stream), unquote(topic) if topic is not None else None
    to: str | int = int(stream) if is_ascii_digits(stream) else stream
    request = SendRequest(
        recipient_type="stream", to=to, topic=notice.topic if topic is None else topic,
        content=body, client=client, realm_url=target.realm_url,
    )  # fmt: skip
    try:
        await check_send_message(rt, bot, request)
    except StreamIdDoesNotExistError:
        await notify_bot_owner(
            rt, bot, f"Your bot `{bot.delivery_email}` tried to send a message to channel ID"
            f" {to}, but there is no channel with that ID.", target.realm_url,
        )  # fmt: skip
    except StreamDoesNotExistError:
        await notify_bot_owner(
            rt, bot, f"Your bot `{bot.delivery_email}` tried to send a message to channel"
            f" #**{stream}**, but that channel does not exist. Click [here](#channels/new) to"
            " create it.", target.realm_url,
        )  # fmt: skip


async def notify_bot_owner(rt: Runtime, bot: UserRow, content: str, realm_url: str) -> None:
    """A direct message from the Notification Bot to the bot's owner, at most once a day."""
    if bot.bot_owner_id is None:
        return
    now = rt.clock()
    last = _last_owner_notice.get(bot.id)
    if last is not None and now - last < OWNER_NOTICE_INTERVAL_SECS:
        return
    async with rt.db.read() as conn:
        owner = await user_store.get_user_by_id(conn, bot.bot_owner_id)
    if owner is None or not owner.is_active:
        return
    _last_owner_notice[bot.id] = now
    sender = await ensure_system_bot(rt, NOTIFICATION_BOT)
    try:
        await check_send_message(
            rt, sender, internal_request("private", [owner.id], None, content, realm_url)
        )
    except ZulipError as error:
        log.info("could not tell the owner of bot %s: %s", bot.id, error.msg)


async def notify_missing_header(
    rt: Runtime, bot: UserRow, integration: Integration, path: str, header: str, realm_url: str
) -> None:
    content = MISSING_HEADER_NOTICE.format(
        bot_name=bot.full_name, path=path, header=header,
        integration=integration.display_name, support="your organization administrators",
    )  # fmt: skip
    await notify_bot_owner(rt, bot, content, realm_url)


async def notify_invalid_json(
    rt: Runtime, bot: UserRow, integration: Integration, realm_url: str
) -> None:
    content = INVALID_JSON_NOTICE.format(webhook_name=integration.display_name)
    await notify_bot_owner(rt, bot, content, realm_url)

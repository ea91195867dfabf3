"""Slack-compatible incoming webhooks: `text`, Block Kit `blocks` and legacy `attachments`,
posted as JSON or as a form's `payload` field, converted to Zulip Markdown. Pure."""

from __future__ import annotations

import re

import msgspec
from msgspec import Struct

from teamchat.actions.integrations.webhooks import slack_text
from teamchat.actions.integrations.webhooks.base import (
    MALFORMED_BODY,
    Integration,
    Notice,
    WebhookRequest,
)
from teamchat.errors import RequestVariableMissingError, ZulipError
from teamchat.lib.json_input import decode_json


class SlackError(ZulipError):
    """zulip-compat: Slack's own error shape, {"ok": false, "error": ...}, for Slack clients."""

    def __init__(self, msg: str) -> None:
        super().__init__(msg)

    def envelope(self) -> dict[str, object]:
        return {"ok": False, "error": self.msg}


class Message(Struct, frozen=True):
    text: str | None = None
    icon_emoji: str | None = None
    channel: str | None = None
    blocks: list[slack_text.Block] | None = None
    attachments: list[slack_text.Attachment] | None = None


def _message(req: WebhookRequest) -> Message:
    payload = req.payload
    if payload == MALFORMED_BODY:
        raise SlackError("Malformed JSON")
    if req.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        fields = payload if isinstance(payload, dict) else {}
        if "payload" not in fields:
            raise SlackError(RequestVariableMissingError("payload").msg)
        try:
            payload = decode_json(str(fields["payload"]))
        except msgspec.DecodeError:
            raise SlackError("Malformed JSON") from None
    try:
        return msgspec.convert(payload, Message)
    except msgspec.ValidationError as error:
        raise SlackError(f"Malformed payload: {error}") from None


def format_slack(req: WebhookRequest) -> Notice | None:
    message = _message(req)
    pieces = [slack_text.render_block(block) for block in message.blocks or []]
    pieces += [slack_text.render_attachment(item) for item in message.attachments or []]
    body = "\n\n".join(piece.strip() for piece in pieces if piece.strip())
    if not body and message.text:
        body = (f"{message.icon_emoji} " if message.icon_emoji else "") + message.text
        body = body.strip()
    if not body:
        return None
    # The topic is the channel the tool names ("#alerts" -> "alerts") unless the URL sets one.
    topic = re.sub(r"^[@#]", "", message.channel) if message.channel else "(no topic)"
    text = slack_text.convert_formatting(slack_text.replace_links(body).strip())
    return Notice(topic=topic, body=text)


INTEGRATION = Integration(
    name="slack_incoming",
    display_name="SlackIncoming",
    format=format_slack,
    accepts_form=True,
    success_data={"ok": True},
)

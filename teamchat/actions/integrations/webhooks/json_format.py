"""Zulip's generic JSON integration: any JSON object, shown as an indented code block in
the topic "JSON". Pure."""

from __future__ import annotations

import json

from teamchat.actions.integrations.webhooks.base import (
    AnomalousWebhookPayloadError,
    Integration,
    Notice,
    WebhookRequest,
)


def format_json(req: WebhookRequest) -> Notice:
    if not isinstance(req.payload, dict):
        raise AnomalousWebhookPayloadError(req.webhook_name)
    # zulip-compat: Python's json.dumps with indent=2 (non-ASCII as \u escapes), as Zulip.
    return Notice(topic="JSON", body=f"```json\n{json.dumps(req.payload, indent=2)}\n```")


INTEGRATION = Integration(name="json", display_name="JSON", format=format_json)

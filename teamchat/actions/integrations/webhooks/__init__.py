"""Incoming webhooks: one module per integration, each turning its tool's payload into a
Zulip message (topic and Markdown). Adding an integration is one module plus its entry here.

Pure formatting only; `actions.integrations.incoming_webhooks` sends, `http.webhooks` serves.
"""

from __future__ import annotations

from teamchat.actions.integrations.webhooks import (
    alerts,
    circleci,
    gitea,
    github,
    gitlab,
    jira,
    json_format,
    sentry,
    slack_incoming,
)
from teamchat.actions.integrations.webhooks.base import Integration

INTEGRATIONS: dict[str, Integration] = {
    integration.name: integration
    for integration in (
        alerts.ALERTMANAGER,
        alerts.GRAFANA,
        circleci.INTEGRATION,
        gitea.GITEA,
        gitea.GOGS,
        github.INTEGRATION,
        gitlab.INTEGRATION,
        jira.INTEGRATION,
        json_format.INTEGRATION,
        sentry.INTEGRATION,
        slack_incoming.INTEGRATION,
    )
}

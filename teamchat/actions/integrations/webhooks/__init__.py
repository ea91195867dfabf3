"""Incoming webhooks: one module per integration, each turning its tool's payload into a
Zulip message (topic and Markdown). Adding an integration is one module plus its entry here.

The registry names each integration's module without importing it: a module is imported
when its integration is first used (its URL is hit, or the list is read), so the server
starts without any of them. Pure formatting only; `actions.integrations.incoming_webhooks`
sends, `http.webhooks` serves.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from teamchat.actions.integrations.webhooks.base import Integration

# URL name -> (module of this package, the module's Integration attribute).
_REGISTRY: dict[str, tuple[str, str]] = {
    "alertmanager": ("alerts", "ALERTMANAGER"),
    "circleci": ("circleci", "INTEGRATION"),
    "gitea": ("gitea", "GITEA"),
    "github": ("github", "INTEGRATION"),
    "gitlab": ("gitlab", "INTEGRATION"),
    "gogs": ("gitea", "GOGS"),
    "grafana": ("alerts", "GRAFANA"),
    "jira": ("jira", "INTEGRATION"),
    "json": ("json_format", "INTEGRATION"),
    "sentry": ("sentry", "INTEGRATION"),
    "slack_incoming": ("slack_incoming", "INTEGRATION"),
}


class IntegrationRegistry(Mapping[str, Integration]):
    """Every integration by URL name, each imported the first time it is looked up."""

    def __getitem__(self, name: str) -> Integration:
        module_name, attribute = _REGISTRY[name]
        module = importlib.import_module(f"{__name__}.{module_name}")
        integration = getattr(module, attribute)
        assert isinstance(integration, Integration) and integration.name == name, name
        return integration

    def __iter__(self) -> Iterator[str]:
        return iter(_REGISTRY)

    def __len__(self) -> int:
        return len(_REGISTRY)


INTEGRATIONS: Mapping[str, Integration] = IntegrationRegistry()

"""Prometheus Alertmanager and Grafana alerting: one message per alert group or alert, in
Zulip's words. Pure."""

from __future__ import annotations

from msgspec import Struct, field

from teamchat.actions.integrations.webhooks.base import (
    AnomalousWebhookPayloadError,
    Integration,
    Notice,
    WebhookRequest,
    global_time,
)

# Alertmanager: the emoji before each alert, by its `severity` label (unknown: :alert:).
SEVERITY_EMOJI = {
    "critical": ":alert:",
    "emergency": ":alert:",
    "fatal": ":alert:",
    "error": ":alert:",
    "warning": ":warning:",
    "warn": ":warning:",
    "major": ":warning:",
    "info": ":info:",
    "notice": ":info:",
    "low": ":info:",
    "debug": ":info:",
}
NEVER = "0001-01-01T00:00:00Z"


class Alert(Struct, frozen=True):
    status: str
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    generatorURL: str | None = None
    silenceURL: str | None = None
    imageURL: str | None = None
    fingerprint: str = ""
    startsAt: str = ""
    endsAt: str = NEVER
    values: dict[str, object] | None = None
    valueString: str | None = None


class Alerts(Struct, frozen=True):
    alerts: list[Alert]


def _alertmanager_line(alert: Alert, name_field: str, desc_field: str) -> tuple[str, str]:
    """(topic, line) of one alert: the `name` label names the topic, `desc` describes it."""

    def pick(key: str, default: str) -> str:
        return alert.labels.get(key, alert.annotations.get(key, default))

    name = pick(name_field, "(unknown)")
    text = pick(desc_field, f"<missing field: {desc_field}>")
    if alert.generatorURL is not None:
        text = f"{text} ([source]({alert.generatorURL.replace('tab=1', 'tab=0')}))"
    if alert.status == "resolved":
        emoji = ":squared_ok:"
    else:
        emoji = SEVERITY_EMOJI.get(alert.labels.get("severity", "").lower(), ":alert:")
    return name, f"{emoji} {text}"


def format_alertmanager(req: WebhookRequest) -> list[Notice]:
    """One message per topic and status: firing alerts, then resolved ones."""
    payload = req.parse(Alerts)
    name_field = req.params.get("name", "instance")
    desc_field = req.params.get("desc", "alertname")
    topics: dict[str, dict[str, list[str]]] = {}
    for alert in payload.alerts:
        name, line = _alertmanager_line(alert, name_field, desc_field)
        statuses = topics.setdefault(name, {"firing": [], "resolved": []})
        statuses.setdefault(alert.status, []).append(line)
    notices = []
    for topic, statuses in topics.items():
        for status, lines in statuses.items():
            if not lines:
                continue
            title = "FIRING" if status == "firing" else "Resolved"
            if len(lines) == 1:
                body = f"**{title}** {lines[0]}".strip()
            else:
                body = f"**{title}**\n" + "\n".join(f"* {line}" for line in lines)
            notices.append(Notice(topic=topic, body=body.strip()))
    return notices


ALERTMANAGER = Integration(
    name="alertmanager", display_name="Alertmanager", format=format_alertmanager
)


def _listing(items: dict[str, object]) -> str:
    return "".join(f"- {key}: {value}\n" for key, value in items.items())


def _grafana_alert(req: WebhookRequest, alert: Alert) -> Notice:
    if alert.status not in ("firing", "resolved"):
        raise req.unsupported(alert.status)
    icon = ":alert:" if alert.status == "firing" else ":checkbox:"
    body = f"{icon} **{alert.status.upper()}**\n\n"
    alertname = alert.labels.get("alertname")
    if alertname:
        body += f"**{alertname}**\n\n"
    try:
        body += f"This alert was fired at {global_time(alert.startsAt)}."
        if alert.endsAt != NEVER:
            body += f"\n\nThis alert was resolved at {global_time(alert.endsAt)}."
    except (ValueError, OverflowError):
        raise AnomalousWebhookPayloadError(req.webhook_name) from None
    if alert.labels:
        body += f"\n\nLabels:\n{_listing(dict(alert.labels))}\n"
    if alert.values:
        body += f"Values:\n{_listing(alert.values)}\n"
    elif alert.valueString:
        body += f"Values:\n{alert.valueString}\n\n"
    if alert.annotations:
        body += f"Annotations:\n{_listing(dict(alert.annotations))}"
    for label, url in (
        ("Generator", alert.generatorURL),
        ("Silence", alert.silenceURL),
        ("Image", alert.imageURL),
    ):
        if url:
            body += f"\n[{label}]({url})"
    topic = f"[{alertname or alert.fingerprint}]"
    return Notice(topic=topic, body=body + "\n", event=alert.status)


class EvalMatch(Struct, frozen=True):
    metric: str
    value: int | float | None = None


class LegacyAlert(Struct, frozen=True):
    """Grafana 7's alert notification."""

    title: str
    state: str
    ruleName: str
    ruleUrl: str
    message: str | None = None
    evalMatches: list[EvalMatch] | None = None
    imageUrl: str | None = None


_LEGACY_ICONS = {"alerting": ":alert:", "ok": ":squared_ok:"}
_LEGACY_STATES = {"no_data", "paused", "alerting", "ok", "pending", "unknown"}


def _grafana_legacy(req: WebhookRequest) -> Notice:
    alert = req.parse(LegacyAlert)
    if alert.state not in _LEGACY_STATES:
        raise req.unsupported(alert.state)
    matches = "".join(f"**{m.metric}:** {m.value}\n" for m in alert.evalMatches or [])
    message = f"{alert.message}\n\n" if alert.message is not None else ""
    icon = _LEGACY_ICONS.get(alert.state, ":info:")
    body = (
        f"{icon} **{alert.state.upper()}**\n\n[{alert.ruleName}]({alert.ruleUrl})\n\n"
        f"{message}{matches}"
    )
    if alert.imageUrl is not None:
        body += f"\n[Click to view visualization]({alert.imageUrl})"
    return Notice(topic=alert.title, body=body.strip(), event=alert.state)


def format_grafana(req: WebhookRequest) -> list[Notice]:
    if isinstance(req.payload, dict) and "alerts" in req.payload:
        return [_grafana_alert(req, alert) for alert in req.parse(Alerts).alerts]
    return [_grafana_legacy(req)]


GRAFANA = Integration(
    name="grafana",
    display_name="Grafana",
    format=format_grafana,
    events=("ok", "pending", "alerting", "paused", "firing", "resolved"),
)

"""Sentry: error and message events (with the failing line's context), issue changes, and
the legacy plugin's payload, in Zulip's words. Pure."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import urljoin

from msgspec import Struct, field

from teamchat.actions.integrations.webhooks.base import (
    AnomalousWebhookPayloadError,
    Integration,
    Notice,
    WebhookRequest,
    global_time,
)
from teamchat.lib.integers import parse_int

# Sentry's platform -> the code block language of the traceback.
HIGHLIGHT = {
    "go": "go",
    "java": "java",
    "javascript": "javascript",
    "node": "javascript",
    "python": "python3",
    "ruby": "ruby",
}
SAMPLE_TITLE = "This is an example Python exception"


class Frame(Struct, frozen=True):
    filename: str | None = None
    context_line: str | None = None
    pre_context: list[str] | None = None
    post_context: list[str] | None = None


class Stacktrace(Struct, frozen=True):
    frames: list[Frame] = field(default_factory=list)


class ExceptionValue(Struct, frozen=True):
    stacktrace: Stacktrace | None = None


class ExceptionInfo(Struct, frozen=True):
    values: list[ExceptionValue] = field(default_factory=list)


class Event(Struct, frozen=True):
    title: str
    level: str = ""
    platform: str = ""
    version: str | int = "7"
    web_url: str = ""
    datetime: str = ""
    exception: ExceptionInfo | None = None
    logentry: dict[str, object] | None = None
    metadata: dict[str, object] = field(default_factory=dict)


class Assignee(Struct, frozen=True):
    type: str = ""
    name: str = ""


class Issue(Struct, frozen=True):
    title: str
    level: str = ""
    lastSeen: str = ""
    assignedTo: Assignee | None = None


class Actor(Struct, frozen=True):
    name: str = ""


class IssuePayload(Struct, frozen=True):
    action: str = ""
    actor: Actor = field(default_factory=Actor)


def _when(req: WebhookRequest, value: str) -> str:
    try:
        return global_time(value)
    except (ValueError, OverflowError):
        raise AnomalousWebhookPayloadError(req.webhook_name) from None


def _lines(lines: list[str] | None) -> str:
    return "".join("\n" if line == "" else f"     {line}\n" for line in lines or [])


def _exception_body(event: Event, level: str, when: str) -> str:
    filename = event.metadata.get("filename")
    head = f"\n**New exception:** [{event.title}]({event.web_url})\n```quote\n"
    head += f"**level:** {level}\n**timestamp:** {when}\n**filename:** {filename}\n```\n"
    values = event.exception.values if event.exception else []
    stack = next((v.stacktrace for v in reversed(values) if v.stacktrace is not None), None)
    if stack is None or not filename:
        return head
    frame = next((f for f in reversed(stack.frames) if f.filename == filename), None)
    if frame is None or frame.context_line is None:
        return head
    return (
        f"{head}\nTraceback:\n```{HIGHLIGHT.get(event.platform, '')}\n"
        f"{_lines(frame.pre_context)}---> {frame.context_line}\n{_lines(frame.post_context)}```\n"
    )


def event_notice(req: WebhookRequest, raw: object) -> Notice:
    event = req.parse(Event, raw)
    version = parse_int(str(event.version)) or 7
    if event.platform == "python" and version < 7 and event.title != SAMPLE_TITLE:
        raise req.unsupported("Raven SDK")  # Sentry's deprecated Python SDK
    when = _when(req, event.datetime)
    if event.exception is not None:
        return Notice(topic=event.title, body=_exception_body(event, event.level, when))
    if event.logentry is not None:
        body = (
            f"\n**New message event:** [{event.title}]({event.web_url})\n```quote\n"
            f"**level:** {event.level}\n**timestamp:** {when}\n```\n"
        )
        return Notice(topic=event.title, body=body)
    raise req.unsupported("unknown-event type")


def issue_notice(req: WebhookRequest, raw: object) -> Notice:
    issue = req.parse(Issue, raw)
    about = req.parse(IssuePayload)
    who = issue.assignedTo
    assignee = ("team " if who.type == "team" else "") + who.name if who else "No one"
    actor = about.actor.name
    texts = {
        "created": (
            f"\n**New issue created:** {issue.title}\n```quote\n**level:** {issue.level}\n"
            f"**timestamp:** {_when(req, issue.lastSeen)}\n**assignee:** {assignee}\n```\n"
        ),
        "resolved": f"\nIssue **{issue.title}** was marked as resolved by **{actor}**.\n",
        "assigned": (
            f"\nIssue **{issue.title}** has now been assigned to **{assignee}** by **{actor}**.\n"
        ),
        "ignored": f"\nIssue **{issue.title}** was ignored by **{actor}**.\n",
    }
    if about.action not in texts:
        raise req.unsupported(f"{about.action} action")
    return Notice(topic=issue.title, body=texts[about.action])


def _from_plain_webhook(payload: dict[str, object]) -> dict[str, object] | None:
    """A plain-webhook payload reshaped like an internal integration's (its event gets a
    web link and a readable time); None for the legacy plugin's payload."""
    event = payload.get("event")
    if not isinstance(event, dict) or not event.get("event_id"):
        return None
    stamp = event.get("timestamp", event.get("received"))
    if not isinstance(stamp, int | float):
        return None
    try:
        moment = datetime.fromtimestamp(stamp, UTC).isoformat(timespec="microseconds")
    except (ValueError, OverflowError, OSError):
        return None
    url = str(payload.get("url", ""))
    web_url = urljoin(url, f"events/{event['event_id']}/")
    return {**payload, "event": {**event, "web_url": web_url, "datetime": moment}}


def format_sentry(req: WebhookRequest) -> Notice:
    payload = req.payload if isinstance(req.payload, dict) else {}
    data = payload.get("data")
    if data is None:
        data = _from_plain_webhook(payload)
    if not data:
        level = str(payload.get("level", "")).upper()
        body = (
            f"\nNew [issue]({payload.get('url')}) (level: {level}):\n\n``` quote\n"
            f"{payload.get('message')}\n```\n"
        )
        return Notice(topic=str(payload.get("project_name")), body=body)
    if not isinstance(data, dict):
        raise req.unsupported(str(data))
    if "event" in data:
        return event_notice(req, data["event"])
    if "issue" in data:
        return issue_notice(req, data["issue"])
    raise req.unsupported(str(list(data)))


INTEGRATION = Integration(name="sentry", display_name="Sentry", format=format_sentry)

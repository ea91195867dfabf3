"""Jira: issues created, updated (assignments, transitions, field changes, comments) and
deleted, and comment events, with Jira's markup turned into Markdown. Pure: the realm's
people come with the request, for naming assignees as Zulip does."""

from __future__ import annotations

import re
import string
from collections.abc import Callable

from teamchat.actions.integrations.webhooks.base import (
    AnomalousWebhookPayloadError,
    Integration,
    Notice,
    WebhookRequest,
)

IGNORED_EVENTS = {
    "attachment_created",
    "issuelink_created",
    "issuelink_deleted",
    "jira:version_released",
    "jira:worklog_updated",
    "sprint_closed",
    "sprint_started",
    "worklog_created",
    "worklog_updated",
}
_MARKUP = (
    (re.compile(r"\*([^*]+)\*"), r"**\1**"),  # *bold*
    (re.compile(r"{{([^*]+?)}}"), r"`\1`"),  # {{monospace}}
    (re.compile(r"bq\. (.*)"), r"> \1"),  # bq. quoted line
    (re.compile(r"{quote}(.*?){quote}", re.DOTALL), "~~~ quote\n\\1\n~~~"),
    (re.compile(r"{noformat}(.*?){noformat}", re.DOTALL), "~~~\n\\1\n~~~"),
    (re.compile(r"{code[^\n]*}(.*?){code}", re.DOTALL), "~~~\n\\1\n~~~"),
    (re.compile(r"\[([^|~]+?)\]"), r"[\1](\1)"),  # [https://url]
    (re.compile(r"\[(?:(?P<title>[^|~]+)\|)(?P<url>[^\]]*)\]"), r"[\g<title>](\g<url>)"),
)
_USER_MARK = re.compile(r"\[~(.*?)\]")
_REST_URL = re.compile(r"(.*)/rest/api/.*")


def get(value: object, *keys: str, default: str = "") -> str:
    """The string at `keys`, or `default` where the path is missing or not a string."""
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return default
        value = value[key]
    return value if isinstance(value, str) else default


def markup(req: WebhookRequest, text: str) -> str:
    """Jira's wiki markup as Zulip Markdown; [~user] becomes the person's name in bold."""
    for pattern, replacement in _MARKUP:
        text = pattern.sub(replacement, text)
    for username in _USER_MARK.findall(text):
        folded = username.lower()
        found = next(
            (name for email, name in req.people
             if name.lower() == folded or email.lower().startswith(folded)),
            username,
        )  # fmt: skip
        text = text.replace(f"[~{username}]", f"**{found}**")
    return text


def issue_id(payload: dict[str, object]) -> str:
    if "issue" not in payload:  # old Jira: only the comment's REST URL names the issue
        parts = get(payload, "comment", "self").split("/")
        return parts[-3] if len(parts) >= 3 else ""
    return get(payload, "issue", "key")


def issue_title(payload: dict[str, object]) -> str:
    if "issue" not in payload:
        return "Upgrade Jira to get the issue title here."
    return get(payload, "issue", "fields", "summary")


def issue_link(payload: dict[str, object], key: str | None = None, with_title: bool = False) -> str:
    """The issue as a link to /browse/KEY, guessed from its REST URL."""
    key = issue_id(payload) if key is None else key
    text = f"{key}: {issue_title(payload)}" if with_title else key
    base = _REST_URL.match(get(payload, "issue", "self"))
    return f"[{text}]({base.group(1)}/browse/{key})" if base else text


def _assignee(req: WebhookRequest, payload: dict[str, object]) -> str:
    email = get(payload, "issue", "fields", "assignee", "emailAddress")
    if not email:
        return ""
    name = next((n for e, n in req.people if e.lower() == email.lower()), email)
    return f"**{name}**"


def _sub_event(payload: dict[str, object]) -> str:
    sub = get(payload, "issue_event_type_name")
    if sub == "":
        if payload.get("comment"):
            return "issue_commented"
        if payload.get("transition"):
            return "issue_transited"
    return sub


def _change(field: object, before: str | None, after: str | None) -> str:
    line = f"* Changed {field}"
    if before:
        line += f" from **{before}**"
    if after:
        line += f" to {after}\n"
    return line


def _comment_update(req: WebhookRequest, payload: dict[str, object], sub: str, head: str) -> str:
    verbs = {"issue_commented": "commented on", "issue_comment_edited": "edited a comment on"}
    verb = verbs.get(sub, "deleted a comment from")
    if payload.get("webhookEvent") == "comment_created":
        author = get(payload, "comment", "author", "displayName")
    else:
        author = get(payload, "user", "displayName")
    text = f"{author} {verb} {head}"
    comment = get(payload, "comment", "body")
    if comment:
        return f"{text}:\n\n``` quote\n{markup(req, comment)}\n```"
    return f"{text}."


def _changelog_lines(payload: dict[str, object], assignee: str) -> str:
    changelog = payload.get("changelog")
    items = changelog.get("items") if isinstance(changelog, dict) else None
    lines = ""
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        field = item.get("field")
        use_assignee = field == "assignee" and assignee
        target = assignee if use_assignee else f"**{item.get('toString')}**"
        source = item.get("fromString")
        lines += _change(field, source if isinstance(source, str) else None, target)
    return lines


def updated(req: WebhookRequest, payload: dict[str, object]) -> str:
    """Reassignments, comments, transitions and field changes all come as issue_updated."""
    link = issue_link(payload, get(payload, "issue", "key"), with_title=True)
    assignee = _assignee(req, payload)
    head = f"{link} (assigned to {assignee})" if assignee else link
    sub = _sub_event(payload)
    if "comment" in sub:
        return _comment_update(req, payload, sub, head)
    text = f"{get(payload, 'user', 'displayName')} updated {head}:\n\n"
    if payload.get("changelog"):
        return text + _changelog_lines(payload, assignee)
    if sub == "issue_transited":
        to_status = f"**{get(payload, 'transition', 'to_status')}**"
        return text + _change("status", get(payload, "transition", "from_status"), to_status)
    return text


def created(req: WebhookRequest, payload: dict[str, object]) -> str:
    assignee = get(payload, "issue", "fields", "assignee", "displayName", default="no one")
    return (
        f"{get(payload, 'user', 'displayName')} created {issue_link(payload, with_title=True)}:"
        f"\n\n* **Priority**: {get(payload, 'issue', 'fields', 'priority', 'name')}"
        f"\n* **Assignee**: {assignee}"
    )


def deleted(req: WebhookRequest, payload: dict[str, object]) -> str:
    title = issue_title(payload)
    end = "" if title[-1:] in string.punctuation and title else "."
    return (
        f"{get(payload, 'user', 'displayName')} deleted {issue_link(payload, with_title=True)}{end}"
    )


Body = Callable[[WebhookRequest, dict[str, object]], str]


def _comment_event(verb: str, strike: bool) -> Body:
    def body(req: WebhookRequest, payload: dict[str, object]) -> str:
        comment = get(payload, "comment", "body").replace("\\!", "!")
        shown = f"~~{comment}~~" if strike else comment
        return (
            f"{get(payload, 'comment', 'author', 'displayName')} {verb} issue: "
            f'*"{issue_title(payload)}"*\n``` quote\n{shown}\n```\n'
        )

    return body


BODIES: dict[str, Body] = {
    "jira:issue_created": created,
    "jira:issue_deleted": deleted,
    "jira:issue_updated": updated,
    "comment_created": _comment_event("commented on", False),
    "comment_updated": _comment_event("updated their comment on", False),
    "comment_deleted": _comment_event("deleted their comment on", True),
}


def format_jira(req: WebhookRequest) -> Notice | None:
    payload = req.payload if isinstance(req.payload, dict) else {}
    event = payload.get("webhookEvent")
    if event is None and payload.get("transition"):
        event = "jira:issue_updated"
    if not isinstance(event, str):
        raise AnomalousWebhookPayloadError(req.webhook_name)
    if event in IGNORED_EVENTS:
        return None
    if event not in BODIES:
        raise req.unsupported(event)
    body = BODIES[event](req, payload)
    return Notice(topic=f"{issue_id(payload)}: {issue_title(payload)}", body=body, event=event)


INTEGRATION = Integration(
    name="jira",
    display_name="Jira",
    format=format_jira,
    events=tuple(BODIES),
    unquote_url_parameters=True,
    needs_people=True,
)

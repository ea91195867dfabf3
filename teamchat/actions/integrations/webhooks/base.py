"""What every incoming-webhook integration shares: the request it formats, the message it
produces, Zulip's webhook errors and payload parsing. Pure: no I/O, no clock, no store."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

import msgspec

from teamchat.errors import ZulipError

T = TypeVar("T")


class WebhookError(ZulipError):
    """An error of one integration; `webhook_name` is its display name (GitHub, GitLab...)."""


class UnsupportedWebhookEventTypeError(WebhookError):
    """An event the tool sends that has no message: the tool is told success, so it keeps
    the webhook enabled."""

    code = "UNSUPPORTED_WEBHOOK_EVENT_TYPE"
    # zulip-compat: HTTP 200 with result "success" (Zulip's json_response_from_error for a
    # 2xx JsonableError), so GitHub and friends do not disable the hook.
    http_status = 200

    def __init__(self, webhook_name: str, event_type: str) -> None:
        super().__init__(
            f"The '{event_type}' event isn't currently supported by the {webhook_name} webhook;"
            " ignoring",
            webhook_name=webhook_name,
            event_type=event_type,
        )

    def envelope(self) -> dict[str, object]:
        return {**super().envelope(), "result": "success"}


class AnomalousWebhookPayloadError(WebhookError):
    """A payload the tool would not send (another tool's, or one missing its fields)."""

    code = "ANOMALOUS_WEBHOOK_PAYLOAD"

    def __init__(self, webhook_name: str) -> None:
        super().__init__(
            f"Unable to parse request: Did {webhook_name} generate this event?",
            webhook_name=webhook_name,
        )


class MissingHTTPEventHeaderError(WebhookError):
    code = "MISSING_HTTP_EVENT_HEADER"

    def __init__(self, webhook_name: str, header: str) -> None:
        super().__init__(
            f"Missing the HTTP event header '{header}'", webhook_name=webhook_name, header=header
        )


class InvalidJSONError(ZulipError):
    code = "INVALID_JSON"

    def __init__(self) -> None:
        super().__init__("Malformed JSON")


# The payload of a body that is not JSON, for formatters that answer it themselves.
MALFORMED_BODY = "<malformed>"


@dataclass(frozen=True)
class WebhookRequest:
    """One delivery, as the formatter sees it."""

    webhook_name: str
    payload: object  # the decoded JSON body (a form's fields for form-encoded tools)
    headers: Mapping[str, str]  # lower-case names
    params: Mapping[str, str]  # the URL's own options (branches, ...)
    # Zulip adds the PR/issue title to the text when the URL pins the topic.
    user_specified_topic: bool = False
    # (delivery email, full name) of the realm's active users, oldest first, for the
    # integrations that name people (Jira); empty for the others.
    people: tuple[tuple[str, str], ...] = ()

    def header(self, name: str) -> str:
        value = self.headers.get(name.lower())
        if value is None:
            raise MissingHTTPEventHeaderError(self.webhook_name, name)
        return value

    def flag(self, name: str) -> bool:
        return self.params.get(name, "").strip().lower() in {"true", "1", "yes"}

    def parse(self, kind: type[T], value: object | None = None) -> T:
        """`value` (default: the payload) converted to `kind`; a mismatch means the payload
        is not this tool's."""
        try:
            return msgspec.convert(self.payload if value is None else value, kind)
        except msgspec.ValidationError:
            raise AnomalousWebhookPayloadError(self.webhook_name) from None

    def unsupported(self, event_type: str) -> UnsupportedWebhookEventTypeError:
        return UnsupportedWebhookEventTypeError(self.webhook_name, event_type)


@dataclass(frozen=True)
class Notice:
    """The message a delivery becomes; `event` is matched by only_events/exclude_events."""

    topic: str
    body: str
    event: str | None = None


# One delivery is no message, one message, or several (one per alert, as Zulip sends them).
Formatter = Callable[[WebhookRequest], Notice | list[Notice] | None]


@dataclass(frozen=True)
class Integration:
    """One tool: its URL name, the name Zulip shows, its formatter and its event types."""

    name: str
    display_name: str
    format: Formatter
    events: tuple[str, ...] = ()
    # Slack-compatible senders post forms; everything else posts JSON.
    accepts_form: bool = False
    # Extra fields of the success answer (Slack clients look for "ok": true).
    success_data: Mapping[str, object] = field(default_factory=dict)
    # Tools that double-escape the URL (Jira): stream and topic are URL-decoded once more.
    unquote_url_parameters: bool = False
    needs_people: bool = False


def global_time(value: str) -> str:
    """Zulip's <time:...> syntax for a timestamp (seconds precision, its own offset)."""
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return f"<time:{moment.replace(microsecond=0).isoformat()}>"


def event_wanted(event: str | None, only: list[str] | None, exclude: list[str] | None) -> bool:
    """Zulip's filter: Unix shell-style patterns, only_events then exclude_events."""
    if event is None:
        return True
    if only is not None and not any(fnmatch.fnmatchcase(event, p) for p in only):
        return False
    return not (exclude is not None and any(fnmatch.fnmatchcase(event, p) for p in exclude))

"""POST /api/v1/external/{integration}: Zulip's integration URLs. One entry point for every
integration: it authenticates (the bot's `api_key` in the URL, or HTTP Basic), reads the
payload and the URL's options, and hands them to the webhook action."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request

from teamchat.actions.integrations import incoming_webhooks as webhooks
from teamchat.actions.integrations.webhooks.base import (
    MALFORMED_BODY,
    InvalidJSONError,
    MissingHTTPEventHeaderError,
    WebhookRequest,
)
from teamchat.http.params import Params, as_str, as_str_list
from teamchat.http.routing import post
from teamchat.http.urls import realm_url
from teamchat.lib.api_types import JsonDict
from teamchat.lib.json_input import decode_json
from teamchat.records import UserRow
from teamchat.runtime import Runtime

_MALFORMED = MALFORMED_BODY
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


@post("/external/{integration:str}")
async def api_webhook(
    integration: str, request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    hook = webhooks.access_integration(integration)
    url = realm_url(request, rt)
    target = webhooks.WebhookTarget(
        stream=params.optional("stream", as_str, None),
        topic=params.optional("topic", as_str, None),
        only_events=params.optional("only_events", as_str_list, None),
        exclude_events=params.optional("exclude_events", as_str_list, None),
        realm_url=url,
    )
    params.mark_read(*params.values)  # api_key and the integration's own options
    payload = await _payload(request, params, hook.accepts_form)
    if payload is None:
        if hook.accepts_form:  # Slack-style senders get Slack's error shape from the formatter
            payload = _MALFORMED
        else:
            await webhooks.notify_invalid_json(rt, user, hook, url)
            raise InvalidJSONError()
    req = WebhookRequest(
        webhook_name=hook.display_name,
        payload=payload,
        headers={name.lower(): value for name, value in request.headers.items()},
        params=params.values,
        user_specified_topic=target.topic is not None,
    )
    try:
        await webhooks.check_send_webhook_message(rt, user, hook, req, target)
    except MissingHTTPEventHeaderError as error:
        header = str(error.data["header"])
        await webhooks.notify_missing_header(rt, user, hook, request.url.path, header, url)
        raise
    return params.success(**hook.success_data)


async def _payload(request: Request[Any, Any, Any], params: Params, form: bool) -> object | None:
    """The JSON body (a form's fields for tools that post forms); None when malformed."""
    if form and request.headers.get("content-type", "").startswith(_FORM_TYPES):
        return dict(params.values)
    try:
        return decode_json(await request.body())
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None

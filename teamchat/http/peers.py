"""Requests about a queue that another process holds, passed on to that process.

With several processes behind the proxy (`serve --process N --peers ...`), the proxy routes
event queue requests by the `queue_id` in the query string. The Python client sends DELETE
/events with `queue_id` in a form body, which the proxy cannot read, so such a request may
reach any process: that process passes it on to the queue's own process (its direct URL from
--peers) and relays the answer. The peer authenticates the request again, as if it had come
from the proxy. A peer that cannot be reached holds no queue any more: BAD_EVENT_QUEUE_ID.
"""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from typing import Any

from litestar import Request, Response

from teamchat.errors import BadEventQueueIdError
from teamchat.http.auth import came_via_json
from teamchat.lib.queue_ids import process_of
from teamchat.runtime import Runtime

# Marks a request one process passed to another: it is never passed on again (no loops).
FORWARDED_HEADER = "x-teamchat-forwarded"
_PASSED_HEADERS = (
    "authorization",
    "cookie",
    "x-csrftoken",
    "content-type",
    "user-agent",
    "origin",
    "referer",
    "host",
)
TIMEOUT_SECS = 10.0
# Straight to the peer: no proxy from the environment, no redirects followed.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def owner_url(rt: Runtime, request: Request[Any, Any, Any], queue_id: str) -> str | None:
    """The URL of the other process that holds `queue_id`, when it is known and the request
    was not passed on already; else None (this process answers)."""
    settings = rt.settings
    if not settings.peers or settings.process is None:
        return None
    owner = process_of(queue_id)
    if owner is None or owner == settings.process or FORWARDED_HEADER in request.headers:
        return None
    return dict(settings.peers).get(owner)


async def forward(request: Request[Any, Any, Any], base_url: str, queue_id: str) -> Response[bytes]:
    """Send the request to the process at `base_url` and answer with its answer."""
    headers = {name: request.headers[name] for name in _PASSED_HEADERS if name in request.headers}
    headers[FORWARDED_HEADER] = "1"
    # This process's view of the client (uvicorn took it from a trusted proxy's headers).
    if request.client is not None:
        headers["x-forwarded-for"] = request.client.host
    headers["x-forwarded-proto"] = request.url.scheme
    path = "/json/events" if came_via_json(request) else "/api/v1/events"
    query = request.scope.get("query_string", b"").decode("latin-1")
    url = f"{base_url}{path}?{query}" if query else f"{base_url}{path}"
    body = await request.body()
    try:
        status, content_type, content = await asyncio.to_thread(
            _send, request.method, url, headers, body
        )
    except OSError:  # refused, unreachable, timed out (URLError is an OSError)
        raise BadEventQueueIdError(queue_id) from None
    return Response(content, status_code=status, media_type=content_type)


def _send(method: str, url: str, headers: dict[str, str], body: bytes) -> tuple[int, str, bytes]:
    """(status, content type, body) of one request (in a thread: urllib blocks)."""
    outgoing = urllib.request.Request(url, data=body or None, headers=headers, method=method)
    try:
        with _OPENER.open(outgoing, timeout=TIMEOUT_SECS) as answer:
            return answer.status, answer.headers.get_content_type(), answer.read()
    except urllib.error.HTTPError as error:  # an error answer is still the peer's answer
        with error:
            return error.code, error.headers.get_content_type(), error.read()

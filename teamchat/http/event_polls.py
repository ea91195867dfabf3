"""The lean path of GET /api/v1/events: the long-poll every client keeps open.

Most requests a busy server answers are these polls, and each one is the same: HTTP Basic
credentials seen before, a queue id, the last event id. `answer_poll` answers exactly that
case straight from ASGI, with no routing, dependency resolution or response object: the user
comes from the authentication cache and the events are the queue's ready JSON. Anything
else (unknown or repeated parameters, a body, credentials not in the cache, a rate limit, a
bad queue) returns False untouched, and the framework's route (http/events.py) answers it,
errors included, the one way every endpoint does.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

import msgspec

from teamchat.actions.people.auth import cached_api_user, check_api_rate_limit
from teamchat.errors import ZulipError
from teamchat.events.queue import EventQueue
from teamchat.http.auth import decode_basic
from teamchat.records import UserRow
from teamchat.runtime import Runtime

PATH = "/api/v1/events"
_PARAMS = frozenset({"queue_id", "last_event_id", "dont_block"})
_INT = re.compile(r"-?[0-9]{1,18}")
# The query every client's polls send (python-zulip-api's, the web client's, zulip-js's):
# a queue id of ours (`[N-]hex:hex`, its colon percent-encoded or not), then the last event
# id, then perhaps dont_block. Read in one match; any other query is parsed in full.
_USUAL_QUERY = re.compile(
    rb"queue_id=((?:[1-9][0-9]{0,2}-)?[0-9a-f]{1,16}(?::|%3[Aa])[0-9a-f]{1,32})"
    rb"&last_event_id=(-?[0-9]{1,18})(?:&dont_block=(true|false))?"
)
_BOOLS = {"true": True, "false": False}
_HEADERS = [(b"content-type", b"application/json")]
_encode = msgspec.json.Encoder().encode
# Authorization header -> its decoded Basic credentials (a pure function of the bytes; each
# poll of a client sends the same header), for credentials that authenticated. Cleared when
# it grows past the cap.
_DECODED: dict[bytes, tuple[str, str]] = {}
_DECODED_CAP = 10_000


async def answer_poll(rt: Runtime, scope: dict[str, Any], send: Any) -> bool:
    """Answer a plain poll and return True, or return False having done nothing."""
    found = plain_poll(rt, scope["headers"], scope["query_string"])
    if found is None:
        return False
    user, queue, last_event_id, dont_block = found
    state = scope.setdefault("state", {})
    state["user_id"] = user.id
    state["user_email"] = user.delivery_email  # for the access log
    if not dont_block:
        state["longpoll"] = True
    events = await rt.broker.get_events(queue, last_event_id, dont_block=dont_block)
    body = b'{"result":"success","msg":"","events":[%s],"queue_id":%s}' % (
        b",".join(events),
        _encode(queue.queue_id),
    )
    headers = [*_HEADERS, (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})
    return True


def plain_poll(
    rt: Runtime, headers: list[tuple[bytes, bytes]], query_string: bytes
) -> tuple[UserRow, EventQueue, int | None, bool] | None:
    """(user, queue, last_event_id, dont_block) of a plain poll, else None."""
    authorization = _authorization(headers)
    poll = _poll_params(query_string)
    if authorization is None or poll is None:
        return None
    credentials = _DECODED.get(authorization)
    known = credentials is not None
    if credentials is None and authorization[:6].lower() == b"basic ":
        credentials = decode_basic(authorization[6:].decode("latin-1"))
    if credentials is None:
        return None
    user = cached_api_user(rt, *credentials)
    if user is None:
        return None
    if not known:
        # Only credentials that authenticated are remembered: nobody fills this with junk.
        if len(_DECODED) >= _DECODED_CAP:
            _DECODED.clear()
        _DECODED[authorization] = credentials
    queue_id, last_event_id, dont_block = poll
    queue = rt.broker.queues.get(queue_id)
    if queue is None or queue.user_id != user.id:
        return None
    try:
        check_api_rate_limit(rt, user)
    except ZulipError:
        return None  # the route answers with the rate limit's error
    return user, queue, last_event_id, dont_block


def _authorization(headers: list[tuple[bytes, bytes]]) -> bytes | None:
    """The Authorization header of a request with no body, else None."""
    authorization = None
    for name, value in headers:
        if name == b"authorization":
            authorization = value
        elif name in (b"content-length", b"transfer-encoding") and value != b"0":
            return None  # a body may hold parameters
    return authorization


def _poll_params(query_string: bytes) -> tuple[str, int | None, bool] | None:
    """(queue_id, last_event_id, dont_block) if the query holds only those, plainly written."""
    usual = _USUAL_QUERY.fullmatch(query_string)
    if usual is not None:
        queue_id, last_event_id, dont_block = usual.groups()
        if b"%" in queue_id:  # an encoded colon
            queue_id = queue_id.replace(b"%3A", b":").replace(b"%3a", b":")
        return queue_id.decode(), int(last_event_id), dont_block == b"true"
    params = _parse_query(query_string.decode("latin-1"))
    values = dict(params)
    if len(values) != len(params) or not values.keys() <= _PARAMS or "queue_id" not in values:
        return None
    last_event_id = values.get("last_event_id")
    if last_event_id is not None and not _INT.fullmatch(last_event_id):
        return None
    dont_block = _BOOLS.get(values.get("dont_block", "false"))
    if dont_block is None:
        return None
    return values["queue_id"], int(last_event_id) if last_event_id is not None else None, dont_block


def _parse_query(query: str) -> list[tuple[str, str]]:
    """parse_qsl(query, keep_blank_values=True), without its unquoting where nothing is
    quoted (a client's polls never quote anything)."""
    if "%" in query or "+" in query:
        return parse_qsl(query, keep_blank_values=True)
    params = []
    for piece in query.split("&"):
        if piece:
            name, _, value = piece.partition("=")
            params.append((name, value))
    return params

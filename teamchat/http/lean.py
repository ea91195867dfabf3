"""The lean path of the hottest API routes: the framework's own handlers, called without its
routing, dependency resolution and response objects.

A send or a GET /users/me spent most of its time in the framework around a 15-line handler.
For the routes in `LEAN_ROUTES`, `answer` does the few things the route would do, with the
same functions: it reads a small urlencoded body (`Params.from_request`), authenticates
(`http.auth.identify` and `check_api_access`: HTTP Basic, or the session cookie and CSRF
token under /json), calls the route handler's own function and encodes its dict the way
the framework does. Anything unusual (a body that is large, chunked, multipart or not
UTF-8, a bad Host, credentials that do not authenticate, a rate limit, any error the handler
raises) returns False with nothing sent, and the framework's route answers the request:
errors have one mechanism. A handler that raised a ZulipError changed nothing (actions write
in one transaction and roll back), so the route runs it again from the start; the rate
limit's count for the request is given back first, as the route counts it again. An
unexpected exception (a bug) propagates to the caller, which answers it with the app's own
error handler: such a handler may have committed, so it never runs twice.

The event poll has its own, leaner path (event_polls.py).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Awaitable, Callable
from functools import cached_property
from typing import Any

from litestar import Request
from litestar.serialization import encode_json
from litestar.utils.scope.state import ScopeState

from teamchat.actions.people.auth import refund_api_rate_limit
from teamchat.errors import ZulipError
from teamchat.http.auth import check_api_access, identify
from teamchat.http.params import Params
from teamchat.lib.integers import is_ascii_digits
from teamchat.runtime import Runtime

# A larger body (a long message is 10,000 characters) goes the ordinary way.
MAX_BODY_BYTES = 64 * 1024
_FORM = b"application/x-www-form-urlencoded"
# Litestar's check of the Host header (litestar/_asgi/utils.py), refused there with a 400.
_HOST = re.compile(rb"\A[0-9A-Za-z!$&'()*+,;=\-._~:\[\]@%]*\Z")
_HEADERS = [(b"content-type", b"application/json")]


class LeanRoute:
    """One route handler of the framework (`handler` in area module `area`), answered here for
    `method` at `path`. The area is imported on the route's first request (tests/test_routes.py
    checks that the handler serves that method at that path)."""

    def __init__(self, area: str, handler: str, method: str, path: str) -> None:
        self.area, self.handler_name, self.method = area, handler, method
        # Path parameters are {name:int} only: ASCII digits (Zulip's [0-9]+).
        self.int_params = re.findall(r"\{(\w+):int\}", path)
        self.pattern = re.compile(re.sub(r"\{\w+:int\}", "([0-9]{1,18})", path) + r"\Z")
        self.static_path = path if not self.int_params else None

    @cached_property
    def handler(self) -> Any:
        return getattr(importlib.import_module(f"teamchat.http.{self.area}"), self.handler_name)

    @cached_property
    def fn(self) -> Callable[..., Awaitable[Any]]:
        return self.handler.fn  # type: ignore[no-any-return]

    @cached_property
    def takes_request(self) -> bool:
        return "request" in self.handler.parsed_fn_signature.parameters


LEAN_ROUTES = [
    LeanRoute("messages", "send_message", "POST", "/api/v1/messages"),
    LeanRoute("users", "get_own_user", "GET", "/api/v1/users/me"),
    LeanRoute("messages", "get_messages", "GET", "/api/v1/messages"),
    LeanRoute("message_flags", "update_message_flags", "POST", "/api/v1/messages/flags"),
    LeanRoute("reactions", "add_reaction", "POST", "/api/v1/messages/{message_id:int}/reactions"),
    LeanRoute(
        "reactions", "remove_reaction", "DELETE", "/api/v1/messages/{message_id:int}/reactions"
    ),
    LeanRoute("typing", "set_typing_status", "POST", "/api/v1/typing"),
    LeanRoute("presence", "update_presence", "POST", "/api/v1/users/me/presence"),
    LeanRoute("events", "register_queue", "POST", "/api/v1/register"),
]
_STATIC = {(r.method, r.static_path): r for r in LEAN_ROUTES if r.static_path is not None}
_PATTERNED = [r for r in LEAN_ROUTES if r.static_path is None]


def match(scope: dict[str, Any]) -> tuple[LeanRoute, dict[str, int]] | None:
    """The lean route of an /api/v1 request (after /json's rewrite) and its path parameters."""
    method, path = str(scope.get("method")), scope["path"]
    route = _STATIC.get((method, path))
    if route is not None:
        return route, {}
    for route in _PATTERNED:
        if route.method == method and (found := route.pattern.match(path)):
            return route, {n: int(v) for n, v in zip(route.int_params, found.groups(), strict=True)}
    return None


async def answer(rt: Runtime, app: Any, scope: dict[str, Any], receive: Any, send: Any) -> bool:
    """Answer a plain request to a lean route and return True, or return False having sent
    nothing (the body, if read, stays in the scope for the route to use)."""
    found = match(scope)
    if found is None:
        return False
    body = await _read_small_body(scope, receive)
    if body is None:
        return False
    route, path_params = found
    scope["app"] = scope["litestar_app"] = app
    scope.setdefault("state", {})
    request: Request[Any, Any, Any] = Request(scope, receive)  # type: ignore[arg-type]
    try:
        # Nothing in the query or the body: what from_request would make, without parsing.
        plain = not body and not scope["query_string"]
        params = Params({}) if plain else await Params.from_request(request)
        user = await identify(request, rt, params)
    except Exception:
        return False  # the route answers with the same error (no rate-limit hit was counted)
    try:
        check_api_access(request, user)
    except ZulipError:
        refund_api_rate_limit(rt, user)
        return False
    kwargs: dict[str, Any] = {"params": params, "user": user, "rt": rt, **path_params}
    if route.takes_request:
        kwargs["request"] = request
    try:
        data = await route.fn(**kwargs)
    except ZulipError:
        # Nothing changed (an action that raises rolls back): the route runs it again.
        refund_api_rate_limit(rt, user)
        return False
    # Any other exception is the caller's to answer, once: a handler that failed unexpectedly
    # may have committed, so it must not run again.
    scope["state"]["lean"] = True  # for the access log
    body = encode_json(data)
    headers = [*_HEADERS, (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})
    return True


def _plain_body_length(headers: list[tuple[bytes, bytes]]) -> int | None:
    """The length of a small urlencoded body (0: none), None for anything else."""
    length = 0
    for name, value in headers:
        if name == b"content-length":
            if not is_ascii_digits(value.decode("latin-1")) or int(value) > MAX_BODY_BYTES:
                return None
            length = int(value)
        elif (
            name == b"transfer-encoding"
            or (name == b"content-type" and not value.startswith(_FORM))
            or (name == b"host" and not _HOST.match(value))
        ):
            return None
    return length


async def _read_small_body(scope: Any, receive: Any) -> bytes | None:
    """Read a small urlencoded body (or none) into the scope's state, where the framework's
    request finds it too. None: leave the request to the route."""
    length = _plain_body_length(scope["headers"])
    if length is None:
        return None
    body = b""
    if length > 0:
        chunks = []
        while True:
            try:
                message = await receive()
            except Exception:
                return None  # a client gone away: the route meets the same end
            if message["type"] != "http.request":
                return None
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
    ScopeState.from_scope(scope).body = body
    return body

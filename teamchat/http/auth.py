"""Authentication of the API routes: HTTP Basic (`email:api_key`) under /api/v1, and the web
client's session cookie plus CSRF token under /json (the same handlers, see `json_to_api`)."""

from __future__ import annotations

import base64
import hmac
from typing import Any, cast

from litestar import Request
from litestar.types import Scope

from teamchat.actions.people.auth import (
    authenticate_api_key,
    authenticate_webhook_key,
    refund_api_rate_limit,
)
from teamchat.actions.people.web_sessions import authenticate_session
from teamchat.errors import (
    CsrfFailedError,
    RequestVariableMissingError,
    SessionRequiredError,
    UnauthorizedError,
    ZulipError,
)
from teamchat.http.params import Params
from teamchat.lib.messages import client_name
from teamchat.records import BotType, UserRow, WebSessionRow
from teamchat.runtime import Runtime


def basic_credentials(request: Request[Any, Any, Any]) -> tuple[str, str] | None:
    """(username, password) from an Authorization: Basic header, or None if absent."""
    header = request.headers.get("authorization")
    if not header:
        return None
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic":
        raise UnauthorizedError("This endpoint requires HTTP basic authentication.")
    credentials = decode_basic(encoded)
    if credentials is None:
        raise UnauthorizedError("Invalid authorization header for basic auth")
    return credentials


def decode_basic(encoded: str) -> tuple[str, str] | None:
    """(username, password) of the base64 part of Basic credentials; None if malformed."""
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except ValueError:  # not base64 (binascii.Error, non-ASCII text) or not UTF-8
        return None
    username, sep, password = decoded.partition(":")
    return (username, password) if sep else None


SESSION_COOKIE = "sessionid"
CSRF_COOKIE = "csrftoken"
CSRF_HEADER = "x-csrftoken"
_JSON_PREFIX = "/json/"
# Set by `json_to_api` only: a client cannot claim it through a header or path.
_VIA_JSON = "teamchat.via_json"
_SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


def json_to_api(scope: Scope) -> Scope:
    """The scope of /json/... rewritten to /api/v1/..., marked as cookie-authenticated: one route
    table serves both, and `provide_user` picks the mechanism from the mark."""
    path = str(scope.get("path", ""))
    if not path.startswith(_JSON_PREFIX):
        return scope
    raw: dict[str, Any] = dict(scope)
    raw["path"] = "/api/v1/" + path[len(_JSON_PREFIX) :]
    raw["raw_path"] = raw["path"].encode()
    raw[_VIA_JSON] = True
    return cast(Scope, raw)


def came_via_json(request: Request[Any, Any, Any]) -> bool:
    """Whether the request came in under /json (rewritten to /api/v1 by `json_to_api`)."""
    return bool(request.scope.get(_VIA_JSON))


async def session_user(request: Request[Any, Any, Any], rt: Runtime) -> UserRow:
    """The user of the request's session cookie, with the CSRF token checked on writes."""
    token = request.cookies.get(SESSION_COOKIE)
    if not token:
        raise SessionRequiredError()
    user, session = await authenticate_session(rt, token)
    if request.method not in _SAFE_METHODS:
        try:
            check_csrf(request.headers.get(CSRF_HEADER), session)
        except CsrfFailedError:
            # zulip-compat: Django refuses a bad CSRF token before the view's rate limit
            # counts the request (and the lean path, falling through, counts once either way).
            refund_api_rate_limit(rt, user)
            raise
    return user


def session_token(request: Request[Any, Any, Any]) -> str | None:
    """The session cookie of a request made under /json (None for HTTP Basic requests)."""
    return request.cookies.get(SESSION_COOKIE) if request.scope.get(_VIA_JSON) else None


def request_client(request: Request[Any, Any, Any], explicit: str | None) -> str:
    """Zulip's client name of a request: the `client` parameter, else the User-Agent's product;
    the web client's session requests under /json are Zulip's web app, `website`."""
    name = client_name(explicit, request.headers.get("user-agent", ""))
    # zulip-compat: process_client(is_browser_view=True) names every browser request "website"
    # (read_by_sender and every other client rule follow), except Zulip's own desktop apps.
    if request.scope.get(_VIA_JSON) and not name.startswith("Zulip"):
        return "website"
    return name


def check_csrf(sent: str | None, session: WebSessionRow) -> None:
    """Refuse a state change whose CSRF token is not the session's."""
    # zulip-compat: Django's CSRF reasons, in Zulip's CSRF_FAILED envelope.
    if not sent:
        raise CsrfFailedError("CSRF token missing.")
    if not hmac.compare_digest(sent.encode(), session.csrf_token.encode()):
        raise CsrfFailedError("CSRF token incorrect.")


def _session_at_root(request: Request[Any, Any, Any]) -> bool:
    """A browser's request outside /api (uploads, avatars in message HTML) with its session:
    as in Zulip, those routes take the session cookie too."""
    path = str(request.scope.get("path", ""))
    return not path.startswith("/api/") and SESSION_COOKIE in request.cookies


_TAKES: dict[tuple[object, str], bool] = {}


def route_takes(request: Request[Any, Any, Any], name: str) -> bool:
    """Whether the request's route handler takes the dependency `name` ("user", "params")."""
    key = (request.route_handler, name)
    found = _TAKES.get(key)
    if found is None:
        found = _TAKES[key] = name in request.route_handler.parsed_fn_signature.parameters
    return found


async def provide_user(request: Request[Any, Any, Any], rt: Runtime, params: Params) -> UserRow:
    """The authenticated user; then a body that could not be read is the request's error."""
    user = await identify(request, rt, params)
    check_api_access(request, user)
    if params.unreadable is not None:
        raise params.unreadable
    return user


# Integration URLs: the tool knows only the URL, so the bot's key rides in it (api_key).
_WEBHOOK_PREFIX = "/api/v1/external/"


async def identify(request: Request[Any, Any, Any], rt: Runtime, params: Params) -> UserRow:
    """The user the request's credentials name (counted against their API rate limit)."""
    webhook = str(request.scope.get("path", "")).startswith(_WEBHOOK_PREFIX)
    if request.scope.get(_VIA_JSON):
        user = await session_user(request, rt)
    else:
        credentials = basic_credentials(request)
        if credentials is not None:
            user = await authenticate_api_key(rt, *credentials)
        elif webhook:
            if not params.has("api_key"):
                raise RequestVariableMissingError("api_key")
            user = await authenticate_webhook_key(rt, params.values["api_key"])
        elif _session_at_root(request):
            user = await session_user(request, rt)
        else:
            raise UnauthorizedError()
    return user


def check_api_access(request: Request[Any, Any, Any], user: UserRow) -> None:
    """Refuse an incoming webhook bot outside the integration URLs; note the user for the
    access log."""
    webhook = str(request.scope.get("path", "")).startswith(_WEBHOOK_PREFIX)
    if user.bot_type == BotType.INCOMING_WEBHOOK and not webhook:
        # zulip-compat: validate_api_key without allow_webhook_access.
        raise ZulipError("This API is not available to incoming webhook bots.")
    request.scope["state"]["user_id"] = user.id
    request.scope["state"]["user_email"] = user.delivery_email  # for the access log


def provide_runtime(request: Request[Any, Any, Any]) -> Runtime:
    rt: Runtime = request.app.state.rt
    return rt

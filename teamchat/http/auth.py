"""HTTP Basic authentication (`email:api_key`) for the authenticated API routes."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from litestar import Request

from teamchat.actions.people.auth import authenticate_api_key
from teamchat.errors import UnauthorizedError
from teamchat.records import UserRow
from teamchat.runtime import Runtime


def basic_credentials(request: Request[Any, Any, Any]) -> tuple[str, str] | None:
    """(username, password) from an Authorization: Basic header, or None if absent."""
    header = request.headers.get("authorization")
    if not header:
        return None
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic":
        raise UnauthorizedError("This endpoint requires HTTP basic authentication.")
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise UnauthorizedError("Invalid authorization header for basic auth") from None
    username, sep, password = decoded.partition(":")
    if not sep:
        raise UnauthorizedError("Invalid authorization header for basic auth")
    return username, password


async def provide_user(request: Request[Any, Any, Any], rt: Runtime) -> UserRow:
    credentials = basic_credentials(request)
    if credentials is None:
        raise UnauthorizedError()
    user = await authenticate_api_key(rt, *credentials)
    request.scope["state"]["user_id"] = user.id
    request.scope["state"]["user_email"] = user.delivery_email  # for the access log
    return user


def provide_runtime(request: Request[Any, Any, Any]) -> Runtime:
    rt: Runtime = request.app.state.rt
    return rt

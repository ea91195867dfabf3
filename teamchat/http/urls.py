"""Our URL: what links that leave a request's answer start with, and what a request itself
came in on (for decisions about that request only)."""

from __future__ import annotations

from typing import Any

from litestar import Request

from teamchat.runtime import Runtime


def realm_url(request: Request[Any, Any, Any], rt: Runtime) -> str:
    """The server's external URL (configured, or pinned by `serve` at first start). Never the
    request's Host or X-Forwarded-Proto: what we store and send to other people must not
    depend on what a client put in its headers. `request` is unused (kept for the callers)."""
    del request
    return rt.external_url


def request_origin(request: Request[Any, Any, Any]) -> str:
    """scheme://host[:port] this request came in on (its Host, X-Forwarded-Proto). Only for
    decisions about the request itself (a cookie's Secure flag, a same-origin check): never
    store it or put it in anything another person sees."""
    scheme = request.headers.get("x-forwarded-proto") or request.url.scheme
    host = request.headers.get("host") or request.url.netloc
    return f"{scheme}://{host}"

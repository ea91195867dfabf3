"""The organization's URL as the client sees it (scheme, host and port of the request)."""

from __future__ import annotations

from typing import Any

from litestar import Request

from teamchat.runtime import Runtime


def realm_url(request: Request[Any, Any, Any], rt: Runtime) -> str:
    """The configured external URL, else the scheme://host[:port] this request used."""
    if rt.settings.external_url:
        return rt.settings.external_url.rstrip("/")
    scheme = request.headers.get("x-forwarded-proto") or request.url.scheme
    host = request.headers.get("host") or request.url.netloc
    return f"{scheme}://{host}"

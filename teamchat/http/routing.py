"""Route decorators with Zulip's status codes: every success is 200 with a JSON body.

Litestar defaults POST to 201 and DELETE to 204 (no body); these wrappers pin 200.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import litestar

Decorator = Callable[[Callable[..., Any]], Any]


def get(path: str | list[str], **kwargs: Any) -> Decorator:
    return litestar.get(path, status_code=200, **kwargs)


def post(path: str | list[str], **kwargs: Any) -> Decorator:
    return litestar.post(path, status_code=200, **kwargs)


def patch(path: str | list[str], **kwargs: Any) -> Decorator:
    return litestar.patch(path, status_code=200, **kwargs)


def delete(path: str, **kwargs: Any) -> Decorator:
    return litestar.delete(path, status_code=200, **kwargs)


def put(path: str, **kwargs: Any) -> Decorator:
    return litestar.put(path, status_code=200, **kwargs)


def public(handler: Any) -> Any:
    """Mark a handler as needing no credentials (server_settings, fetch_api_key)."""
    handler.opt["public"] = True
    return handler

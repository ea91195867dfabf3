"""HTTP layer: one module per API area; each handler is a thin parse-and-delegate function.

Every route handler defined at module level in a `teamchat.http.*` module is served under
/api/v1 (see `api_handlers`); handlers for other roots are listed in a module's ROOT_ROUTES.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from litestar.handlers import HTTPRouteHandler

# Helper modules that hold no routes.
_NOT_ROUTES = {"params", "auth", "routing", "urls", "html"}


def _area_modules() -> list[Any]:
    names = sorted(info.name for info in pkgutil.iter_modules(__path__))
    return [
        importlib.import_module(f"{__name__}.{name}") for name in names if name not in _NOT_ROUTES
    ]


def api_handlers() -> list[HTTPRouteHandler]:
    """Every route handler under /api/v1, in module order."""
    handlers: list[HTTPRouteHandler] = []
    for module in _area_modules():
        root = set(map(id, getattr(module, "ROOT_ROUTES", [])))
        for value in vars(module).values():
            if isinstance(value, HTTPRouteHandler) and id(value) not in root:
                handlers.append(value)
    return handlers


def root_handlers() -> list[HTTPRouteHandler]:
    """Handlers served at the site root (avatars, uploads, sign-up pages)."""
    return [handler for module in _area_modules() for handler in getattr(module, "ROOT_ROUTES", [])]

"""HTTP layer: one module per API area; each handler is a thin parse-and-delegate function.

Every route handler defined at module level in a `teamchat.http.*` module is served under
/api/v1 (see `api_handlers`); handlers for other roots are listed in a module's ROOT_ROUTES.

The server registers an area's routes on the first request that could reach them
(http/areas.py): paths are grouped by their first segment (after /api/v1), and
`route_groups` says which modules serve each group; http/route_index.py keeps that answer,
so that the server's start imports none of the areas.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from litestar.handlers import HTTPRouteHandler

# Helper modules that hold no routes.
_NOT_ROUTES = {"params", "auth", "routing", "urls", "html", "areas", "route_index"}
API_PREFIX = "/api/v1"


def _area_modules() -> list[Any]:
    names = sorted(info.name for info in pkgutil.iter_modules(__path__))
    return [
        importlib.import_module(f"{__name__}.{name}") for name in names if name not in _NOT_ROUTES
    ]


def _module_handlers(module: Any) -> list[tuple[HTTPRouteHandler, bool]]:
    """(handler, served at the site root) for each route handler of an area module."""
    root = set(map(id, getattr(module, "ROOT_ROUTES", [])))
    return [
        (value, id(value) in root)
        for value in vars(module).values()
        if isinstance(value, HTTPRouteHandler)
    ]


def api_handlers() -> list[HTTPRouteHandler]:
    """Every route handler under /api/v1, in module order."""
    return [h for module in _area_modules() for h, root in _module_handlers(module) if not root]


def root_handlers() -> list[HTTPRouteHandler]:
    """Handlers served at the site root (avatars, uploads, sign-up pages)."""
    return [handler for module in _area_modules() for handler in getattr(module, "ROOT_ROUTES", [])]


def route_key(path: str) -> str:
    """The group a request path (or a route's path) falls in: its first segment, after /api/v1
    for the API. Routes of different keys never share a node of the framework's route tree,
    so registering one key's routes cannot change how a path of another key is routed."""
    segments = [segment for segment in path.split("/") if segment]
    if segments[:2] == ["api", "v1"] and len(segments) > 2:
        return f"{API_PREFIX}/{segments[2]}"
    return "/" + segments[0] if segments else "/"


def full_paths(handler: HTTPRouteHandler, root: bool) -> list[str]:
    return sorted(path if root else API_PREFIX + path for path in handler.paths)


def route_groups() -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(route keys, area module names) of each group of routes registered together: a key
    with every module that serves a path of it, joined with the keys of any handler that has
    paths under several keys (each handler is registered once)."""
    groups: list[tuple[set[str], set[str]]] = []
    for module in _area_modules():
        name = module.__name__.rsplit(".", 1)[1]
        for handler, root in _module_handlers(module):
            keys = {route_key(path) for path in full_paths(handler, root)}
            joined = [group for group in groups if group[0] & keys]
            for group in joined:
                groups.remove(group)
                keys |= group[0]
            modules = {name}.union(*(group[1] for group in joined))
            groups.append((keys, modules))
    return sorted((tuple(sorted(keys)), tuple(sorted(mods))) for keys, mods in groups)


def group_handlers(
    modules: tuple[str, ...], keys: tuple[str, ...]
) -> tuple[list[HTTPRouteHandler], list[HTTPRouteHandler]]:
    """The handlers of one group, as the framework registers them: API handlers in a router
    at /api/v1, the others at the root."""
    api: list[HTTPRouteHandler] = []
    root_level: list[HTTPRouteHandler] = []
    for name in modules:
        module = importlib.import_module(f"{__name__}.{name}")
        for handler, root in _module_handlers(module):
            if route_key(full_paths(handler, root)[0]) in keys:
                (root_level if root else api).append(handler)
    return api, root_level

"""Each API area's routes are registered on the first request that could reach them.

Building a route (the framework's signature and parameter models) costs about 2 ms, and
importing an area's handlers brings its actions with it: at start, with some 170 routes,
that was a third of the time to the first answer and much of the idle memory. The route
index (http/route_index.py, written from the handlers by `python scripts/route_index.py`
and checked by tests/test_routes.py) says which area modules serve each group of paths,
without importing them. Before the framework routes a request, `AreaRoutes.ensure`
registers the routes of the request path's group, if that has not happened yet; every path
of a group is registered at once, with every method, so 404 and 405 answers (and the 405's
Allow header) are what they would be with all routes registered.
"""

from __future__ import annotations

from typing import Any

from litestar import Router

from teamchat.http import group_handlers, route_key
from teamchat.http.route_index import ROUTE_GROUPS


class AreaRoutes:
    """The route groups of one app not registered yet."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.pending: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
            key: (keys, modules) for keys, modules in ROUTE_GROUPS for key in keys
        }

    def ensure(self, path: str) -> None:
        """Register the routes of `path`'s group, unless they are registered."""
        if self.pending:
            group = self.pending.get(route_key(path))
            if group is not None:
                self.register(*group)

    def ensure_all(self) -> None:
        while self.pending:
            self.register(*next(iter(self.pending.values())))

    def register(self, keys: tuple[str, ...], modules: tuple[str, ...]) -> None:
        for key in keys:
            del self.pending[key]
        api, root = group_handlers(modules, keys)
        if api:
            self.app.register(Router(path="/api/v1", route_handlers=api))
        if root:
            self.app.register(Router(path="/", route_handlers=root))

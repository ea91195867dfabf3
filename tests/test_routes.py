"""Every API route is authenticated unless it is explicitly public."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import pytest

from teamchat import http

API_HANDLERS = http.api_handlers()

TESTS = Path(__file__).resolve().parent

PUBLIC = {"/server_settings", "/fetch_api_key", "/dev_fetch_api_key", "/dev_list_users"}


def test_every_non_public_route_requires_a_user() -> None:
    for handler in API_HANDLERS:
        params = inspect.signature(handler.fn).parameters
        paths = set(handler.paths)
        if handler.opt.get("public"):
            assert paths <= PUBLIC, paths
        else:
            assert "user" in params, f"{paths} does not authenticate"


def _route_regex(path: str) -> re.Pattern[str]:
    parts = [re.escape(part) for part in re.split(r"\{[^}]+\}", path)]
    return re.compile(r"[\"'/]" + r"[^\"'\s]+".join(parts).lstrip("/") + r"[\"'?/]?")


def test_every_route_has_an_end_to_end_test() -> None:
    """Each route path appears in some test module (STYLE.md 5: every endpoint has an e2e test)."""
    sources = "\n".join(path.read_text() for path in TESTS.rglob("test_*.py"))
    untested = []
    for handler in [*API_HANDLERS, *http.root_handlers()]:
        for path in handler.paths:
            prefix = path.split("{")[0]
            dynamic = "{" in path and prefix.count("/") > 1 and f'"{prefix}' in sources
            if not dynamic and not _route_regex(path).search(sources):
                untested.append(path)
    assert not untested, f"routes without an end-to-end test: {sorted(set(untested))}"


def test_the_route_index_is_current() -> None:
    """http/route_index.py says which modules serve each group of paths, so that the server
    can start without importing them: after changing a route, `python scripts/route_index.py`."""
    from teamchat.http.route_index import ROUTE_GROUPS

    assert list(ROUTE_GROUPS) == http.route_groups(), "run: python scripts/route_index.py"


def test_the_lean_table_names_each_handler_at_its_path() -> None:
    from teamchat.http.lean import LEAN_ROUTES

    for route in LEAN_ROUTES:
        [path] = route.handler.paths
        assert route.pattern.match(http.API_PREFIX + re.sub(r"\{\w+:int\}", "7", path))
        assert route.method in route.handler.http_methods


def _sample_paths() -> list[str]:
    """Every route's path with its parameters filled in, and near misses around them."""
    paths = {"/", "/api/v1", "/api/v1/", "/api/v1//users/me", "/json/users/me", "/nowhere"}
    for handler in API_HANDLERS:
        for path in handler.paths:
            for value in ("7", "me", "x.png"):
                filled = http.API_PREFIX + re.sub(r"\{[^}]+\}", value, path)
                paths |= {filled, filled + "/", filled + "/extra", filled.rsplit("/", 1)[0]}
    for handler in http.root_handlers():
        for path in handler.paths:
            paths.add(re.sub(r"\{[^}]+\}", "7", path))
    return sorted(paths)


def _routing(app: Any, path: str, method: str) -> tuple[Any, ...]:
    from litestar.exceptions import HTTPException
    from litestar.utils import normalize_path

    try:
        _asgi, handler, _path, params, template = app.asgi_router.handle_routing(
            path=normalize_path(path), method=method
        )
    except HTTPException as error:
        allowed = (error.headers or {}).get("allow", "")
        return type(error).__name__, sorted(m.strip() for m in allowed.split(","))
    return handler.handler_name, params, template


# Litestar warns, as at every start, that it infers the `rt` dependency of some handlers.
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_routes_registered_on_first_use_route_as_all_routes_do(tmp_path: Path) -> None:
    """The server registers each group of routes on the first request that could reach it
    (http/areas.py): every path then routes (handler, parameters, 404, 405 and its Allow
    header) exactly as with every route registered from the start."""
    from litestar import Router

    from teamchat.app import create_app
    from teamchat.config import Settings

    settings = Settings.from_env(tmp_path / "teamchat.db")
    everything = create_app(settings)  # every route, registered from the handlers at once
    everything.register(Router(path=http.API_PREFIX, route_handlers=API_HANDLERS))
    everything.register(Router(path="/", route_handlers=http.root_handlers()))
    by_key: dict[str, Any] = {}
    for path in _sample_paths():
        rewritten = path.replace("/json/", "/api/v1/", 1) if path.startswith("/json/") else path
        key = http.route_key(rewritten)
        if key not in by_key:
            by_key[key] = create_app(settings)
            by_key[key].areas.ensure(rewritten)
        for method in ("GET", "POST", "PATCH", "PUT", "DELETE", "OPTIONS", "HEAD"):
            expected = _routing(everything, rewritten, method)
            assert _routing(by_key[key], rewritten, method) == expected, (method, path)

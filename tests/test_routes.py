"""Every API route is authenticated unless it is explicitly public."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from teamchat.app import API_HANDLERS

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
    from teamchat import http

    sources = "\n".join(path.read_text() for path in TESTS.rglob("test_*.py"))
    untested = []
    for handler in [*API_HANDLERS, *http.root_handlers()]:
        for path in handler.paths:
            prefix = path.split("{")[0]
            dynamic = "{" in path and prefix.count("/") > 1 and f'"{prefix}' in sources
            if not dynamic and not _route_regex(path).search(sources):
                untested.append(path)
    assert not untested, f"routes without an end-to-end test: {sorted(set(untested))}"

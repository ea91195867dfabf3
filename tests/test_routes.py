"""Every API route is authenticated unless it is explicitly public."""

from __future__ import annotations

import inspect

from teamchat.app import API_HANDLERS

PUBLIC = {"/server_settings", "/fetch_api_key"}


def test_every_non_public_route_requires_a_user() -> None:
    for handler in API_HANDLERS:
        params = inspect.signature(handler.fn).parameters
        paths = set(handler.paths)
        if handler.opt.get("public"):
            assert paths <= PUBLIC, paths
        else:
            assert "user" in params, f"{paths} does not authenticate"

"""Fixtures for the client tests: the mobile app's world of data on the session server."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.api import Api
from tests.support.mobile import World, build_world


@pytest.fixture(scope="module")
def mobile_world(owner: Api, make_user: Any) -> World:
    """Fresh per module: the action tests change what the snapshot tests check."""
    return build_world(owner, make_user)

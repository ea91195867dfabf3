"""POST /register fills every key it is asked for, whichever API areas a process has served
before (areas are imported on their first request): its fetchers are listed in one place."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.api import Api

PACKAGE = Path(__file__).resolve().parents[1] / "teamchat"


def test_every_module_with_a_fetcher_is_listed() -> None:
    from teamchat.actions.state import FETCHER_MODULES

    found = {
        "teamchat." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        for path in PACKAGE.rglob("*.py")
        if re.search(r"^@state_fetcher\(", path.read_text(), re.MULTILINE)
    }
    assert found == set(FETCHER_MODULES)
    assert len(FETCHER_MODULES) == len(set(FETCHER_MODULES))


def test_a_register_first_thing_after_start_gets_every_key(start_server) -> None:  # type: ignore[no-untyped-def]
    proc = start_server()
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        state = owner.ok("POST", "/register", fetch_event_types=["user_settings"])
        assert "enter_sends" in state["user_settings"]
        everything = owner.ok("POST", "/register")
    for key in ("user_settings", "realm_user_groups", "realm_linkifiers", "drafts",
                "saved_snippets", "navigation_views", "realm_incoming_webhook_bots",
                "onboarding_steps", "subscriptions", "unread_msgs", "presences"):  # fmt: skip
        assert key in everything, key

"""The state a client builds from events equals a fresh register state (STYLE.md 4)."""

from __future__ import annotations

import httpx

from tests.conftest import unique_email
from tests.support.api import Api, assert_success
from tests.support.server import ServerProcess
from tests.support.state import verify_action

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


def test_creating_a_user(owner: Api) -> None:
    events = verify_action(
        owner,
        lambda: owner.ok(
            "POST", "/users", email=unique_email(), password="pw-123456", full_name="Evented"
        ),
    )
    # The new member also joins role:fullmembers and role:members (user_group/add_members),
    # and the default channels the owner is subscribed to (subscription/peer_add).
    types = [e["type"] for e in events]
    assert types[:3] == ["realm_user", "user_group", "user_group"]
    assert set(types[3:]) == {"subscription"}
    assert {e["op"] for e in events[3:]} == {"peer_add"}


def test_changing_an_avatar(server: ServerProcess, make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user()

    def upload() -> None:
        assert_success(user.http.post("/users/me/avatar", files={"f": ("a.png", PNG, "image/png")}))

    verify_action(user, upload)
    verify_action(user, lambda: user.ok("DELETE", "/users/me/avatar"))
    assert httpx.get(f"{server.url}/avatar/{user.user_id}").status_code == 401

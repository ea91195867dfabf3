"""Default channels: POST/GET/DELETE /default_streams, events and register state."""

from __future__ import annotations

import time
from collections.abc import Callable

from tests.support.api import Api, assert_error
from tests.support.channels import default_stream_ids
from tests.support.org import Watcher, user_with_role
from tests.support.server import ServerProcess
from tests.test_events import check_event_schema


def make_channel(api: Api, name: str, **options: object) -> int:
    api.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": name}], **options)
    return int(api.ok("GET", "/get_stream_id", stream=name)["stream_id"])


def test_admins_manage_default_channels(
    owner: Api, make_user: Callable[..., Api], server: ServerProcess
) -> None:
    member = make_user()
    guest = user_with_role(server, "guest")
    channel = make_channel(owner, f"welcome {time.time()}")
    watcher = Watcher(member, ["default_streams"])
    guest_watcher = Watcher(guest, ["default_streams"])
    body = owner.ok("POST", "/default_streams", stream_id=channel, bogus=1)
    assert body["ignored_parameters_unsupported"] == ["bogus"]
    assert channel in default_stream_ids(member)
    owner.ok("DELETE", "/default_streams", stream_id=channel)
    events = watcher.events()
    assert [channel in e["default_streams"] for e in events] == [True, False]
    for event in events:
        check_event_schema(event)
    watcher.check(events, ["realm_default_streams"])
    # Guests see no default channels and get no events.
    assert guest_watcher.state["realm_default_streams"] == []
    assert guest_watcher.events() == []
    assert default_stream_ids(guest) == []


def test_default_channel_errors(owner: Api, make_user: Callable[..., Api]) -> None:
    private = make_channel(owner, f"private {time.time()}", invite_only=True)
    assert_error(
        owner.post("/default_streams", stream_id=private),
        "Private channels cannot be made default.",
    )
    assert_error(owner.post("/default_streams", stream_id=999999), "Invalid channel ID")
    assert_error(owner.delete("/default_streams", stream_id=999999), "Invalid channel ID")
    assert_error(
        owner.post("/default_streams"), "Missing 'stream_id' argument", "REQUEST_VARIABLE_MISSING"
    )
    public = make_channel(owner, f"public {time.time()}")
    member = make_user()
    for response in (
        member.post("/default_streams", stream_id=public),
        member.delete("/default_streams", stream_id=public),
    ):
        assert_error(response, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL")

"""Invitations and channels: who signs up through an invitation joins the organization's
default channels when the invitation says so (include_realm_default_subscriptions) and the
channels it names, and everyone who can see those channels hears of it (peer_add), as Zulip
sends it."""

from __future__ import annotations

import re
import time

import pytest

from tests.support import rawdb, web
from tests.support.api import Api
from tests.support.channels import default_stream_ids
from tests.support.org import Watcher, user_with_role
from tests.support.server import ServerProcess
from tests.test_events import check_event_schema


@pytest.fixture(scope="module")
def admin(server: ServerProcess) -> Api:
    return user_with_role(server, "admin")


def channel(api: Api, name: str) -> int:
    api.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": name}])
    return int(api.ok("GET", "/get_stream_id", stream=name)["stream_id"])


def sign_up(server: ServerProcess, link: str, email: str) -> Api:
    page = web.join(link, email=email, full_name="Invited Person", password="a-good-pass")
    key = re.search(r'<code id="api_key">([^<]+)</code>', page.text)
    assert key, page.text
    return Api(server.url, email, key.group(1))


def subscribed_ids(api: Api) -> set[int]:
    subs = api.ok("GET", "/users/me/subscriptions")["subscriptions"]
    return {int(s["stream_id"]) for s in subs}


def peer_adds(events: list[dict[str, object]]) -> list[tuple[list[int], list[int]]]:
    return [
        (sorted(e["stream_ids"]), sorted(e["user_ids"]))  # type: ignore[type-var]
        for e in events
        if e["type"] == "subscription" and e["op"] == "peer_add"
    ]


def test_a_link_with_default_channels_subscribes_and_tells_the_subscribers(
    server: ServerProcess, admin: Api, owner: Api
) -> None:
    stamp = time.time_ns()
    default = channel(admin, f"default {stamp}")
    extra = channel(admin, f"extra {stamp}")
    other = channel(admin, f"other {stamp}")
    admin.ok("POST", "/default_streams", stream_id=default)
    try:
        watcher = Watcher(admin, ["subscription", "realm_user"])
        link = admin.ok(
            "POST",
            "/invites/multiuse",
            stream_ids=[extra],
            include_realm_default_subscriptions=True,
        )["invite_link"]
        email = f"defaults{stamp}@example.com"
        with sign_up(server, link, email) as newcomer:
            mine = subscribed_ids(newcomer)
            new_id = int(newcomer.ok("GET", "/users/me")["user_id"])
            realm_defaults = set(default_stream_ids(owner))
        assert mine == realm_defaults | {extra}
        assert other not in mine
        events = watcher.events()
        for event in events:
            check_event_schema(event)
        # The person exists (realm_user add) before anyone hears they joined a channel.
        kinds = [(e["type"], e["op"]) for e in events]
        assert kinds.index(("realm_user", "add")) < kinds.index(("subscription", "peer_add"))
        heard = peer_adds(events)
        assert ([default], [new_id]) in heard and ([extra], [new_id]) in heard
        assert all(other not in ids for ids, _ in heard)
        watcher.check(events, ["subscriptions"])
    finally:
        admin.ok("DELETE", "/default_streams", stream_id=default)


def test_an_email_invitation_without_defaults_joins_only_its_channels(
    server: ServerProcess, admin: Api
) -> None:
    stamp = time.time_ns()
    default = channel(admin, f"skipped default {stamp}")
    chosen = channel(admin, f"chosen {stamp}")
    admin.ok("POST", "/default_streams", stream_id=default)
    try:
        watcher = Watcher(admin, ["subscription"])
        email = f"mailed{stamp}@example.com"
        admin.ok(
            "POST",
            "/invites",
            invitee_emails=email,
            stream_ids=[chosen],
            include_realm_default_subscriptions=False,
        )
        key = rawdb.value(server.db, "SELECT key FROM invitation WHERE email = ?", (email,))
        with sign_up(server, f"{server.url}/join/{key}/", email) as newcomer:
            assert subscribed_ids(newcomer) == {chosen}
            new_id = int(newcomer.ok("GET", "/users/me")["user_id"])
        assert peer_adds(watcher.events()) == [([chosen], [new_id])]
    finally:
        admin.ok("DELETE", "/default_streams", stream_id=default)


def test_an_email_invitation_with_defaults_joins_them(server: ServerProcess, admin: Api) -> None:
    stamp = time.time_ns()
    default = channel(admin, f"mailed default {stamp}")
    admin.ok("POST", "/default_streams", stream_id=default)
    try:
        email = f"withdefaults{stamp}@example.com"
        admin.ok(
            "POST",
            "/invites",
            invitee_emails=email,
            stream_ids=[],
            include_realm_default_subscriptions=True,
        )
        key = rawdb.value(server.db, "SELECT key FROM invitation WHERE email = ?", (email,))
        # A channel made default after the invitation was sent counts too: the defaults are
        # read when the person signs up.
        later = channel(admin, f"later default {stamp}")
        admin.ok("POST", "/default_streams", stream_id=later)
        with sign_up(server, f"{server.url}/join/{key}/", email) as newcomer:
            assert {default, later} <= subscribed_ids(newcomer)
        admin.ok("DELETE", "/default_streams", stream_id=later)
    finally:
        admin.ok("DELETE", "/default_streams", stream_id=default)


def test_the_default_is_no_default_channels_as_in_zulip(server: ServerProcess, admin: Api) -> None:
    stamp = time.time_ns()
    default = channel(admin, f"api default {stamp}")
    admin.ok("POST", "/default_streams", stream_id=default)
    try:
        link = admin.ok("POST", "/invites/multiuse")["invite_link"]
        with sign_up(server, link, f"plain{stamp}@example.com") as newcomer:
            assert default not in subscribed_ids(newcomer)
    finally:
        admin.ok("DELETE", "/default_streams", stream_id=default)


def test_a_new_account_finds_its_channels_recent_history(server: ServerProcess, admin: Api) -> None:
    """As Zulip's add_new_user_history: the recent messages of the channels a new account
    joins are in its feed, read but for the newest 20; a channel whose history subscribers may
    not read gives it nothing."""
    stamp = time.time_ns()
    public = channel(admin, f"history {stamp}")
    shared = f"shared history {stamp}"
    hidden = f"hidden history {stamp}"
    admin.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": shared}],
             invite_only=True, history_public_to_subscribers=True)  # fmt: skip
    admin.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": hidden}],
             invite_only=True, history_public_to_subscribers=False)  # fmt: skip
    ids = {name: int(admin.ok("GET", "/get_stream_id", stream=name)["stream_id"])
           for name in (shared, hidden)}  # fmt: skip
    sent = [
        admin.ok("POST", "/messages", type="stream", to=public, topic="t", content=f"m{n}")["id"]
        for n in range(25)
    ]
    shared_id = admin.ok("POST", "/messages", type="stream", to=ids[shared], topic="t",
                         content="shared")["id"]  # fmt: skip
    admin.ok("POST", "/messages", type="stream", to=ids[hidden], topic="t", content="hidden")
    email = f"history{stamp}@example.com"
    admin.ok("POST", "/invites", invitee_emails=email, stream_ids=[public, *ids.values()],
             include_realm_default_subscriptions=False)  # fmt: skip
    key = rawdb.value(server.db, "SELECT key FROM invitation WHERE email = ?", (email,))
    with sign_up(server, f"{server.url}/join/{key}/", email) as newcomer:

        def history(stream_id: int) -> list[dict[str, object]]:
            narrow = [{"operator": "channel", "operand": stream_id}]
            return newcomer.ok(
                "GET", "/messages", anchor="newest", num_before=100, num_after=0, narrow=narrow
            )["messages"]

        # Both readable channels (with the notices of their creation), oldest first.
        got = sorted([*history(public), *history(ids[shared])], key=lambda m: m["id"])
        assert [m["id"] for m in got][-26:] == [*sent, shared_id]
        unread_ids = [m["id"] for m in got if "read" not in m["flags"]]  # type: ignore[operator]
        assert unread_ids == [m["id"] for m in got][-20:]
        assert not any("historical" in m["flags"] for m in got)  # type: ignore[operator]
        unread = newcomer.ok("POST", "/register")["unread_msgs"]
        in_channels = sorted(i for s in unread["streams"] for i in s["unread_message_ids"])
        assert in_channels == unread_ids
        hidden_view = newcomer.ok("GET", "/messages", anchor="newest", num_before=10,
                                  num_after=0, narrow=[{"operator": "channel",
                                                        "operand": ids[hidden]}])  # fmt: skip
        assert hidden_view["messages"] == []

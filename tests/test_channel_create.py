"""POST /channels/create: one channel, its settings and first subscribers, in one request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.support.api import Api, assert_error
from tests.support.channels import Queue, default_stream_ids, unique_name
from tests.support.people import verify

MakeUser = Callable[..., Api]


def _create(api: Api, **params: Any) -> Any:
    return api.post("/channels/create", **params)


def test_create_channel_with_subscribers(owner: Api, make_user: MakeUser) -> None:
    alice, bob = make_user("Alice Creates"), make_user("Bob Joins")
    name = unique_name("Created")
    bob_queue = Queue(bob, event_types=["stream", "subscription"])
    result: list[Any] = []
    events = verify(
        alice,
        lambda: result.append(
            alice.ok(
                "POST",
                "/channels/create",
                name=f"  {name} ",
                description="All about **this**",
                subscribers=[alice.user_id, bob.user_id],  # type: ignore[attr-defined]
                invite_only="true",
                history_public_to_subscribers="true",
                extra="x",
            )
        ),
    )
    channel_id = result[0]["id"]
    assert result[0]["ignored_parameters_unsupported"] == ["extra"]
    assert {(e["type"], e.get("op")) for e in events} >= {
        ("stream", "create"),
        ("subscription", "add"),
    }
    stream = alice.ok("GET", f"/streams/{channel_id}")["stream"]
    assert (stream["name"], stream["invite_only"], stream["history_public_to_subscribers"]) == (
        name, True, True,
    )  # fmt: skip
    assert stream["rendered_description"] == "<p>All about <strong>this</strong></p>"
    members = alice.ok("GET", f"/streams/{channel_id}/members")["subscribers"]
    assert sorted(members) == sorted([alice.user_id, bob.user_id])  # type: ignore[attr-defined]
    bob_events = bob_queue.events()
    assert any(e["type"] == "subscription" and e["op"] == "add" for e in bob_events)
    # The channel exists now: Zulip's 409 with the name.
    refused = assert_error(
        _create(alice, name=name.upper(), subscribers=[]),
        f"Channel '{name}' already exists",
        "CHANNEL_ALREADY_EXISTS",
        status=409,
    )
    assert refused["channel_name"] == name


def test_create_default_channel_and_checks(owner: Api, make_user: MakeUser) -> None:
    member = make_user("Member Creates")
    name = unique_name("Default")
    events = verify(
        owner,
        lambda: owner.ok(
            "POST", "/channels/create", name=name, subscribers=[], is_default_stream="true"
        ),
    )
    assert any(e["type"] == "default_streams" for e in events)
    channel_id = owner.ok("GET", "/get_stream_id", stream=name)["stream_id"]
    assert channel_id in default_stream_ids(owner)
    assert owner.ok("GET", f"/streams/{channel_id}/members")["subscribers"] == []
    admin_only = "Must be an organization administrator"
    assert_error(
        _create(member, name=unique_name("NotDefault"), subscribers=[], is_default_stream="true"),
        admin_only,
        "UNAUTHORIZED_PRINCIPAL",
    )
    assert_error(
        _create(owner, name=unique_name("PrivDef"), subscribers=[], invite_only="true",
                is_default_stream="true"),
        "Private channels cannot be made default.",
    )  # fmt: skip
    assert_error(
        _create(member, name=unique_name("Missing")),
        "Missing 'subscribers' argument",
        "REQUEST_VARIABLE_MISSING",
    )
    assert_error(_create(member, name=unique_name("Bad"), subscribers=[999999]), "No such user")
    assert_error(_create(member, name="", subscribers=[]), "Channel name can't be empty.")
    assert_error(
        _create(member, name=unique_name("Both"), subscribers=[], invite_only="true",
                is_web_public="true"),
        "Invalid parameters",
    )  # fmt: skip
    # None of the refused requests created anything.
    names = {s["name"] for s in owner.ok("GET", "/streams", include_all=True)["streams"]}
    assert not any(n.startswith(("NotDefault", "PrivDef", "Missing", "Bad", "Both")) for n in names)

"""Subscriber lists follow account changes: deactivation, reactivation and role changes."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.api import Api
from tests.support.channels import stream_id, subscribe, unique_name
from tests.support.people import make_role_user
from tests.support.state import verify_action

MakeUser = Callable[..., Api]
CHANNEL_TYPES = ["subscription", "stream"]


def _ops(events: list[dict], kind: str) -> list[tuple[str, list[int], list[int]]]:  # type: ignore[type-arg]
    return [
        (e["op"], e["stream_ids"], e["user_ids"])
        for e in events
        if e["type"] == "subscription" and e["op"] == kind
    ]


def test_deactivation_and_reactivation_update_subscriber_lists(
    owner: Api, make_user: MakeUser
) -> None:
    alice, carol = make_user("Alice Peers"), make_user("Carol Peers")
    public, private = unique_name("PeersPub"), unique_name("PeersPriv")
    subscribe(alice, public, principals=[alice.user_id, carol.user_id])  # type: ignore[attr-defined]
    subscribe(alice, private, invite_only=True, principals=[alice.user_id, carol.user_id])  # type: ignore[attr-defined]
    ids = sorted([stream_id(alice, public), stream_id(alice, private)])

    events = verify_action(
        alice,
        lambda: owner.ok("DELETE", f"/users/{carol.user_id}"),  # type: ignore[attr-defined]
        include_subscribers=True,
    )
    removed = _ops(events, "peer_remove")
    assert {s for _, stream_ids, _ in removed for s in stream_ids} >= set(ids)
    assert all(users == [carol.user_id] for _, _, users in removed)  # type: ignore[attr-defined]

    events = verify_action(
        alice,
        lambda: owner.ok("POST", f"/users/{carol.user_id}/reactivate"),  # type: ignore[attr-defined]
        include_subscribers=True,
    )
    added = _ops(events, "peer_add")
    assert {s for _, stream_ids, _ in added for s in stream_ids} >= set(ids)
    assert all(users == [carol.user_id] for _, _, users in added)  # type: ignore[attr-defined]


def test_private_channel_peers_are_told_but_outsiders_are_not(
    owner: Api, make_user: MakeUser
) -> None:
    alice, dave, outsider = (
        make_user("Alice Priv Peer"),
        make_user("Dave Priv Peer"),
        make_user("Outsider Priv"),
    )
    private = unique_name("PeersOnly")
    subscribe(alice, private, invite_only=True, principals=[alice.user_id, dave.user_id])  # type: ignore[attr-defined]
    sid = stream_id(alice, private)
    events = verify_action(
        outsider,
        lambda: owner.ok("DELETE", f"/users/{dave.user_id}"),  # type: ignore[attr-defined]
        include_subscribers=True,
    )
    assert not [e for e in events if e["type"] == "subscription" and sid in e["stream_ids"]]


def test_role_changes_send_the_channels_a_user_gains_or_loses(
    owner: Api, make_user: MakeUser
) -> None:
    alice = make_user("Alice Role Peers")
    guest = make_role_user(owner, make_user, 600, "Guest Role Peers")
    public, private = unique_name("RolePub"), unique_name("RolePriv")
    subscribe(alice, public)
    subscribe(alice, private, invite_only=True)
    pub_id, priv_id = stream_id(alice, public), stream_id(alice, private)
    uid = guest.user_id  # type: ignore[attr-defined]
    # The oracle infers include_subscribers from the channels a state lists: give it one.
    subscribe(alice, unique_name("RoleHome"), principals=[alice.user_id, uid])  # type: ignore[attr-defined]

    for role, gained, lost in ((400, pub_id, None), (200, priv_id, None), (600, None, pub_id)):
        events = verify_action(
            guest,
            lambda role=role: owner.ok("PATCH", f"/users/{uid}", role=role),  # type: ignore[misc]
            include_subscribers=True,
            # The oracle cannot recompute the own-permission summaries (can_create_streams...)
            # a role change implies, so compare the channel keys only.
            fetch_event_types=CHANNEL_TYPES,
        )
        created = [s["stream_id"] for e in events if e["type"] == "stream" and e["op"] == "create"
                   for s in e["streams"]]  # fmt: skip
        deleted = [s for e in events if e["type"] == "stream" and e["op"] == "delete"
                   for s in e["stream_ids"]]  # fmt: skip
        if gained is not None:
            assert gained in created
            assert ("peer_add", [gained], [alice.user_id]) in _ops(events, "peer_add")  # type: ignore[attr-defined]
        if lost is not None:
            assert lost in deleted and priv_id in deleted

"""Long-term idle people ("soft deactivation"): their plain channel rows are not written
while they are away, and nothing they (or anyone) see differs from an active twin.

Each test makes two people with the same channels and alert words, marks one idle with
`teamchat admin mark-idle --email`, lets others act (sends, mentions, edits, moves,
deletion, unsubscribing and resubscribing, read receipts), then brings the idle one back
with an ordinary request and compares everything they see with their twin's.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.ops.test_export import check_export
from tests.ops.zulip_import_expectations import FLAG_BITS
from tests.support import rawdb
from tests.support.api import Api, JsonDict
from tests.support.channels import stream_id, subscribe, unique_name
from tests.support.server import ServerProcess, cli

MakeUser = Callable[..., Api]


def _uid(api: Api) -> int:
    return int(api.user_id)  # type: ignore[attr-defined]


def _send(api: Api, channel: str, content: str, topic: str = "idle") -> int:
    return int(api.ok("POST", "/messages", type="stream", to=channel, topic=topic,
                      content=content)["id"])  # fmt: skip


def _rows(server: ServerProcess, user_id: int, since: int) -> set[int]:
    """Message ids of the user's written-out user_message rows from `since` on."""
    rows = rawdb.query(
        server.db,
        "SELECT message_id FROM user_message WHERE user_id = ? AND message_id >= ?",
        (user_id, since),
    )
    return {int(r[0]) for r in rows}


def _view(api: Api, since: int, channels: list[str]) -> dict[str, Any]:
    """What the user sees of messages from `since` on, their own direct messages (from the
    sender and from the notification bot) renamed by their order."""
    dm_only = [{"operator": "is", "operand": "dm"}]
    body = api.ok("GET", "/messages", anchor="oldest", num_before=0, num_after=1000,
                  narrow=dm_only)  # fmt: skip
    dms = {m["id"]: f"dm{n}" for n, m in enumerate(m for m in body["messages"]
                                                   if m["id"] >= since)}  # fmt: skip

    def name(message_id: int) -> int | str:
        return dms.get(message_id, message_id)

    narrows: dict[str, list[JsonDict]] = {
        "all": [],
        "unread": [{"operator": "is", "operand": "unread"}],
        "starred": [{"operator": "is", "operand": "starred"}],
        "mentioned": [{"operator": "is", "operand": "mentioned"}],
        "alerted": [{"operator": "is", "operand": "alerted"}],
        "dm": dm_only,
    }
    for channel in channels:
        narrows[channel] = [{"operator": "channel", "operand": channel}]
    seen: dict[str, Any] = {}
    for label, narrow in narrows.items():
        body = api.ok("GET", "/messages", anchor="oldest", num_before=0, num_after=1000,
                      narrow=narrow)  # fmt: skip
        seen[label] = [(name(m["id"]), sorted(m["flags"])) for m in body["messages"]
                       if m["id"] >= since]  # fmt: skip
    state = api.ok("POST", "/register", fetch_event_types=["update_message_flags", "message"])
    unread = state["unread_msgs"]
    seen["unread streams"] = sorted(
        (s["stream_id"], s["topic"], [i for i in s["unread_message_ids"] if i >= since])
        for s in unread["streams"]
    )
    seen["unread count"] = unread["count"]
    seen["unread mentions"] = sorted(name(i) for i in unread["mentions"] if i >= since)
    seen["unread dms"] = sorted(
        (p["other_user_id"], [name(i) for i in p["unread_message_ids"] if i >= since])
        for p in unread["pms"]
    )
    return seen


def test_idle_member_comes_back_to_exactly_what_an_active_twin_sees(
    server: ServerProcess, owner: Api, make_user: MakeUser
) -> None:
    alice = make_user(full_name="Idle Sender")
    bob = make_user(full_name="Idle Bob")
    dave = make_user(full_name="Active Dave")
    twins = [bob, dave]
    names = ("idle-main", "idle-else", "idle-leave", "idle-later")
    main, elsewhere, leave, later = (unique_name(p) for p in names)
    subscribe(owner, main, leave, principals=[_uid(alice), _uid(bob), _uid(dave)])
    subscribe(owner, elsewhere, later, principals=[_uid(alice)])
    for twin in twins:
        twin.ok("POST", "/users/me/alert_words", alert_words=["pineapple"])
    first = _send(alice, later, "history before they join")
    unread_before = _send(alice, main, "sent before Bob went idle")

    cli(server.db, "admin", "mark-idle", "--email", str(bob.email))

    plain = _send(alice, main, "a plain message")
    plain_ids = [plain] + [_send(alice, main, f"plain {i}", topic="other") for i in range(3)]
    mention = _send(alice, main, f"@**Idle Bob|{_uid(bob)}** @**Active Dave|{_uid(dave)}** hi")
    alert = _send(alice, main, "who wants pineapple")
    wildcard = _send(alice, main, "@**all** meeting")
    edited = _send(alice, main, "to be edited")
    alice.ok("PATCH", f"/messages/{edited}",
             content=f"now @**Idle Bob|{_uid(bob)}** @**Active Dave|{_uid(dave)}**")  # fmt: skip
    moved_out = _send(alice, main, "moving out", topic="mover")
    owner.ok("PATCH", f"/messages/{moved_out}", stream_id=stream_id(owner, elsewhere))
    moved_in = _send(alice, elsewhere, "moving in", topic="incoming")
    owner.ok("PATCH", f"/messages/{moved_in}", stream_id=stream_id(owner, main))
    deleted = _send(alice, main, "deleted soon")
    owner.ok("DELETE", f"/messages/{deleted}")
    # While Bob is away: his plain channel rows are not written; the rest are.
    bob_rows = _rows(server, _uid(bob), first)
    assert plain not in bob_rows
    assert {unread_before, mention, alert, wildcard, edited} <= bob_rows
    assert {plain, unread_before, mention, alert} <= _rows(server, _uid(dave), first)
    # Read receipts count him as not having read (as his twin).
    assert alice.ok("GET", f"/messages/{plain}/read_receipts")["user_ids"] == []
    _send(alice, leave, "before they leave")
    twin_ids = [_uid(bob), _uid(dave)]
    owner.ok("DELETE", "/users/me/subscriptions", subscriptions=[leave], principals=twin_ids)
    away = _send(alice, leave, "while they are away")
    subscribe(owner, leave, principals=twin_ids)
    _send(alice, leave, "after they are back in")
    subscribe(owner, later, principals=twin_ids)
    for twin in twins:
        alice.ok("POST", "/messages", type="private", to=[_uid(twin)], content="a direct message")

    last = _send(alice, later, "after they joined")
    # Subscription changes wrote out his rows so far; he stays idle.
    assert last not in _rows(server, _uid(bob), first)

    # Bob's first request brings him back; then everything he sees is what Dave sees.
    channels = [main, elsewhere, leave, later]
    bob_view = _view(bob, first, channels)
    dave_view = _view(dave, first, channels)
    assert bob_view == dave_view
    ids = [i for i, _ in bob_view["all"]]
    assert plain in ids and moved_in not in ids and moved_out not in ids and away not in ids
    assert [i for i, flags in bob_view["unread"]][:1] == [unread_before]
    assert [i for i, _ in bob_view["mentioned"]] == [mention, wildcard, edited]
    assert [i for i, _ in bob_view["alerted"]] == [alert]
    assert len(_rows(server, _uid(bob), first)) == len(_rows(server, _uid(dave), first))

    # Flags work on the rows written at his return, as on his twin's.
    for twin in twins:
        twin.ok("POST", "/messages/flags", messages=[plain], op="add", flag="starred")
        twin.ok("POST", "/messages/flags", messages=plain_ids, op="add", flag="read")
        twin.ok("POST", "/mark_topic_as_read", stream_id=stream_id(twin, main), topic_name="idle")
    assert alice.ok("GET", f"/messages/{plain}/read_receipts")["user_ids"] == sorted(twin_ids)
    assert _view(bob, first, channels) == _view(dave, first, channels)


def test_idle_member_marks_everything_read_and_comes_back_again(
    server: ServerProcess, owner: Api, make_user: MakeUser
) -> None:
    alice, bob, dave = (make_user(full_name=n) for n in ("Idle A2", "Idle B2", "Active D2"))
    channel = unique_name("idle-all")
    subscribe(owner, channel, principals=[_uid(alice), _uid(bob), _uid(dave)])
    first = _send(alice, channel, "first")
    for twin in (bob, dave):
        twin.ok("POST", "/mark_all_as_read")
    cli(server.db, "admin", "mark-idle", "--email", str(bob.email))
    missed = [_send(alice, channel, f"missed {i}") for i in range(5)]
    assert not set(missed) & _rows(server, _uid(bob), first)
    # Marking everything read as his first act after returning reads what he missed too.
    for twin in (bob, dave):
        twin.ok("POST", "/mark_all_as_read")
    assert set(missed) <= _rows(server, _uid(bob), first)
    for twin in (bob, dave):
        unread = twin.ok("GET", "/messages", anchor="newest", num_before=50, num_after=0,
                         narrow=[{"operator": "is", "operand": "unread"}])  # fmt: skip
        assert [m["id"] for m in unread["messages"] if m["id"] >= first] == []
    # Idle again (the command is idempotent for people already idle), then back again.
    for _ in range(2):
        cli(server.db, "admin", "mark-idle", "--email", str(bob.email))
    again = _send(alice, channel, "after the second absence")
    assert again not in _rows(server, _uid(bob), first)
    body = bob.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0,
                  narrow=[{"operator": "channel", "operand": channel}])  # fmt: skip
    assert [(m["id"], m["flags"]) for m in body["messages"]] == [(again, [])]


def test_deactivating_an_idle_member_writes_their_rows(
    server: ServerProcess, owner: Api, make_user: MakeUser
) -> None:
    alice, bob = (make_user(full_name=n) for n in ("Idle A3", "Idle B3"))
    channel = unique_name("idle-deactivated")
    subscribe(owner, channel, principals=[_uid(alice), _uid(bob)])
    cli(server.db, "admin", "mark-idle", "--email", str(bob.email))
    missed = _send(alice, channel, "missed while idle")
    assert missed not in _rows(server, _uid(bob), missed)
    owner.ok("DELETE", f"/users/{_uid(bob)}")
    assert missed in _rows(server, _uid(bob), missed)
    while_away = _send(alice, channel, "sent while deactivated")
    owner.ok("POST", f"/users/{_uid(bob)}/reactivate")
    body = bob.ok("GET", "/messages", anchor="newest", num_before=5, num_after=0,
                  narrow=[{"operator": "is", "operand": "unread"}])  # fmt: skip
    unread = [m["id"] for m in body["messages"] if m["id"] >= missed]
    assert unread == [missed]
    assert while_away not in _rows(server, _uid(bob), missed)


def test_mark_idle_command_errors(server: ServerProcess) -> None:
    result = cli(server.db, "admin", "mark-idle", "--days", "0", check=False)
    assert result.returncode == 1 and "--days must be at least 1" in result.stderr
    result = cli(server.db, "admin", "mark-idle", "--email", "nobody@example.com", check=False)
    assert result.returncode == 1 and "No user with email" in result.stderr
    # Everyone here joined today: nobody has been away for ten years.
    assert "0 people made idle" in cli(server.db, "admin", "mark-idle", "--days", "3650").stdout


def test_export_holds_the_rows_of_idle_members(
    server: ServerProcess, owner: Api, make_user: MakeUser, tmp_path: Path
) -> None:
    alice, bob, dave = (make_user(full_name=n) for n in ("Idle A4", "Idle B4", "Active D4"))
    channel = unique_name("idle-export")
    subscribe(owner, channel, principals=[_uid(alice), _uid(bob), _uid(dave)])
    cli(server.db, "admin", "mark-idle", "--email", str(bob.email))
    plain = _send(alice, channel, "exported while Bob is away")
    mention = _send(alice, channel, f"@**Idle B4|{_uid(bob)}** and @**Active D4|{_uid(dave)}**")
    assert plain not in _rows(server, _uid(bob), plain)
    cli(server.db, "export", str(tmp_path / "out"))
    _, _, user_messages = check_export(tmp_path / "out")
    flags = {(um["user_profile"], um["message"]): um["flags_mask"] for um in user_messages}
    for twin in (bob, dave):
        assert flags[(_uid(twin), plain)] == 0
        assert flags[(_uid(twin), mention)] == FLAG_BITS["mentioned"]
    assert plain not in _rows(server, _uid(bob), plain)  # the export only reads


def _people(proc: ServerProcess, owner: Api, names: tuple[str, ...]) -> list[Api]:
    """Members of a server of the test's own, logged in."""
    people = []
    for name in names:
        email = f"{name.replace(' ', '').lower()}@example.com"
        owner.ok("POST", "/users", email=email, password="pw-123456-long", full_name=name)
        with Api(proc.url) as anonymous:
            body = anonymous.ok("POST", "/fetch_api_key", username=email, password="pw-123456-long")
        api = Api(proc.url, email, body["api_key"])
        api.user_id = body["user_id"]  # type: ignore[attr-defined]
        people.append(api)
    return people


def test_people_away_for_days_become_idle_once(start_server: Callable[..., ServerProcess]) -> None:
    # Only the command marks people idle here: the server's own hourly marking (its first
    # round a second after the start) would race it.
    proc = start_server({"TEAMCHAT_IDLE_AFTER_DAYS": "0"})
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        alice, bob = people = _people(proc, owner, ("Days A", "Days B"))
        channel = unique_name("idle-days")
        subscribe(owner, channel, principals=[_uid(p) for p in people])
        # Bob joined long ago and never showed presence; everyone else joined today.
        rawdb.query(proc.db, "UPDATE users SET date_joined = 0 WHERE id = ?", (_uid(bob),))
        assert "1 people made idle" in cli(proc.db, "admin", "mark-idle", "--days", "30").stdout
        missed = _send(alice, channel, "while Bob is away")
        assert missed not in _rows(proc, _uid(bob), missed)
        body = bob.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0,
                      narrow=[{"operator": "is", "operand": "unread"}])  # fmt: skip
        assert [m["id"] for m in body["messages"]] == [missed]
        # Back now (by the API, still without presence): not made idle again right away.
        assert "0 people made idle" in cli(proc.db, "admin", "mark-idle", "--days", "30").stdout
        assert _send(alice, channel, "Bob is back") in _rows(proc, _uid(bob), missed)
        for api in people:
            api.close()


def test_a_long_absence_is_written_out_in_steps(start_server: Callable[..., ServerProcess]) -> None:
    proc = start_server({"TEAMCHAT_IDLE_CATCH_UP_STEP": "2"})
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        people = _people(proc, owner, ("Step A", "Step B", "Step D"))
        alice, bob, dave = people
        channel = unique_name("idle-steps")
        subscribe(owner, channel, principals=[_uid(p) for p in people])
        first = _send(alice, channel, "before")
        cli(proc.db, "admin", "mark-idle", "--email", str(bob.email))
        missed = [_send(alice, channel, f"missed {i}", topic=f"t{i % 3}") for i in range(9)]
        assert not set(missed) & _rows(proc, _uid(bob), first)
        assert _view(bob, first, [channel]) == _view(dave, first, [channel])
        assert set(missed) <= _rows(proc, _uid(bob), first)
        for api in people:
            api.close()

"""Channel folders end to end: create, list, rename/describe/archive, reorder, events."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from tests.support import rawdb
from tests.support.api import Api, assert_error
from tests.support.org import Watcher
from tests.test_events import check_event_schema

_names = itertools.count(1)
KEYS = ["channel_folders"]


def folder_name() -> str:
    return f"Folder {next(_names)}"


def test_admin_creates_folders_and_members_see_them(
    owner: Api, make_user: Callable[..., Api]
) -> None:
    member = make_user()
    watcher = Watcher(member, ["channel_folder", "channel_folders"])
    name = folder_name()
    body = owner.ok(
        "POST", "/channel_folders/create", name=name, description="**Work** stuff", bogus=1
    )
    assert body["ignored_parameters_unsupported"] == ["bogus"]
    folder_id = body["channel_folder_id"]
    second = owner.ok("POST", "/channel_folders/create", name=folder_name(), description="")
    events = watcher.events()
    assert [e["op"] for e in events] == ["add", "add"]
    for event in events:
        check_event_schema(event)
    folder = events[0]["channel_folder"]
    assert folder["name"] == name and folder["id"] == folder_id
    assert folder["rendered_description"] == "<p><strong>Work</strong> stuff</p>"
    assert events[1]["channel_folder"]["rendered_description"] == ""
    assert events[1]["channel_folder"]["order"] == folder["order"] + 1
    assert (
        folder["is_archived"] is False
        and folder["creator_id"] == owner.ok("GET", "/users/me")["user_id"]
    )
    watcher.check(events, KEYS)
    listed = member.ok("GET", "/channel_folders")["channel_folders"]
    assert [f["id"] for f in listed][-2:] == [folder_id, second["channel_folder_id"]]


@pytest.mark.parametrize(
    ("params", "message", "code"),
    [
        ({"name": "  ", "description": ""}, "Channel folder name can't be empty.", "BAD_REQUEST"),
        ({"name": "x" * 61, "description": ""}, "name is too long (limit: 60 characters)", None),
        (
            {"name": "ok", "description": "d" * 1025},
            "description is too long (limit: 1024 characters)",
            None,
        ),
        (
            {"name": "bad\x07name", "description": ""},
            "Invalid character in channel folder name, at position 4.",
            None,
        ),
        ({"name": "no description"}, "Missing 'description' argument", "REQUEST_VARIABLE_MISSING"),
        ({"description": ""}, "Missing 'name' argument", "REQUEST_VARIABLE_MISSING"),
    ],
)
def test_create_errors(owner: Api, params: dict[str, str], message: str, code: str | None) -> None:
    assert_error(owner.post("/channel_folders/create", **params), message, code or "BAD_REQUEST")


def test_duplicate_names_ignore_case(owner: Api) -> None:
    name = folder_name()
    owner.ok("POST", "/channel_folders/create", name=name, description="")
    assert_error(
        owner.post("/channel_folders/create", name=name.upper(), description=""),
        "Channel folder name already in use",
    )


def test_non_administrators_are_unauthorized_principals(
    owner: Api, make_user: Callable[..., Api]
) -> None:
    member = make_user()
    folder_id = owner.ok("POST", "/channel_folders/create", name=folder_name(), description="")[
        "channel_folder_id"
    ]
    for response in (
        member.post("/channel_folders/create", name=folder_name(), description=""),
        member.patch(f"/channel_folders/{folder_id}", name="mine"),
        member.patch("/channel_folders", order=f"[{folder_id}]"),
    ):
        assert_error(response, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL")


def test_update_archive_and_reorder(owner: Api, make_user: Callable[..., Api]) -> None:
    member = make_user()
    first = owner.ok("POST", "/channel_folders/create", name=folder_name(), description="")
    folder_id = first["channel_folder_id"]
    watcher = Watcher(member, ["channel_folder", "channel_folders"])
    new_name = folder_name()
    owner.ok(
        "PATCH",
        f"/channel_folders/{folder_id}",
        name=new_name,
        description="Now *described*",
        is_archived=True,
    )
    events = watcher.events()
    assert [list(e["data"]) for e in events] == [
        ["name"],
        ["description", "rendered_description"],
        ["is_archived"],
    ]
    for event in events:
        check_event_schema(event)
    watcher.check(events, KEYS)
    active = member.ok("GET", "/channel_folders")["channel_folders"]
    assert folder_id not in [f["id"] for f in active]
    everything = member.ok("GET", "/channel_folders", include_archived=True)["channel_folders"]
    assert [f["is_archived"] for f in everything if f["id"] == folder_id] == [True]
    ids = [f["id"] for f in everything]
    owner.ok("PATCH", "/channel_folders", order=list(reversed(ids)))
    events = watcher.events()
    assert events == [
        {
            "type": "channel_folder",
            "op": "reorder",
            "order": list(reversed(ids)),
            "id": events[0]["id"],
        }
    ]
    check_event_schema(events[0])
    watcher.check(events, KEYS)
    listed = member.ok("GET", "/channel_folders", include_archived=True)["channel_folders"]
    assert [f["id"] for f in listed] == list(reversed(ids))


def test_update_and_reorder_errors(owner: Api) -> None:
    folder_id = owner.ok("POST", "/channel_folders/create", name=folder_name(), description="")[
        "channel_folder_id"
    ]
    taken = folder_name()
    owner.ok("POST", "/channel_folders/create", name=taken, description="")
    assert_error(owner.patch("/channel_folders/999999", name="x"), "Invalid channel folder ID")
    assert_error(owner.patch(f"/channel_folders/{folder_id}"), "No new data supplied")
    assert_error(
        owner.patch(f"/channel_folders/{folder_id}", name=taken.lower()),
        "Channel folder name already in use",
    )
    assert_error(owner.patch("/channel_folders", order=f"[{folder_id}]"), "Invalid order mapping")
    ids = [
        f["id"]
        for f in owner.ok("GET", "/channel_folders", include_archived=True)["channel_folders"]
    ]
    assert_error(owner.patch("/channel_folders", order=[*ids, ids[0]]), "Invalid order mapping")
    assert_error(
        owner.patch("/channel_folders"), "Missing 'order' argument", "REQUEST_VARIABLE_MISSING"
    )


def test_a_folder_with_channels_cannot_be_archived(owner: Api, server) -> None:  # type: ignore[no-untyped-def]
    folder_id = owner.ok("POST", "/channel_folders/create", name=folder_name(), description="")[
        "channel_folder_id"
    ]
    name = f"in folder {folder_id}"
    owner.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": name}])
    stream_id = owner.ok("GET", "/get_stream_id", stream=name)["stream_id"]
    # Putting a channel in a folder is the channels area's API; set the column directly.
    rawdb.query(server.db, "UPDATE stream SET folder_id = ? WHERE id = ?", (folder_id, stream_id))
    assert_error(
        owner.patch(f"/channel_folders/{folder_id}", is_archived=True),
        "You need to remove all the channels from this folder to archive it.",
    )
    rawdb.query(server.db, "UPDATE stream SET folder_id = NULL WHERE id = ?", (stream_id,))
    owner.ok("PATCH", f"/channel_folders/{folder_id}", is_archived=True)

"""Custom emoji end to end: upload, list, images, errors, deactivation, events, register."""

from __future__ import annotations

import copy
import io
import json
import re
from typing import Any

import httpx
import zulip

from tests.support import rawdb
from tests.support.api import Api, assert_error, assert_success
from tests.support.realm_emoji import (
    PNG,
    active_by_name,
    apng,
    bot,
    first_gif_frame,
    gif,
    queue_events,
    upload,
    upload_ok,
    user_with_role,
)
from tests.support.server import ServerProcess
from tests.test_events import check_event_schema

INVALID_CHARS = (
    "Emoji names must contain only lowercase English letters, digits, spaces, dashes, "
    "and underscores."
)


def test_member_uploads_then_list_and_image_served_without_credentials(
    server: ServerProcess, make_user
) -> None:  # type: ignore[no-untyped-def]
    member = make_user()
    response = upload(member, "party-parrot 1", field="anything", extra="x")
    assert assert_success(response, "POST", "/realm/emoji/x")["ignored_parameters_unsupported"] == [
        "extra"
    ]
    listing = member.ok("GET", "/realm/emoji", bogus=1)
    assert listing["ignored_parameters_unsupported"] == ["bogus"]
    [entry] = [e for e in listing["emoji"].values() if e["name"] == "party-parrot_1"]
    assert entry["author_id"] == member.user_id and entry["deactivated"] is False
    assert entry["still_url"] is None
    assert re.fullmatch(r"/user_avatars/\d+/emoji/images/[0-9a-f]{16}\.png", entry["source_url"])
    image = httpx.get(server.url + entry["source_url"])
    assert image.status_code == 200 and image.content == PNG
    assert image.headers["content-type"] == "image/png"
    assert "max-age=31536000" in image.headers["cache-control"]
    # Another realm id, an unknown file, a still that does not exist: 404.
    wrong_realm = re.sub(r"/user_avatars/\d+/", "/user_avatars/999/", entry["source_url"])
    still = entry["source_url"].replace("/images/", "/images/still/")
    for url in (wrong_realm, entry["source_url"].replace(".png", "x.png"), still):
        assert httpx.get(server.url + url).status_code == 404


def test_moderator_may_add_but_guests_and_bots_may_not_by_default(server: ServerProcess) -> None:
    with user_with_role(server, "moderator") as moderator:
        upload_ok(moderator, "moderators_pick")
    with user_with_role(server, "guest") as guest:
        assert_error(upload(guest, "guest_pick"), "Not allowed for guest users")
        assert "guest_pick" not in active_by_name(guest)
    with bot(server) as generic_bot:
        assert_error(upload(generic_bot, "bot_pick"), "This endpoint does not accept bot requests.")


def test_permission_group_setting_limits_who_may_add(start_server) -> None:  # type: ignore[no-untyped-def]
    proc = start_server()
    admins = rawdb.value(proc.db, "SELECT id FROM user_group WHERE name = 'role:administrators'")
    settings = json.dumps({"can_add_custom_emoji_group": admins})
    rawdb.query(proc.db, "UPDATE realm SET settings_json = ?", (settings,))
    with user_with_role(proc, "member") as member:
        assert_error(upload(member, "members_pick"), "Insufficient permission")
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        upload_ok(owner, "admins_pick")
        assert "members_pick" not in active_by_name(owner)


def test_invalid_names_are_refused(owner: Api) -> None:
    for name, msg in [
        ("my_EMoji", INVALID_CHARS),
        ("my_em*oji", INVALID_CHARS),
        ("my/emoji/with/forward/slash/", INVALID_CHARS),
        ("caf\u00e9", INVALID_CHARS),
        ("my_emoji_", "Emoji names must end with either a letter or digit."),
        ("trailing-", "Emoji names must end with either a letter or digit."),
        ("%20", "Emoji name is missing"),
    ]:
        assert_error(upload(owner, name), msg)


def test_file_errors_store_nothing(owner: Api) -> None:
    name = "file_errors"
    no_file = owner.http.post(f"/realm/emoji/{name}", data={"x": "1"})
    assert_error(no_file, "You must upload exactly one file.")
    two = owner.http.post(
        f"/realm/emoji/{name}", files={"a": ("a.png", PNG, "image/png"), "b": ("b.png", PNG)}
    )
    assert_error(two, "You must upload exactly one file.")
    text = upload(owner, name, b"hello", content_type="text/plain", file_name="a.txt")
    assert_error(text, "Invalid image format", code="BAD_IMAGE")
    fake = upload(owner, name, b"<html>not an image</html>")
    assert_error(fake, "Could not decode image; did you upload an image file?", code="BAD_IMAGE")
    big = upload(owner, name, PNG + b"\0" * (5 * 1024 * 1024))
    assert_error(big, "Uploaded file is larger than the allowed limit of 5 MiB")
    assert name not in active_by_name(owner)


def test_exactly_five_mib_is_accepted(owner: Api) -> None:
    upload_ok(owner, "five_mib", PNG + b"\0" * (5 * 1024 * 1024 - len(PNG)))


def test_type_comes_from_the_bytes_or_the_file_name(server: ServerProcess, owner: Api) -> None:
    # No part Content-Type (the python client): the file name decides; bytes win over both.
    entry = upload_ok(owner, "typed_by_name", gif(), content_type=None, file_name="x.gif")
    assert entry["source_url"].endswith(".gif")
    entry = upload_ok(owner, "typed_by_bytes", gif(), content_type="image/png")
    assert entry["source_url"].endswith(".gif")
    served = httpx.get(server.url + entry["source_url"])
    assert served.headers["content-type"] == "image/gif" and served.content == gif()


def test_duplicate_name_refused_until_deactivated(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    member = make_user()
    first = upload_ok(member, "dupe-emoji")
    assert_error(upload(owner, "dupe-emoji"), "A custom emoji with this name already exists.")
    member.ok("DELETE", "/realm/emoji/dupe-emoji")
    second = upload_ok(owner, "dupe-emoji")
    assert second["id"] != first["id"]
    everything = owner.ok("GET", "/realm/emoji")["emoji"]
    assert everything[first["id"]]["deactivated"] is True
    assert everything[second["id"]]["deactivated"] is False


def test_only_admins_override_unicode_emoji(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    member = make_user()
    assert_error(upload(member, "octopus"), "Only administrators can override default emoji.")
    upload_ok(owner, "octopus")


def test_delete_by_author_or_admin_only(server: ServerProcess, owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    author, other = make_user(), make_user()
    entry = upload_ok(author, "deletable")
    assert_error(
        other.delete("/realm/emoji/deletable"),
        "Must be an organization administrator or emoji author",
    )
    assert owner.ok("DELETE", "/realm/emoji/deletable", junk=1)[
        "ignored_parameters_unsupported"
    ] == ["junk"]
    assert_error(
        author.delete("/realm/emoji/deletable"), "Emoji 'deletable' does not exist", status=404
    )
    assert_error(
        owner.delete("/realm/emoji/never_was"), "Emoji 'never_was' does not exist", status=404
    )
    # Deactivated: still listed, image still served (old messages keep showing it).
    assert owner.ok("GET", "/realm/emoji")["emoji"][entry["id"]]["deactivated"] is True
    assert httpx.get(server.url + entry["source_url"]).content == PNG
    upload_ok(author, "own_one")
    author.ok("DELETE", "/realm/emoji/own_one")


def test_animated_images_get_a_still(server: ServerProcess, owner: Api) -> None:
    entry = upload_ok(owner, "spinning", gif(3), content_type="image/gif", file_name="s.gif")
    assert entry["still_url"] == entry["source_url"].replace("/images/", "/images/still/")
    still = httpx.get(server.url + entry["still_url"])
    assert still.status_code == 200 and still.content == first_gif_frame()
    assert still.headers["content-type"] == "image/gif"
    animated, first_frame = apng(3)
    entry = upload_ok(owner, "blinking", animated)
    assert httpx.get(server.url + entry["still_url"]).content == first_frame
    assert upload_ok(owner, "plain_gif", gif(1), content_type="image/gif")["still_url"] is None


def _apply(state: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """The client side: apply realm_emoji events to a realm_emoji state."""
    state = copy.deepcopy(state)
    for event in events:
        if event["op"] == "update":
            state = event["realm_emoji"]
        elif event["op"] == "add":
            state[event["emoji"]["id"]] = event["emoji"]
        else:
            state[event["emoji_id"]].update(event["data"])
    return state


def test_events_reach_other_users_in_both_shapes(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    author, legacy, modern = make_user(), make_user(), make_user()
    legacy_queue = legacy.ok("POST", "/register", event_types=["realm_emoji"])
    modern_queue = modern.ok(
        "POST",
        "/register",
        event_types=["realm_emoji"],
        client_capabilities={"individual_emoji_changes": True},
    )
    entry = upload_ok(author, "evented")
    author.ok("DELETE", "/realm/emoji/evented")

    legacy_events = queue_events(legacy, legacy_queue)
    assert [(e["type"], e["op"]) for e in legacy_events] == [("realm_emoji", "update")] * 2
    assert legacy_events[0]["realm_emoji"][entry["id"]] == entry
    assert legacy_events[1]["realm_emoji"][entry["id"]]["deactivated"] is True
    modern_events = queue_events(modern, modern_queue)
    assert [e["op"] for e in modern_events] == ["add", "update_one"]
    assert modern_events[0]["emoji"] == entry and "realm_emoji" not in modern_events[0]
    assert modern_events[1]["emoji_id"] == entry["id"]
    assert modern_events[1]["data"] == {"deactivated": True}
    for event in legacy_events + modern_events:
        check_event_schema(event)
    # State vs events: the registered state plus the events equals a fresh state.
    fresh = owner.ok("POST", "/register", fetch_event_types=["realm_emoji"])["realm_emoji"]
    assert _apply(legacy_queue["realm_emoji"], legacy_events) == fresh
    assert _apply(modern_queue["realm_emoji"], modern_events) == fresh


def test_register_state_shape_and_emoji_data_url(server: ServerProcess, owner: Api) -> None:
    upload_ok(owner, "in_register")
    state = owner.ok("POST", "/register", fetch_event_types=["realm", "realm_emoji"])
    assert state["realm_emoji"] == owner.ok("GET", "/realm/emoji")["emoji"]
    for key, emoji in state["realm_emoji"].items():
        assert emoji["id"] == key and isinstance(emoji["name"], str)
        assert isinstance(emoji["source_url"], str) and isinstance(emoji["deactivated"], bool)
        assert emoji["still_url"] is None or isinstance(emoji["still_url"], str)
        assert isinstance(emoji["author_id"], int)
    url = state["server_emoji_data_url"]
    assert url == state["realm_url"] + "/static/emoji/emoji_api.json"
    response = httpx.get(url)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    names = response.json()["code_to_names"]
    assert names["1f44d"][0] == "+1" and "thumbs_up" in names["1f44d"]
    assert names["1f419"] == ["octopus"]
    again = httpx.get(url, headers={"If-None-Match": response.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    only_users = owner.ok("POST", "/register", fetch_event_types=["realm_user"])
    assert "realm_emoji" not in only_users and "server_emoji_data_url" not in only_users


def test_official_client_upload_and_list(server: ServerProcess) -> None:
    client = zulip.Client(email=server.owner_email, api_key=server.owner_key, site=server.url)
    handle = io.BytesIO(PNG)
    handle.name = "from_client.png"
    assert client.upload_custom_emoji("from_client", handle)["result"] == "success"
    listing = client.get_realm_emoji()
    assert any(e["name"] == "from_client" for e in listing["emoji"].values())

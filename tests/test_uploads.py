"""Uploads (stored in the database, streamed) and avatars."""

from __future__ import annotations

import io
import os

import httpx
import zulip

from tests.support import rawdb
from tests.support.api import Api, assert_error, assert_success
from tests.support.server import ServerProcess

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


def upload(api: Api, name: str, data: bytes, field: str = "file", **params: str) -> dict:  # type: ignore[type-arg]
    response = api.http.post(
        "/user_uploads", files={field: (name, data, "application/octet-stream")}, data=params
    )
    return assert_success(response, "POST", "/user_uploads")


def test_upload_any_field_name_then_download_with_basic_auth(
    server: ServerProcess, make_user
) -> None:  # type: ignore[no-untyped-def]
    user = make_user()
    data = os.urandom(700_000)  # several chunks
    body = upload(user, "../../etc/My Report (final).bin", data, field="/tmp/whatever.bin")
    assert body["uri"] == body["url"] and body["url"].startswith("/user_uploads/1/")
    assert body["filename"] == "My-Report-final.bin"
    response = httpx.get(server.url + body["url"], auth=(user.email, user.api_key))
    assert response.status_code == 200 and response.content == data
    assert response.headers["content-length"] == str(len(data))
    assert response.headers["content-disposition"].startswith("attachment")
    # No credentials, or another user who was never sent the file: refused.
    assert httpx.get(server.url + body["url"]).status_code == 401
    other = make_user()
    response = httpx.get(server.url + body["url"], auth=(other.email, other.api_key))
    assert response.status_code == 400 and response.json()["msg"] == "File not found"


def test_temporary_url_serves_without_credentials(server: ServerProcess, make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user()
    body = upload(user, "pic.png", PNG)
    temp = user.ok("GET", "/user_uploads/" + body["url"].removeprefix("/user_uploads/"))
    assert temp["url"].startswith("/user_uploads/temporary/")
    response = httpx.get(server.url + temp["url"])
    assert response.status_code == 200 and response.content == PNG
    tampered = temp["url"].replace("temporary/", "temporary/x")
    assert httpx.get(server.url + tampered).status_code == 400


def test_attachments_list_and_delete_send_events(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user()
    queue = user.ok("POST", "/register", event_types=["attachment"])
    body = upload(user, "notes.txt", b"hello world")
    listing = user.ok("GET", "/attachments")
    [attachment] = listing["attachments"]
    assert attachment["name"] == "notes.txt" and attachment["size"] == 11
    assert attachment["path_id"] == body["url"].removeprefix("/user_uploads/")
    assert attachment["messages"] == [] and attachment["create_time"] > 10**12
    assert listing["upload_space_used"] >= 11
    user.ok("DELETE", f"/attachments/{attachment['id']}")
    assert user.ok("GET", "/attachments")["attachments"] == []
    events = user.ok(
        "GET", "/events", queue_id=queue["queue_id"], last_event_id=-1, dont_block=True
    )["events"]
    assert [(e["type"], e["op"]) for e in events] == [
        ("attachment", "add"),
        ("attachment", "remove"),
    ]
    assert events[1]["attachment"] == {"id": attachment["id"]}
    assert_error(user.delete(f"/attachments/{attachment['id']}"), "Invalid attachment")


def test_cannot_delete_someone_elses_attachment(make_user) -> None:  # type: ignore[no-untyped-def]
    owner_of_file, other = make_user(), make_user()
    upload(owner_of_file, "a.txt", b"a")
    [attachment] = owner_of_file.ok("GET", "/attachments")["attachments"]
    assert_error(other.delete(f"/attachments/{attachment['id']}"), "Invalid attachment")


def test_bad_uploads_are_refused_and_store_nothing(start_server) -> None:  # type: ignore[no-untyped-def]
    proc = start_server(env={"TEAMCHAT_MAX_FILE_UPLOAD_SIZE_MIB": "1"})
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        too_big = owner.http.post(
            "/user_uploads", files={"f": ("big.bin", b"x" * (1024 * 1024 + 1))}
        )
        assert_error(too_big, "Uploaded file is larger than the allowed limit of 1 MiB")
        assert_error(owner.post("/user_uploads", name="x"), "You must specify a file to upload")
        two = owner.http.post("/user_uploads", files={"a": ("a", b"a"), "b": ("b", b"b")})
        assert_error(two, "You may only upload one file at a time")
        assert owner.ok("GET", "/attachments")["attachments"] == []
    assert rawdb.value(proc.db, "SELECT count(*) FROM attachment_chunk") == 0


def test_official_client_upload_file(server: ServerProcess) -> None:
    client = zulip.Client(email=server.owner_email, api_key=server.owner_key, site=server.url)
    handle = io.BytesIO(b"from the python client")
    handle.name = "client.txt"
    result = client.upload_file(handle)
    assert result["result"] == "success" and result["uri"].endswith("/client.txt")


def test_avatar_upload_redirect_and_events(server: ServerProcess, make_user) -> None:  # type: ignore[no-untyped-def]
    user, watcher = make_user(), make_user()
    queue = watcher.ok("POST", "/register", event_types=["realm_user"])
    redirect = httpx.get(f"{server.url}/avatar/{user.user_id}", auth=(user.email, user.api_key))
    assert redirect.status_code == 302
    assert redirect.headers["location"].startswith("https://secure.gravatar.com/avatar/")
    response = user.http.post("/users/me/avatar", files={"file": ("me.png", PNG, "image/png")})
    url = assert_success(response)["avatar_url"]
    assert url.startswith(f"/user_avatars/{user.user_id}?version=")
    served = httpx.get(server.url + url)
    assert served.status_code == 200 and served.content == PNG
    redirect = httpx.get(
        f"{server.url}/avatar/{user.email}/medium", auth=(user.email, user.api_key)
    )
    assert redirect.headers["location"] == url
    me = user.ok("GET", "/users/me")
    assert me["avatar_url"] == url and me["avatar_version"] == 2
    user.ok("DELETE", "/users/me/avatar")
    events = watcher.ok(
        "GET", "/events", queue_id=queue["queue_id"], last_event_id=-1, dont_block=True
    )["events"]
    people = [e["person"] for e in events if e["person"]["user_id"] == user.user_id]
    assert [p["avatar_source"] for p in people] == ["U", "G"]
    assert people[0]["avatar_url"] == url and people[1]["avatar_version"] == 3
    text = user.http.post("/users/me/avatar", files={"file": ("x.txt", b"hi", "text/plain")})
    assert_error(text, "Invalid image format")
    assert (
        httpx.get(f"{server.url}/avatar/999999", auth=(user.email, user.api_key)).status_code == 400
    )


def test_recipients_of_a_linking_message_may_download(server: ServerProcess, make_user) -> None:  # type: ignore[no-untyped-def]
    sender, recipient, outsider = make_user(), make_user(), make_user()
    queue = sender.ok("POST", "/register", event_types=["attachment"])
    url = upload(sender, "shared.txt", b"for you")["url"]
    sent = sender.ok(
        "POST", "/messages", type="direct", to=[recipient.user_id], content=f"[shared.txt]({url})"
    )
    response = httpx.get(server.url + url, auth=(recipient.email, recipient.api_key))
    assert response.status_code == 200 and response.content == b"for you"
    refused = httpx.get(server.url + url, auth=(outsider.email, outsider.api_key))
    assert refused.status_code == 400
    [attachment] = sender.ok("GET", "/attachments")["attachments"]
    assert [m["id"] for m in attachment["messages"]] == [sent["id"]]
    events = sender.ok(
        "GET", "/events", queue_id=queue["queue_id"], last_event_id=-1, dont_block=True
    )["events"]
    assert [e["op"] for e in events] == ["add", "update"]
    assert events[1]["attachment"]["messages"][0]["id"] == sent["id"]

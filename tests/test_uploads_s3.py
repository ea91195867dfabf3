"""Upload bytes in S3-compatible storage (moto's S3 server) and in a shared directory,
through HTTP: files, thumbnails, avatars, custom emoji and exports are written to the store,
served by the server with the same checks and headers, and deleted with what links them."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import tarfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import database_url
from tests.support import images, rawdb
from tests.support.api import Api, assert_error, assert_success
from tests.support.channels import subscribe
from tests.support.realm_emoji import gif
from tests.support.s3 import (  # noqa: F401  (the fixture)
    new_bucket,
    object_keys,
    s3_client,
    s3_endpoint,
    server_env,
)
from tests.support.server import ServerProcess, cli

PREFIX = "chat"


class S3Server:
    def __init__(self, proc: ServerProcess, endpoint: str, bucket: str) -> None:
        self.proc, self.endpoint, self.bucket = proc, endpoint, bucket
        self.owner = Api(proc.url, proc.owner_email, proc.owner_key)

    def stored(self, prefix: str = "") -> list[str]:
        found = object_keys(self.endpoint, self.bucket, f"{PREFIX}/{prefix}")
        return [key.removeprefix(f"{PREFIX}/") for key in found]

    def wait_gone(self, key: str) -> None:
        """Objects are deleted right after the deleting transaction commits."""
        deadline = time.monotonic() + 10
        while key in self.stored(key):
            assert time.monotonic() < deadline, f"{key} was not deleted"
            time.sleep(0.05)

    def db_count(self, sql: str) -> int:
        return int(rawdb.value(self.proc.db, sql))


@pytest.fixture(scope="module")
def s3(
    s3_endpoint: str,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
    request: pytest.FixtureRequest,
) -> Iterator[S3Server]:
    bucket = new_bucket(s3_endpoint)
    env = {**server_env(s3_endpoint, bucket), "TEAMCHAT_RETENTION_INTERVAL_SECS": "0.5"}
    directory = tmp_path_factory.mktemp("s3srv")
    proc = ServerProcess(directory, env, database_url=database_url(request))
    proc.start()
    server = S3Server(proc, s3_endpoint, bucket)
    yield server
    server.owner.close()
    proc.stop()


def upload(api: Api, name: str, data: bytes, content_type: str = "image/png") -> str:
    response = api.http.post("/user_uploads", files={"file": (name, data, content_type)})
    return str(assert_success(response, "POST", "/user_uploads")["url"])


def member(s3: S3Server, name: str) -> Api:
    email = f"{name.lower()}{os.urandom(3).hex()}@example.com"
    s3.owner.ok("POST", "/users", email=email, password="correct-horse-9", full_name=name)
    anonymous = Api(s3.proc.url)
    key = anonymous.ok("POST", "/fetch_api_key", username=email, password="correct-horse-9")
    anonymous.close()
    return Api(s3.proc.url, email, key["api_key"])


def test_a_file_goes_to_the_bucket_and_is_served_by_the_server(s3: S3Server) -> None:
    user = member(s3, "Ann")
    data = os.urandom(700_000)  # more than one chunk, more than one read from S3
    url = upload(user, "notes.bin", data, "application/octet-stream")
    path_id = url.removeprefix("/user_uploads/")
    assert s3.stored(path_id) == [path_id]
    # The bytes are not in the database: only the attachment's row is.
    assert s3.db_count("SELECT count(*) FROM attachment_chunk") == 0
    response = httpx.get(s3.proc.url + url, auth=(user.email, user.api_key))
    assert response.status_code == 200 and response.content == data
    assert response.headers["content-length"] == str(len(data))
    assert response.headers["content-disposition"].startswith("attachment")
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["cache-control"] == "private, max-age=86400"
    # The same access rules: no credentials, a stranger.
    assert httpx.get(s3.proc.url + url).status_code == 401
    stranger = member(s3, "Stranger")
    refused = httpx.get(s3.proc.url + url, auth=(stranger.email, stranger.api_key))
    assert refused.status_code == 400 and refused.json()["msg"] == "File not found"
    # A temporary URL streams the same bytes without credentials.
    temporary = user.ok("GET", url)["url"]
    assert httpx.get(s3.proc.url + temporary).content == data
    # Removing the attachment removes the object.
    [attachment] = user.ok("GET", "/attachments")["attachments"]
    user.ok("DELETE", f"/attachments/{attachment['id']}")
    s3.wait_gone(path_id)
    assert httpx.get(s3.proc.url + url, auth=(user.email, user.api_key)).status_code == 400


def test_an_image_is_shown_inline_and_its_thumbnail_is_stored_beside_it(s3: S3Server) -> None:
    user = s3.owner
    url = upload(user, "pic.jpg", images.jpeg(1200, 900), "image/jpeg")
    path_id = url.removeprefix("/user_uploads/")
    response = httpx.get(s3.proc.url + url, auth=(user.email, user.api_key))
    assert response.headers["content-type"] == "image/jpeg"
    assert response.headers["content-disposition"].startswith("inline")
    thumb_url = f"{s3.proc.url}/user_uploads/thumbnail/{path_id}/840x560.webp"
    thumb = httpx.get(thumb_url, auth=(user.email, user.api_key))
    assert thumb.status_code == 200 and thumb.headers["content-type"] == "image/webp"
    assert thumb.content.startswith(b"RIFF")
    assert f"thumbnail/{path_id}/840x560.webp" in s3.stored("thumbnail/")
    assert s3.db_count("SELECT count(*) FROM image_thumbnail WHERE length(data) > 0") == 0
    assert httpx.get(thumb_url).status_code == 401
    # A message links it; when retention deletes the message, the upload and its thumbnail
    # go with it (deleting a message by hand keeps its uploads, as in Zulip).
    subscribe(user, "brief-s3", message_retention_days="1")
    sent = user.ok(
        "POST", "/messages", type="stream", to="brief-s3", topic="pics", content=f"[pic]({url})"
    )
    rawdb.query(
        s3.proc.db,
        "UPDATE message SET date_sent = date_sent - 3 * 86400 WHERE id = ?",
        (sent["id"],),
    )
    s3.wait_gone(path_id)
    s3.wait_gone(f"thumbnail/{path_id}/840x560.webp")


def test_avatars_are_stored_replaced_and_deleted(s3: S3Server) -> None:
    user = member(s3, "Avery")
    user_id = user.ok("GET", "/users/me")["user_id"]
    first, second = images.png(40, 40), images.png(60, 30, (10, 200, 10))
    for picture in (first, second):
        response = user.http.post("/users/me/avatar", files={"f": ("a.png", picture, "image/png")})
        avatar_url = assert_success(response)["avatar_url"]
        served = httpx.get(s3.proc.url + avatar_url)
        assert served.status_code == 200 and served.content == picture
        assert served.headers["content-type"] == "image/png"
        assert served.headers["cache-control"] == "public, max-age=31536000"
    assert s3.stored(f"avatars/{user_id}") == [f"avatars/{user_id}"]
    user.ok("DELETE", "/users/me/avatar")
    s3.wait_gone(f"avatars/{user_id}")
    assert httpx.get(f"{s3.proc.url}/user_avatars/{user_id}").status_code == 400


def test_custom_emoji_and_their_stills_are_served_from_the_bucket(s3: S3Server) -> None:
    animated = gif(frames=2)
    response = s3.owner.http.post(
        "/realm/emoji/party_s3", files={"f": ("party.gif", animated, "image/gif")}
    )
    assert_success(response)
    emoji = s3.owner.ok("GET", "/realm/emoji")["emoji"]
    [entry] = [e for e in emoji.values() if e["name"] == "party_s3"]
    served = httpx.get(s3.proc.url + entry["source_url"])
    assert served.status_code == 200 and served.content == animated
    assert served.headers["content-type"] == "image/gif"
    still = httpx.get(s3.proc.url + entry["still_url"])
    assert still.status_code == 200 and still.content.startswith(b"GIF8")
    assert still.content != animated
    stored = entry["source_url"].removeprefix("/user_avatars/")
    assert stored in s3.stored() and stored.replace("images/", "images/still/") in s3.stored()
    assert s3.db_count("SELECT count(*) FROM realm_emoji_image WHERE length(data) > 0") == 0
    # Deactivated emoji keep their image (old messages still show it).
    s3.owner.ok("DELETE", "/realm/emoji/party_s3")
    assert httpx.get(s3.proc.url + entry["source_url"]).content == animated


def _wait_export(owner: Api, export_id: int) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = owner.ok("GET", "/export/realm")["exports"]
        entry = next(e for e in found if e["id"] == export_id)
        if not entry["pending"]:
            return dict(entry)
        time.sleep(0.2)
    raise AssertionError("export did not finish")


def _tar_members(data: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return {
            m.name.split("/", 1)[1]: tar.extractfile(m).read()  # type: ignore[union-attr]
            for m in tar.getmembers()
            if m.isfile()
        }


def test_exports_read_upload_bytes_from_the_bucket_and_store_the_tarball_there(
    s3: S3Server, tmp_path: Path
) -> None:
    data = os.urandom(300_000)
    url = upload(s3.owner, "public.bin", data, "application/octet-stream")
    s3.owner.ok(
        "POST", "/messages", type="stream", to="general", topic="files", content=f"[f]({url})"
    )
    path_id = url.removeprefix("/user_uploads/")
    created = s3.owner.ok("POST", "/export/realm", export_type=1)
    entry = _wait_export(s3.owner, created["id"])
    assert entry["failed_timestamp"] is None, s3.proc.log()
    export_path = entry["export_url"].split("/user_avatars/", 1)[1]
    assert s3.stored(export_path) == [export_path]
    assert s3.db_count("SELECT count(*) FROM realm_export_chunk") == 0
    response = httpx.get(entry["export_url"])
    assert response.status_code == 200
    assert response.headers["content-length"] == str(len(response.content))
    assert _tar_members(response.content)[f"uploads/{path_id}"] == data
    s3.owner.ok("DELETE", f"/export/realm/{entry['id']}")
    s3.wait_gone(export_path)
    assert httpx.get(entry["export_url"]).status_code == 404
    # `teamchat export` reads the same bytes from the bucket.
    env = server_env(s3.endpoint, s3.bucket)
    cli(s3.proc.db, "export", str(tmp_path / "out"), env=env)
    assert (tmp_path / "out" / "uploads" / path_id).read_bytes() == data
    # `teamchat import` puts the files into the store the new database uses.
    bucket = new_bucket(s3.endpoint)
    imported = tmp_path / "imported.db"
    cli(imported, "import", str(tmp_path / "out"), env=server_env(s3.endpoint, bucket))
    client = s3_client(s3.endpoint)
    stored = client.get_object(Bucket=bucket, Key=f"chat/{path_id}")["Body"].read()
    assert stored == data
    with sqlite3.connect(imported) as db:
        assert db.execute("SELECT count(*) FROM attachment_chunk").fetchone()[0] == 0
        assert db.execute("SELECT size FROM attachment WHERE path_id = ?", (path_id,)).fetchone()[
            0
        ] == len(data)
    # An import that fails (at its commit, after the files were stored: an upload owned by
    # nobody) leaves no files behind in the store.
    out = tmp_path / "out"
    table = json.loads((out / "attachment.json").read_text())
    [row] = [r for r in table["zerver_attachment"] if r["path_id"] == path_id]
    orphan = {**row, "id": 999_999, "owner": 999_999, "path_id": path_id + "-orphan"}
    table["zerver_attachment"].append(orphan)
    (out / "attachment.json").write_text(json.dumps(table))
    (out / "uploads" / orphan["path_id"]).write_bytes(b"orphan")
    env = server_env(s3.endpoint, bucket, "other")
    failed = cli(tmp_path / "bad.db", "import", str(out), env=env, check=False)
    assert failed.returncode == 1 and "nothing was imported" in failed.stderr, failed.stderr
    assert object_keys(s3.endpoint, bucket, "other/") == []


def test_backup_says_the_uploads_are_not_in_the_file(s3: S3Server, tmp_path: Path) -> None:
    env = server_env(s3.endpoint, s3.bucket)
    result = cli(s3.proc.db, "backup", str(tmp_path / "b.db"), env=env)
    assert f"Uploads are kept in s3://{s3.bucket}/chat, not in this file" in result.stdout
    with sqlite3.connect(tmp_path / "b.db") as copy:
        assert copy.execute("SELECT count(*) FROM attachment").fetchone()[0] > 0
        assert copy.execute("SELECT count(*) FROM attachment_chunk").fetchone()[0] == 0
    plain = cli(s3.proc.db, "backup", str(tmp_path / "c.db"), env={"TEAMCHAT_UPLOADS": ""})
    assert "Uploads are kept" not in plain.stdout


def test_uploads_kept_in_the_database_are_served_then_moved_to_s3(
    s3_endpoint: str,  # noqa: F811
    start_server: Callable[..., ServerProcess],
) -> None:
    proc = start_server()
    owner = Api(proc.url, proc.owner_email, proc.owner_key)
    big, picture, face, animated = (
        os.urandom(600_000),
        images.jpeg(900, 700),
        images.png(30, 30),
        gif(2),
    )
    old = upload(owner, "old.bin", big, "application/octet-stream")
    pic = upload(owner, "pic.jpg", picture, "image/jpeg")
    thumb = f"/user_uploads/thumbnail/{pic.removeprefix('/user_uploads/')}/840x560.webp"
    auth = (owner.email, owner.api_key)
    thumbnail = httpx.get(proc.url + thumb, auth=auth).content
    assert thumbnail.startswith(b"RIFF")
    assert_success(owner.http.post("/users/me/avatar", files={"f": ("a.png", face, "image/png")}))
    assert_success(owner.http.post("/realm/emoji/moved", files={"f": ("m.gif", animated)}))
    export = _wait_export(owner, owner.ok("POST", "/export/realm", export_type=1)["id"])
    tarball = httpx.get(export["export_url"]).content
    owner.close()
    proc.stop()
    # Restart on the bucket: what the database holds is still served from it.
    bucket = new_bucket(s3_endpoint)
    env = server_env(s3_endpoint, bucket)
    proc.env.update(env)
    proc.start(port=proc.port)
    assert f"Uploads: s3://{bucket}/chat" in proc.log()
    owner = Api(proc.url, proc.owner_email, proc.owner_key)
    me = owner.ok("GET", "/users/me")
    [emoji] = [e for e in owner.ok("GET", "/realm/emoji")["emoji"].values() if e["name"] == "moved"]
    served = {
        old: big, thumb: thumbnail, me["avatar_url"]: face, emoji["source_url"]: animated,
        export["export_url"].removeprefix(proc.url): tarball,
    }  # fmt: skip
    for url, data in served.items():
        assert httpx.get(proc.url + url, auth=auth).content == data, url
    new = upload(owner, "new.png", images.png(21, 21))
    new_thumb = f"/user_uploads/thumbnail/{new.removeprefix('/user_uploads/')}/840x560.webp"
    assert httpx.get(proc.url + new_thumb, auth=auth).status_code == 200  # made by now
    stored = object_keys(s3_endpoint, bucket)
    assert f"chat/{new.removeprefix('/user_uploads/')}" in stored
    assert not any(old.removeprefix("/user_uploads/") in key for key in stored)
    # Move the rest while the server runs: the same bytes, now from the bucket.
    result = cli(proc.db, "admin", "move-uploads", env=env)
    assert "Moved 2 uploads, 1 thumbnails, 1 avatars, 1 custom emoji, 1 exports" in result.stdout
    for sql in (
        "SELECT count(*) FROM attachment_chunk",
        "SELECT count(*) FROM realm_export_chunk",
        "SELECT count(*) FROM image_thumbnail WHERE length(data) > 0",
        "SELECT count(*) FROM user_avatar WHERE length(data) > 0",
        "SELECT count(*) FROM realm_emoji_image WHERE length(data) > 0 OR length(still) > 0",
    ):
        assert rawdb.value(proc.db, sql) == 0, sql
    assert len(object_keys(s3_endpoint, bucket)) == len(stored) + 7  # the still too
    for url, data in served.items():
        assert httpx.get(proc.url + url, auth=auth).content == data, url
    still = httpx.get(proc.url + emoji["still_url"])
    assert still.status_code == 200 and still.content.startswith(b"GIF8")
    again = cli(proc.db, "admin", "move-uploads", env=env)
    assert "Moved 0 uploads" in again.stdout
    refused = cli(
        proc.db, "admin", "move-uploads", env={"TEAMCHAT_UPLOADS": "database"}, check=False
    )
    assert refused.returncode == 1 and "where to move them" in refused.stderr
    owner.close()


def test_serve_refuses_an_unusable_bucket_in_one_line(
    s3_endpoint: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    env = server_env(s3_endpoint, "no-such-bucket-anywhere")
    result = cli(tmp_path / "t.db", "serve", "--port", "1", env=env, check=False)
    assert result.returncode == 1
    assert "uploads: cannot use s3://no-such-bucket-anywhere/chat" in result.stderr
    assert not (tmp_path / "t.db").exists()
    bad = cli(tmp_path / "t.db", "serve", "--uploads=ftp://x/y", check=False)
    assert bad.returncode == 1 and "uploads:" in bad.stderr


def test_a_shared_directory_holds_the_bytes_as_files(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    shared = tmp_path / "shared-uploads"
    proc = start_server({"TEAMCHAT_UPLOADS": str(shared)})
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        data = os.urandom(300_000)
        url = upload(owner, "doc.bin", data, "application/octet-stream")
        path_id = url.removeprefix("/user_uploads/")
        assert (shared / path_id).read_bytes() == data
        response = httpx.get(proc.url + url, auth=(owner.email, owner.api_key))
        assert response.content == data
        [attachment] = owner.ok("GET", "/attachments")["attachments"]
        owner.ok("DELETE", f"/attachments/{attachment['id']}")
        deadline = time.monotonic() + 10
        while (shared / path_id).exists():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert_error(owner.delete(f"/attachments/{attachment['id']}"), "Invalid attachment")

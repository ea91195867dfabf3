"""The upload byte store's contract, held by both homes: a directory and an S3 bucket."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from teamchat.store.blobs import (
    BlobStore,
    BlobStoreError,
    DirectoryBlobStore,
    check_key,
    open_blob_store,
)
from tests.support.s3 import S3_ENV, new_bucket, object_keys, s3_endpoint  # noqa: F401

KEY = "1/ab/Xy_Z-9/report final.pdf"


@pytest.fixture
def s3_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in S3_ENV.items():
        monkeypatch.setenv(name, value)


@pytest.fixture(params=["directory", "s3"])
def blob_store(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[BlobStore]:
    if request.param == "directory":
        spec = str(tmp_path / "uploads")
        endpoint = None
    else:
        for name, value in S3_ENV.items():
            monkeypatch.setenv(name, value)
        endpoint = request.getfixturevalue("s3_endpoint")
        spec = f"s3://{new_bucket(endpoint)}/some/prefix"
    store = open_blob_store(spec, s3_endpoint_url=endpoint)
    assert store is not None
    store.check()
    yield store
    store.close()


def test_put_then_get_and_chunks_return_the_same_bytes(blob_store: BlobStore) -> None:
    data = os.urandom(600_000)
    source = io.BytesIO(b"skipped" + data)
    source.seek(7)  # from the current position
    assert blob_store.put(KEY, source, "application/pdf") == len(data)
    assert blob_store.get(KEY) == data
    chunks = blob_store.chunks(KEY, 100_000)
    assert chunks is not None
    parts = list(chunks)
    assert b"".join(parts) == data and max(map(len, parts)) <= 100_000


def test_empty_object(blob_store: BlobStore) -> None:
    assert blob_store.put("1/empty", io.BytesIO(b""), "text/plain") == 0
    assert blob_store.get("1/empty") == b""
    chunks = blob_store.chunks("1/empty")
    assert chunks is not None and list(chunks) == []


def test_put_replaces_whole(blob_store: BlobStore) -> None:
    blob_store.put("avatars/7", io.BytesIO(b"first version, longer"), "image/png")
    blob_store.put("avatars/7", io.BytesIO(b"second"), "image/png")
    assert blob_store.get("avatars/7") == b"second"


def test_missing_keys_read_as_none_and_delete_quietly(blob_store: BlobStore) -> None:
    assert blob_store.get("1/none") is None
    assert blob_store.chunks("1/none") is None
    assert blob_store.get("1/ab") is None  # a folder of other keys is not a key
    blob_store.delete(["1/none", "thumbnail/1/none/840x560.webp"])


def test_delete_and_list_by_prefix(blob_store: BlobStore) -> None:
    keys = [KEY, f"thumbnail/{KEY}/840x560.webp", "avatars/3", "2/emoji/images/a.png"]
    for key in keys:
        blob_store.put(key, io.BytesIO(key.encode()), "application/octet-stream")
    assert sorted(blob_store.keys()) == sorted(keys)
    assert sorted(blob_store.keys("thumbnail/")) == [f"thumbnail/{KEY}/840x560.webp"]
    blob_store.delete([KEY, f"thumbnail/{KEY}/840x560.webp"])
    assert sorted(blob_store.keys()) == ["2/emoji/images/a.png", "avatars/3"]
    assert blob_store.get(KEY) is None
    blob_store.delete(["avatars/3", "2/emoji/images/a.png"])
    assert list(blob_store.keys()) == []


def test_many_deletes_in_one_call(blob_store: BlobStore) -> None:
    keys = [f"1/many/{n}" for n in range(1005)]  # more than one S3 DeleteObjects batch
    if isinstance(blob_store, DirectoryBlobStore):
        keys = keys[:50]
    for key in keys:
        blob_store.put(key, io.BytesIO(b"x"), "text/plain")
    blob_store.delete(keys)
    assert list(blob_store.keys("1/many/")) == []


@pytest.mark.parametrize(
    "key", ["", "/abs", "a/../b", "a//b", "a/./b", "..", "a\\b", "a/.tmp-x", "nul\x00"]
)
def test_keys_that_could_leave_the_store_are_refused(blob_store: BlobStore, key: str) -> None:
    with pytest.raises(ValueError, match="invalid storage key"):
        blob_store.put(key, io.BytesIO(b"x"), "text/plain")
    with pytest.raises(ValueError):
        blob_store.get(key)
    with pytest.raises(ValueError):
        check_key(key)


def test_directory_writes_through_a_temporary_file_and_rename(tmp_path: Path) -> None:
    store = DirectoryBlobStore(tmp_path / "up")

    class Failing(io.BytesIO):
        def read(self, size: int | None = -1) -> bytes:
            if self.tell() >= 4:
                raise OSError("disk went away")
            return super().read(4)

    store.put("1/f", io.BytesIO(b"old bytes"), "text/plain")
    with pytest.raises(OSError, match="disk went away"):
        store.put("1/f", Failing(b"new bytes that never finish"), "text/plain")
    # The reader still sees the old bytes whole, and no temporary file is left behind.
    assert store.get("1/f") == b"old bytes"
    assert sorted(p.name for p in (tmp_path / "up" / "1").iterdir()) == ["f"]
    assert (tmp_path / "up" / "1" / "f").stat().st_mode & 0o077 == 0
    # Deleting the last key of a folder removes the emptied folders (not the root).
    store.delete(["1/f"])
    assert list((tmp_path / "up").iterdir()) == []


def test_the_setting_names_the_store(tmp_path: Path) -> None:
    assert open_blob_store("database") is None
    assert open_blob_store("") is None
    directory = open_blob_store(f"file://{tmp_path}/u")
    assert isinstance(directory, DirectoryBlobStore) and directory.root == tmp_path / "u"
    for bad in ("http://example.com/x", "s3://", "s3://bucket/a/../b", "s3://b?x=1"):
        with pytest.raises(BlobStoreError):
            open_blob_store(bad)


def test_check_reports_an_unusable_store(tmp_path: Path, s3_endpoint: str, s3_env: None) -> None:  # noqa: F811
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(BlobStoreError, match="cannot write"):
        DirectoryBlobStore(blocker / "uploads").check()
    missing = open_blob_store("s3://no-such-bucket-here/x", s3_endpoint_url=s3_endpoint)
    assert missing is not None
    with pytest.raises(BlobStoreError, match="cannot use s3://no-such-bucket-here/x"):
        missing.check()


def test_s3_keys_live_under_the_prefix(s3_endpoint: str, s3_env: None) -> None:  # noqa: F811
    bucket = new_bucket(s3_endpoint)
    store = open_blob_store(f"s3://{bucket}/team/chat/", s3_endpoint_url=s3_endpoint)
    assert store is not None
    store.put(KEY, io.BytesIO(b"abc"), "application/pdf")
    assert object_keys(s3_endpoint, bucket) == [f"team/chat/{KEY}"]
    assert list(store.keys()) == [KEY]
    store.close()


def test_directory_put_survives_a_folder_removed_by_another_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another machine deleting the last file of a folder removes the folder; a write that
    made the folder a moment before makes it again instead of failing."""
    store = DirectoryBlobStore(tmp_path / "up")
    real_open = os.open
    removed: list[str] = []

    def open_after_removal(path: str, flags: int, mode: int = 0o777) -> int:
        if not removed and ".tmp-" in str(path):
            Path(path).parent.rmdir()  # the other process's prune, between mkdir and open
            removed.append(str(path))
        return real_open(path, flags, mode)

    monkeypatch.setattr(os, "open", open_after_removal)
    assert store.put("1/ab/new/file.txt", io.BytesIO(b"kept"), "text/plain") == 4
    assert removed and store.get("1/ab/new/file.txt") == b"kept"

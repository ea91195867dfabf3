"""Upload bytes kept outside the database: the `BlobStore` interface and the directory store.

Where bytes live is chosen by the `uploads` setting: "database" (the default: in the database
file, no BlobStore at all), a directory (local disk or a shared NFS mount) or an S3-compatible
bucket (teamchat.store.blobs_s3). Keys are relative paths with "/" separators ("2/ab/x/a.png",
"thumbnail/...", "avatars/7"). Every BlobStore method blocks: call them from a worker thread
(`AsyncBlobs` does), never on the event loop.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path
from typing import IO, Protocol

CHUNK_BYTES = 256 * 1024
_TEMP_PREFIX = ".tmp-"
_CREATE_ATTEMPTS = 5


class BlobStoreError(Exception):
    """The store cannot be used (bad setting, unreachable bucket, refused credentials)."""


class BlobStore(Protocol):
    """Bytes by key. A missing key reads as None; deleting a missing key is not an error."""

    description: str

    def check(self) -> None:
        """Raise BlobStoreError unless the store can be written and read now."""

    def put(self, key: str, source: IO[bytes], content_type: str) -> int:
        """Store `source` (read from its current position to the end) under `key`, replacing
        what was there at once for every reader; return the bytes stored."""

    def get(self, key: str) -> bytes | None:
        """The bytes under `key`, or None."""

    def chunks(self, key: str, chunk_bytes: int = CHUNK_BYTES) -> Iterator[bytes] | None:
        """An iterator over the bytes under `key` (opened now), or None if there are none."""

    def delete(self, keys: Iterable[str]) -> None:
        """Delete every key in `keys` that exists."""

    def keys(self, prefix: str = "") -> Iterator[str]:
        """Every key that starts with `prefix`, in no particular order."""

    def close(self) -> None:
        """Release connections."""


def check_key(key: str) -> str:
    """`key` if it is a relative path of plain parts; ValueError otherwise."""
    parts = key.split("/")
    if (
        not key
        or "\\" in key
        or "\x00" in key
        or any(part in ("", ".", "..") or part.startswith(_TEMP_PREFIX) for part in parts)
    ):
        raise ValueError(f"invalid storage key: {key!r}")
    return key


class DirectoryBlobStore:
    """Keys as files under one directory. Safe on NFS and with several processes or machines:
    a write goes to a temporary file beside its target, is flushed to disk, then renamed over
    it (rename is atomic on POSIX file systems and NFS), so readers see the old bytes or the
    new ones, never a part; nothing relies on file locks."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.description = f"directory {root}"

    def _path(self, key: str) -> Path:
        return self.root.joinpath(*check_key(key).split("/"))

    def check(self) -> None:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            probe = self.root / f"{_TEMP_PREFIX}check-{secrets.token_hex(8)}"
            probe.write_bytes(b"ok")
            probe.unlink()
        except OSError as error:
            raise BlobStoreError(f"cannot write to {self.root}: {error}") from None

    def put(self, key: str, source: IO[bytes], content_type: str) -> int:
        target = self._path(key)
        temporary = target.with_name(f"{_TEMP_PREFIX}{secrets.token_hex(8)}")
        fd = self._create(temporary)
        written = 0
        try:
            with os.fdopen(fd, "wb") as sink:
                while chunk := source.read(CHUNK_BYTES):
                    written += sink.write(chunk)
                sink.flush()
                os.fsync(sink.fileno())
            os.replace(temporary, target)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        return written

    def _create(self, temporary: Path) -> int:
        """Open a new file at `temporary`, making its folders. Another process may remove
        a folder it emptied (`delete`) between our mkdir and open: then try again."""
        for attempt in range(_CREATE_ATTEMPTS):
            try:
                temporary.parent.mkdir(parents=True, exist_ok=True)
                return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileNotFoundError:
                if attempt == _CREATE_ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    def get(self, key: str) -> bytes | None:
        try:
            return self._path(key).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def chunks(self, key: str, chunk_bytes: int = CHUNK_BYTES) -> Iterator[bytes] | None:
        try:
            handle = self._path(key).open("rb")
        except (FileNotFoundError, NotADirectoryError):
            return None
        return _read_all(handle, chunk_bytes)

    def delete(self, keys: Iterable[str]) -> None:
        for key in keys:
            path = self._path(key)
            path.unlink(missing_ok=True)
            _prune_empty_parents(path.parent, self.root)

    def keys(self, prefix: str = "") -> Iterator[str]:
        if not self.root.is_dir():
            return
        for folder, _dirs, files in os.walk(self.root):
            for name in files:
                if name.startswith(_TEMP_PREFIX):
                    continue
                key = Path(folder, name).relative_to(self.root).as_posix()
                if key.startswith(prefix):
                    yield key

    def close(self) -> None:
        pass


def _read_all(handle: IO[bytes], chunk_bytes: int) -> Iterator[bytes]:
    with handle:
        while chunk := handle.read(chunk_bytes):
            yield chunk


def _prune_empty_parents(folder: Path, root: Path) -> None:
    """Remove now-empty folders up to (not including) `root`; another writer may be filling
    one again at the same moment, which rmdir then refuses: that is fine."""
    while folder != root and folder.is_relative_to(root):
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def open_blob_store(
    spec: str, *, s3_endpoint_url: str | None = None, s3_region: str | None = None
) -> BlobStore | None:
    """The store the `uploads` setting names: None for "database", a bucket for
    "s3://bucket[/prefix]", else a directory ("file:///srv/uploads" or a path)."""
    text = spec.strip()
    if text in ("", "database", "db"):
        return None
    if text.startswith("s3://"):
        from teamchat.store.blobs_s3 import S3BlobStore

        return S3BlobStore.from_url(text, endpoint_url=s3_endpoint_url, region=s3_region)
    if "://" in text and not text.startswith("file://"):
        raise BlobStoreError(f"{spec!r}: uploads go to database, a directory or s3://bucket/prefix")
    return DirectoryBlobStore(Path(text.removeprefix("file://")).expanduser().absolute())


class AsyncBlobs:
    """A BlobStore for coroutines: every call runs in a worker thread."""

    def __init__(self, store: BlobStore) -> None:
        self.store = store
        self.description = store.description

    async def put(self, key: str, source: IO[bytes], content_type: str) -> int:
        return await asyncio.to_thread(self.store.put, key, source, content_type)

    async def put_bytes(self, key: str, data: bytes, content_type: str) -> int:
        from io import BytesIO

        return await self.put(key, BytesIO(data), content_type)

    async def get(self, key: str) -> bytes | None:
        return await asyncio.to_thread(self.store.get, key)

    async def stream(self, key: str) -> AsyncIterator[bytes]:
        """The bytes under `key` chunk by chunk (nothing if there are none)."""
        chunks = await asyncio.to_thread(self.store.chunks, key)
        if chunks is None:
            return
        try:
            while (chunk := await asyncio.to_thread(next, chunks, None)) is not None:
                yield chunk
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                await asyncio.to_thread(close)

    async def delete(self, keys: Iterable[str]) -> None:
        await asyncio.to_thread(self.store.delete, list(keys))

    async def check(self) -> None:
        await asyncio.to_thread(self.store.check)

    async def close(self) -> None:
        await asyncio.to_thread(self.store.close)

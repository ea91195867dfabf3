"""Upload bytes in an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, Garage...), via boto3.

Installed with `pip install 'teamchat[s3]'`. Credentials come from boto3's usual chain (the
AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN variables, ~/.aws, an instance
role). The bucket stays private: the server reads objects and serves them itself.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterable, Iterator
from typing import IO, Any

from teamchat.store.blobs import CHUNK_BYTES, BlobStoreError, check_key

# S3 deletes at most this many keys per DeleteObjects request.
_DELETE_BATCH = 1000


def _client(endpoint_url: str | None, region: str | None) -> Any:
    try:
        import boto3
        from botocore.config import Config
    except ImportError:  # pragma: no cover (the s3 extra is installed in the tests)
        raise BlobStoreError("uploads in S3 need boto3: pip install 'teamchat[s3]'") from None
    config = Config(
        signature_version="s3v4",
        retries={"max_attempts": 5, "mode": "standard"},
        # Checksums only where S3 requires them: several S3-compatible servers reject the
        # newer default trailing checksums.
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
        max_pool_connections=32,
    )
    session = boto3.session.Session()
    return session.client("s3", endpoint_url=endpoint_url, region_name=region, config=config)


class S3BlobStore:
    """Keys as objects under `prefix` in one bucket."""

    def __init__(self, client: Any, bucket: str, prefix: str) -> None:
        self._client = client
        self.bucket = bucket
        self.prefix = prefix
        self.description = f"s3://{bucket}/{prefix}".rstrip("/")

    @classmethod
    def from_url(
        cls, url: str, *, endpoint_url: str | None = None, region: str | None = None
    ) -> S3BlobStore:
        """The store for "s3://bucket[/prefix]"."""
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "s3" or not parts.netloc or parts.query or parts.fragment:
            raise BlobStoreError(f"{url!r} is not s3://bucket/prefix")
        prefix = parts.path.strip("/")
        try:
            if prefix:
                check_key(prefix)
        except ValueError:
            raise BlobStoreError(f"{url!r}: the prefix must be a plain path") from None
        return cls(_client(endpoint_url, region), parts.netloc, f"{prefix}/" if prefix else "")

    def _name(self, key: str) -> str:
        return self.prefix + check_key(key)

    def check(self) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self._client.head_bucket(Bucket=self.bucket)
        except (BotoCoreError, ClientError) as error:
            raise BlobStoreError(f"cannot use {self.description}: {error}") from None

    def put(self, key: str, source: IO[bytes], content_type: str) -> int:
        start = source.tell()
        size = source.seek(0, 2) - start
        source.seek(start)
        # upload_fileobj sends big files in parts, several at a time; one object appears
        # whole when the upload completes (S3 writes are atomic per object). It may close
        # `source` when done.
        self._client.upload_fileobj(
            source, self.bucket, self._name(key), ExtraArgs={"ContentType": content_type}
        )
        return size

    def get(self, key: str) -> bytes | None:
        body = self._open(key)
        if body is None:
            return None
        with body:
            data: bytes = body.read()
        return data

    def _open(self, key: str) -> Any:
        try:
            answer = self._client.get_object(Bucket=self.bucket, Key=self._name(key))
        except self._client.exceptions.NoSuchKey:
            return None
        return answer["Body"]

    def chunks(self, key: str, chunk_bytes: int = CHUNK_BYTES) -> Iterator[bytes] | None:
        body = self._open(key)
        if body is None:
            return None
        return _read_body(body, chunk_bytes)

    def delete(self, keys: Iterable[str]) -> None:
        names = [self._name(key) for key in keys]
        for start in range(0, len(names), _DELETE_BATCH):
            batch = names[start : start + _DELETE_BATCH]
            answer = self._client.delete_objects(
                Bucket=self.bucket,
                Delete={"Objects": [{"Key": name} for name in batch], "Quiet": True},
            )
            errors = answer.get("Errors") or []
            if errors:
                raise BlobStoreError(f"{len(errors)} objects not deleted: {errors[0]}")

    def keys(self, prefix: str = "") -> Iterator[str]:
        pages = self._client.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=self.prefix + prefix
        )
        for page in pages:
            for item in page.get("Contents") or []:
                yield str(item["Key"])[len(self.prefix) :]

    def close(self) -> None:
        self._client.close()


def _read_body(body: Any, chunk_bytes: int) -> Iterator[bytes]:
    with body:
        while chunk := body.read(chunk_bytes):
            yield chunk

"""A local S3-compatible server for the tests: moto's server mode in a separate process.

`s3_endpoint` starts one per test session on a free loopback port (skipped, with the reason,
only if moto's server cannot be imported); `S3_ENV` are the fake credentials both the tests'
clients and the servers under test use.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.server import free_port

S3_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    # No instance-metadata lookups, no ~/.aws of whoever runs the tests.
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_CONFIG_FILE": os.devnull,
    "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
}


def _start_moto() -> tuple[subprocess.Popen[bytes], str]:
    try:
        import moto.server  # noqa: F401
    except ImportError as error:
        pytest.skip(f"moto's S3 server is not installed (pip install 'moto[server]'): {error}")
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **S3_ENV},
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(url + "/moto-api/", timeout=1)
            return process, url
        except httpx.TransportError:
            if process.poll() is not None:
                break
            time.sleep(0.1)
    process.kill()
    process.wait()
    raise RuntimeError("moto's S3 server did not start")


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """The URL of a running S3-compatible server (moto), for the whole session."""
    process, url = _start_moto()
    yield url
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def s3_client(endpoint: str) -> Any:
    """A boto3 client of the test server."""
    import boto3

    return boto3.session.Session(
        aws_access_key_id=S3_ENV["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=S3_ENV["AWS_SECRET_ACCESS_KEY"],
        region_name=S3_ENV["AWS_DEFAULT_REGION"],
    ).client("s3", endpoint_url=endpoint)


def new_bucket(endpoint: str) -> str:
    """Create an empty bucket with a fresh name; return the name."""
    name = f"teamchat-{secrets.token_hex(6)}"
    s3_client(endpoint).create_bucket(Bucket=name)
    return name


def object_keys(endpoint: str, bucket: str, prefix: str = "") -> list[str]:
    pages = (
        s3_client(endpoint).get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    )
    return sorted(item["Key"] for page in pages for item in page.get("Contents") or [])


def server_env(endpoint: str, bucket: str, prefix: str = "chat") -> dict[str, str]:
    """The environment of a `teamchat serve` keeping its uploads in `bucket`."""
    return {
        **S3_ENV,
        "TEAMCHAT_UPLOADS": f"s3://{bucket}/{prefix}",
        "TEAMCHAT_S3_ENDPOINT_URL": endpoint,
    }

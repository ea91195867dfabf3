"""Helpers for custom emoji tests: tiny images built by hand, uploads, users with a role."""

from __future__ import annotations

import re
import struct
import zlib
from typing import Any

import httpx

from tests.conftest import TEST_PASSWORD, unique_email
from tests.support.api import Api, assert_success
from tests.support.server import ServerProcess, cli

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
_GIF_HEADER = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff"
_GIF_LOOP = b"!\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
_GIF_FRAME = b"!\xf9\x04\x04\x0a\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00"


def gif(frames: int = 1) -> bytes:
    """A 1x1 GIF with `frames` frames (animated, looping, when more than one)."""
    loop = _GIF_LOOP if frames > 1 else b""
    return _GIF_HEADER + loop + _GIF_FRAME * frames + b";"


def first_gif_frame() -> bytes:
    """What the still of `gif(n)` must be: the header, the loop block, one frame."""
    return _GIF_HEADER + _GIF_LOOP + _GIF_FRAME + b";"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def apng(frames: int = 2) -> tuple[bytes, bytes]:
    """A 1x1 animated PNG with `frames` frames, and the plain PNG of its first frame."""
    signature = b"\x89PNG\r\n\x1a\n"
    ihdr = _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0))
    pixel = zlib.compress(b"\x00\xff\x00\x00\xff")
    idat, iend = _chunk(b"IDAT", pixel), _chunk(b"IEND", b"")
    control = struct.pack(">IIIIHHBB", 1, 1, 0, 0, 1, 10, 0, 0)
    animated = [
        _chunk(b"acTL", struct.pack(">II", frames, 0)),
        _chunk(b"fcTL", b"\0\0\0\0" + control),
    ]
    later = []
    for index in range(1, frames):
        later.append(_chunk(b"fcTL", struct.pack(">I", 2 * index - 1) + control))
        later.append(_chunk(b"fdAT", struct.pack(">I", 2 * index) + pixel))
    whole = signature + ihdr + b"".join(animated) + idat + b"".join(later) + iend
    return whole, signature + ihdr + idat + iend


def upload(
    api: Api,
    name: str,
    data: bytes = PNG,
    content_type: str | None = "image/png",
    file_name: str = "emoji.png",
    field: str = "f1",
    **params: str,
) -> httpx.Response:
    """POST /realm/emoji/{name} with one file (no Content-Type for the part if None)."""
    part: tuple[Any, ...] = (
        (file_name, data) if content_type is None else (file_name, data, content_type)
    )
    return api.http.post(f"/realm/emoji/{name}", files={field: part}, data=params)


def upload_ok(api: Api, name: str, data: bytes = PNG, **kwargs: Any) -> dict[str, Any]:
    """Upload, assert success, and return the new emoji's entry from GET /realm/emoji."""
    assert_success(upload(api, name, data, **kwargs), "POST", f"/realm/emoji/{name}")
    return active_by_name(api)[name]


def active_by_name(api: Api) -> dict[str, dict[str, Any]]:
    emoji = api.ok("GET", "/realm/emoji")["emoji"]
    return {e["name"]: e for e in emoji.values() if not e["deactivated"]}


def user_with_role(server: ServerProcess, role: str) -> Api:
    """Create a user with `role` through the CLI and log them in with their password."""
    email = unique_email(role)
    cli(
        server.db, "admin", "create-user", "--email", email, "--full-name", role.title(),
        "--password", TEST_PASSWORD, "--role", role,
    )  # fmt: skip
    with Api(server.url) as anonymous:
        body = assert_success(
            anonymous.post("/fetch_api_key", username=email, password=TEST_PASSWORD)
        )
    api = Api(server.url, email, body["api_key"])
    api.user_id = body["user_id"]  # type: ignore[attr-defined]
    return api


def bot(server: ServerProcess) -> Api:
    """Create a generic bot through the CLI; return an Api authenticated as it."""
    email = unique_email("bot")
    result = cli(server.db, "admin", "create-user", "--email", email, "--full-name", "Bot", "--bot")
    [api_key] = re.findall(r"api_key=(\S+)", result.stdout)
    return Api(server.url, email, api_key)


def queue_events(api: Api, queue: dict[str, Any]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = api.ok(
        "GET", "/events", queue_id=queue["queue_id"], last_event_id=-1, dont_block=True
    )["events"]
    return events

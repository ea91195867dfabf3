"""The "Unknown user" avatar: a grey silhouette PNG drawn here, so no image file is shipped."""

from __future__ import annotations

import functools
import struct
import zlib

SIZE_PX = 100
_BACKGROUND, _FIGURE = 0xE0, 0x9E  # grey levels


def _inside(x: int, y: int) -> bool:
    """Whether the pixel is on the head (a circle) or the shoulders (an ellipse)."""
    head = (x - 50) ** 2 + (y - 38) ** 2 <= 19**2
    shoulders = ((x - 50) / 36) ** 2 + ((y - 100) / 36) ** 2 <= 1
    return head or shoulders


def _chunk(tag: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(tag + data)
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)


@functools.cache
def unknown_user_avatar_png() -> bytes:
    """A SIZE_PX-square 8-bit greyscale PNG."""
    rows = b"".join(
        b"\x00" + bytes(_FIGURE if _inside(x, y) else _BACKGROUND for x in range(SIZE_PX))
        for y in range(SIZE_PX)
    )
    header = struct.pack(">IIBBBBB", SIZE_PX, SIZE_PX, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(rows, 9))
        + _chunk(b"IEND", b"")
    )

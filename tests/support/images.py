"""Images made for tests: ordinary ones with Pillow, and hostile ones built byte by byte."""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image


def png(width: int, height: int, color: tuple[int, int, int] = (200, 40, 40)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), color).save(out, "PNG")
    return out.getvalue()


def jpeg(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.linear_gradient("L").resize((width, height)).convert("RGB").save(out, "JPEG")
    return out.getvalue()


def heic(width: int, height: int, orientation: int = 1) -> bytes:
    """A real HEIC photo, encoded by libheif (pillow-heif registers the HEIF writer)."""
    import pillow_heif

    pillow_heif.register_heif_opener()
    exif = Image.Exif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    picture = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    picture.save(out, "HEIF", quality=60, exif=exif.tobytes())
    return out.getvalue()


def heic_claiming(width: int, height: int) -> bytes:
    """A small HEIC whose header (its `ispe` box) claims `width` x `height` pixels."""
    data = bytearray(heic(320, 240))
    at = data.find(b"ispe")
    data[at + 8 : at + 16] = struct.pack(">II", width, height)
    return bytes(data)


def animated_gif(width: int = 64, height: int = 48, frames: int = 3) -> bytes:
    colors = [(index % 251, (index * 7) % 253, 100) for index in range(frames)]
    images = [Image.new("RGB", (width, height), color) for color in colors]
    out = io.BytesIO()
    images[0].save(out, "GIF", save_all=True, append_images=images[1:], duration=100, loop=0)
    return out.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png(ihdr: bytes, idat: bytes) -> bytes:
    chunks = _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + chunks


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that claims `width`x`height` pixels (8-bit grey) but carries almost no data."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 1024)
    return (
        b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")
    )


def decompression_bomb_png(side: int = 20_000) -> bytes:
    """A complete 1-bit PNG of `side`x`side` zero pixels: tiny on disk, 400 megapixels decoded."""
    ihdr = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    row = b"\x00" * (1 + (side + 7) // 8)
    compressor = zlib.compressobj(9)
    idat = b"".join(compressor.compress(row) for _ in range(side)) + compressor.flush()
    return (
        b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")
    )


def truncated_gif() -> bytes:
    """An animated GIF cut off in the middle of its first frame's data."""
    data = animated_gif(400, 300, frames=2)
    return data[: len(data) // 3]


SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    b'<script>alert(1)</script><rect width="10" height="10"/></svg>'
)

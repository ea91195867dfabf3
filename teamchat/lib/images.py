"""Image formats from their bytes, and the first frame of an animated GIF or APNG.

Pure byte parsing, no decoding (teamchat ships no imaging library): enough to know what an
upload really is and to cut a still out of an animation by copying its first frame.
"""

from __future__ import annotations

import struct

# Content type -> file extension, for the image formats custom emoji may use.
IMAGE_EXTENSIONS = {
    "image/png": ".png",
    "image/gif": ".gif",
    "image/jpeg": ".jpg",
    "image/webp": ".webp",
}

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# APNG chunks that describe the animation; without them a PNG shows its default image.
_APNG_CHUNKS = frozenset({b"acTL", b"fcTL", b"fdAT"})
_GIF_TRAILER = b"\x3b"


class _Truncated(Exception):
    pass


def sniff_image_type(data: bytes) -> str | None:
    """Return the content type the bytes really have (png, gif, jpeg, webp), or None."""
    if data.startswith(_PNG_SIGNATURE):
        return "image/png"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


# HEIF files are ISO base media files: an `ftyp` box first, whose brands name the codec. HEVC
# coded images ("heic") are what phone cameras write; AVIF shares the container, not the codec.
_HEIC_BRANDS = frozenset({b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx"})
_HEIF_BRANDS = frozenset({b"mif1", b"msf1"})
HEIF_SNIFF_BYTES = 64


def sniff_heic(data: bytes) -> str | None:
    """The type of a HEIC (HEVC-coded HEIF) file from its first HEIF_SNIFF_BYTES, or None."""
    if len(data) < 16 or data[4:8] != b"ftyp":
        return None
    size = min(struct.unpack(">I", data[:4])[0], len(data))
    brands = {data[pos : pos + 4] for pos in range(8, size - 3, 4) if pos != 12}
    if data[8:12] in _HEIC_BRANDS or (data[8:12] in _HEIF_BRANDS and brands & _HEIC_BRANDS):
        return "image/heic"
    return None


def still_image(content_type: str, data: bytes) -> bytes | None:
    """Return the first frame of an animated GIF or PNG, same format; None if not animated.

    Animated WebP gets None too: cutting a frame out of it is not implemented.
    """
    try:
        if content_type == "image/gif":
            return _gif_still(data)
        if content_type == "image/png":
            return _png_still(data)
    except (_Truncated, IndexError, struct.error):
        return None
    return None


def _gif_sub_blocks_end(data: bytes, pos: int) -> int:
    """Return the offset after a chain of GIF data sub-blocks starting at `pos`."""
    while True:
        if pos >= len(data):
            raise _Truncated
        size = data[pos]
        pos += 1 + size
        if size == 0:
            return pos


def _gif_color_table_size(packed: int) -> int:
    return 3 * (2 ** ((packed & 0x07) + 1)) if packed & 0x80 else 0


def _gif_frames(data: bytes) -> tuple[int, int]:
    """Return (number of frames, up to 2; offset after the first frame's image data)."""
    pos = 13 + _gif_color_table_size(data[10])
    frames, first_end = 0, 0
    while pos < len(data):
        marker = data[pos]
        if marker == 0x21:  # extension: label, then sub-blocks
            pos = _gif_sub_blocks_end(data, pos + 2)
        elif marker == 0x2C:  # image: descriptor, local colour table, LZW size, sub-blocks
            packed = data[pos + 9]
            pos = _gif_sub_blocks_end(data, pos + 10 + _gif_color_table_size(packed) + 1)
            frames += 1
            first_end = first_end or pos
            if frames > 1:  # animated: no need to walk the rest
                break
        elif marker == 0x3B:
            break
        else:
            raise _Truncated
    return frames, first_end


def _gif_still(data: bytes) -> bytes | None:
    if len(data) < 13:
        raise _Truncated
    frames, first_end = _gif_frames(data)
    if frames < 2:
        return None
    return data[:first_end] + _GIF_TRAILER


def _png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """Return (type, whole chunk bytes) for every chunk of a PNG."""
    chunks, pos = [], len(_PNG_SIGNATURE)
    while pos < len(data):
        (length,) = struct.unpack_from(">I", data, pos)
        end = pos + 12 + length
        if end > len(data):
            raise _Truncated
        chunks.append((data[pos + 4 : pos + 8], data[pos:end]))
        pos = end
    return chunks


def _png_still(data: bytes) -> bytes | None:
    chunks = _png_chunks(data)
    actl = [chunk for kind, chunk in chunks if kind == b"acTL"]
    if not actl or struct.unpack_from(">I", actl[0], 8)[0] < 2:
        return None
    # Without the animation chunks, the default image (IDAT) is what remains: the first
    # frame, or the fallback picture the APNG shows to viewers that cannot animate.
    kept = [chunk for kind, chunk in chunks if kind not in _APNG_CHUNKS]
    return _PNG_SIGNATURE + b"".join(kept)

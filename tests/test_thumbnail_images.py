"""The thumbnailing library on its own: formats, header checks, bounds, EXIF rotation."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from teamchat.lib.images import sniff_heic
from teamchat.lib.thumbnails import (
    MAX_FRAMES,
    BadImageError,
    ThumbnailFormat,
    formats_for,
    make_thumbnails,
    probe,
    transcoded_name,
)
from tests.support import images


def test_format_names_round_trip() -> None:
    fmt = ThumbnailFormat.parse("840x560-anim.webp")
    assert fmt == ThumbnailFormat("webp", 840, 560, animated=True)
    assert fmt is not None and fmt.name == "840x560-anim.webp"
    assert ThumbnailFormat.parse("840x560.webp.exe") is None
    assert ThumbnailFormat.parse("../../etc/passwd") is None
    assert [f.name for f in formats_for(1)] == ["840x560.webp"]
    assert [f.name for f in formats_for(5)] == ["840x560-anim.webp", "840x560.webp"]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (images.decompression_bomb_png(), "exceeds limit"),
        (images.png_header_only(10_000, 10_000), "exceeds limit"),
        (images.png_header_only(8_000, 7_000), "more than teamchat decodes"),
        (images.SVG, "not a PNG"),
        (b"GIF89a" + b"\0" * 5, "cannot identify"),
        (b"", "not a PNG"),
    ],
)
def test_probe_refuses_from_the_header(data: bytes, reason: str) -> None:
    with pytest.raises(BadImageError, match=reason):
        probe(data)


def test_truncated_image_passes_the_header_then_fails_to_decode() -> None:
    data = images.truncated_gif()
    info = probe(data)
    with pytest.raises(BadImageError):
        make_thumbnails(data, info)


def test_exif_rotation_swaps_the_dimensions_shown() -> None:
    out = io.BytesIO()
    exif = Image.Exif()
    exif[0x0112] = 6  # rotated 90 degrees
    Image.new("RGB", (1200, 600), (1, 2, 3)).save(out, "JPEG", exif=exif)
    info = probe(out.getvalue())
    assert (info.width, info.height) == (600, 1200)
    [thumb] = make_thumbnails(out.getvalue(), info)
    assert (thumb.width, thumb.height) == (280, 560)


def test_small_images_are_not_enlarged_and_keep_transparency() -> None:
    out = io.BytesIO()
    Image.new("RGBA", (40, 30), (0, 0, 0, 0)).save(out, "PNG")
    [thumb] = make_thumbnails(out.getvalue(), probe(out.getvalue()))
    decoded = Image.open(io.BytesIO(thumb.data))
    assert decoded.size == (40, 30) and decoded.mode == "RGBA"


def test_long_animations_are_cut_short() -> None:
    data = images.animated_gif(16, 16, frames=MAX_FRAMES + 20)
    info = probe(data)
    animated, still = make_thumbnails(data, info)
    assert Image.open(io.BytesIO(animated.data)).n_frames == MAX_FRAMES
    assert Image.open(io.BytesIO(still.data)).n_frames == 1


def test_heic_photos_are_probed_and_thumbnailed() -> None:
    data = images.heic(1200, 900)
    info = probe(data)
    assert (info.content_type, info.width, info.height, info.frames) == ("image/heic", 1200, 900, 1)
    thumb, full = make_thumbnails(data, info)
    assert (thumb.format.name, thumb.content_type) == ("840x560.webp", "image/webp")
    assert (thumb.width, thumb.height) == (747, 560)
    assert Image.open(io.BytesIO(thumb.data)).size == (747, 560)
    # zulip-compat: browsers do not show HEIC, so the full picture is made in WebP too.
    assert (full.format.name, full.width, full.height) == ("4032x3024.webp", 1200, 900)
    assert Image.open(io.BytesIO(full.data)).format == "WEBP"
    portrait = formats_for(1, "image/heic", 3000, 4000)
    assert [f.name for f in portrait] == ["840x560.webp", "3024x4032.webp"]
    assert [f.name for f in formats_for(1, "image/jpeg", 3000, 4000)] == ["840x560.webp"]
    assert transcoded_name("image/heic", ("840x560.webp", "4032x3024.webp")) == "4032x3024.webp"
    assert transcoded_name("image/png", ("840x560.webp",)) is None
    # libheif applies the rotation itself: the size shown is turned once, not twice.
    turned = probe(images.heic(640, 320, orientation=6))
    assert (turned.width, turned.height) == (320, 640)


def test_malformed_heic_is_refused() -> None:
    data = images.heic(320, 240)
    for broken in (data[:40], data[: len(data) // 2], data[:24] + b"\0" * 200):
        with pytest.raises(BadImageError):
            make_thumbnails(broken, probe(broken))
    # A decompression bomb is refused from its header, before libheif decodes a pixel.
    with pytest.raises(BadImageError, match="more than teamchat decodes"):
        probe(images.heic_claiming(8_000, 7_000))
    # An ISO media file of another codec (AVIF's brands) is not taken for a HEIC.
    avif = b"\0\0\0\x1cftypavif\0\0\0\0avifmif1miaf" + data[28:]
    with pytest.raises(BadImageError, match="not a PNG, GIF, JPEG, WebP or HEIC"):
        probe(avif)
    assert sniff_heic(b"\0\0\0\x18ftypmif1\0\0\0\0mif1heic") == "image/heic"
    assert sniff_heic(b"\0\0\0\x14ftypmif1\0\0\0\0mif1") is None

"""teamchat.lib.images: image types from bytes, and stills of animated GIFs and PNGs."""

from __future__ import annotations

import pytest

from teamchat.lib import images
from tests.support.realm_emoji import PNG, apng, first_gif_frame, gif


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (PNG, "image/png"),
        (gif(), "image/gif"),
        (b"GIF87a" + b"\0" * 10, "image/gif"),
        (b"\xff\xd8\xff\xe0\0\x10JFIF", "image/jpeg"),
        (b"RIFF\x24\0\0\0WEBPVP8 ", "image/webp"),
        (b"RIFF\x24\0\0\0WAVEfmt ", None),
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", None),
        (b"", None),
    ],
)
def test_sniff_image_type(data: bytes, expected: str | None) -> None:
    assert images.sniff_image_type(data) == expected


def test_animated_gif_still_is_its_first_frame() -> None:
    still = images.still_image("image/gif", gif(4))
    assert still == first_gif_frame()
    assert images.still_image("image/gif", still) is None  # one frame: not animated


def test_animated_png_still_drops_the_animation_chunks() -> None:
    animated, first_frame = apng(3)
    assert images.still_image("image/png", animated) == first_frame
    assert images.still_image("image/png", first_frame) is None
    assert images.still_image("image/png", PNG) is None


def test_single_frame_apng_and_other_types_have_no_still() -> None:
    assert images.still_image("image/png", apng(1)[0]) is None
    assert images.still_image("image/jpeg", gif(3)) is None
    assert images.still_image("image/webp", b"RIFF\0\0\0\0WEBP") is None


@pytest.mark.parametrize("content_type", ["image/gif", "image/png"])
def test_truncated_or_corrupt_images_never_raise(content_type: str) -> None:
    data = gif(3) if content_type == "image/gif" else apng(3)[0]
    for length in range(len(data)):
        images.still_image(content_type, data[:length])
    corrupt = bytearray(data)
    corrupt[20] = 0x99
    images.still_image(content_type, bytes(corrupt))

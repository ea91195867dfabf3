"""Image thumbnails as Zulip 9+ makes them: the formats, reading an upload's header, and making
each thumbnail with Pillow. Pure functions over bytes; the caller runs them off the event loop.

Untrusted images are bounded before any pixel is decoded: only PNG, GIF, JPEG, WebP and HEIC
(libheif, through pillow-heif) decoders are allowed, the header's dimensions are checked
against MAX_PIXELS (a decompression bomb is refused from its header alone), and animations
decode at most ANIMATION_MAX_PIXELS.
"""

from __future__ import annotations

import functools
import io
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from teamchat.lib.images import HEIF_SNIFF_BYTES, sniff_heic, sniff_image_type
from teamchat.lib.lazy import lazy_module

if TYPE_CHECKING:
    import PIL
    import pillow_heif
    from PIL import Image, ImageOps, ImageSequence
else:  # Pillow and libheif: imported by the first upload that is an image
    PIL = lazy_module("PIL")
    Image = lazy_module("PIL.Image")
    ImageOps = lazy_module("PIL.ImageOps")
    ImageSequence = lazy_module("PIL.ImageSequence")
    pillow_heif = lazy_module("pillow_heif")

# zulip-compat: Zulip refuses images above 90 million pixels; a decoded RGBA image of that size
# takes 360 MB, so teamchat stops at 50 million (an 8160x6120 phone photo still fits).
MAX_PIXELS: Final = 50_000_000
# zulip-compat: like Zulip, an animation may spend a third of the budget on its frames; longer
# animations are cut short (the thumbnail plays the frames that fit).
ANIMATION_MAX_PIXELS: Final = MAX_PIXELS // 3
MAX_FRAMES: Final = 300
WEBP_QUALITY: Final = 80
_DECODERS: Final = ("PNG", "GIF", "JPEG", "WEBP", "HEIF")
_FORMAT_RE = re.compile(r"(\d+)x(\d+)(-anim)?\.(\w+)")


@dataclass(frozen=True)
class ThumbnailFormat:
    """One size and file format of thumbnail, named like Zulip's (`840x560-anim.webp`)."""

    extension: str
    max_width: int
    max_height: int
    animated: bool

    @property
    def name(self) -> str:
        animated = "-anim" if self.animated else ""
        return f"{self.max_width}x{self.max_height}{animated}.{self.extension}"

    @classmethod
    def parse(cls, name: str) -> ThumbnailFormat | None:
        """Read a format name (`840x560.webp`); None when it is not one."""
        found = _FORMAT_RE.fullmatch(name)
        if found is None:
            return None
        width, height, anim, extension = found.groups()
        return cls(extension, int(width), int(height), anim is not None)


# zulip-compat: Zulip's THUMBNAIL_OUTPUT_FORMATS; the first animated and the first still format
# are the ones written into rendered messages.
THUMBNAIL_FORMATS: Final = (
    ThumbnailFormat("webp", 840, 560, animated=True),
    ThumbnailFormat("webp", 840, 560, animated=False),
)


# zulip-compat: TRANSCODED_IMAGE_FORMAT, made besides the thumbnails for image types browsers
# do not show (HEIC): the full picture in WebP, at most this size (turned for a portrait).
TRANSCODED_FORMAT: Final = ThumbnailFormat("webp", 4032, 3024, animated=False)
# zulip-compat: the image types of INLINE_MIME_TYPES that teamchat decodes.
BROWSER_IMAGE_TYPES: Final = frozenset({"image/png", "image/gif", "image/jpeg", "image/webp"})


def server_thumbnail_formats() -> list[dict[str, object]]:
    """`server_thumbnail_formats` of POST /register."""
    return [
        {"name": f.name, "max_width": f.max_width, "max_height": f.max_height,
         "format": f.extension, "animated": f.animated}
        for f in THUMBNAIL_FORMATS
    ]  # fmt: skip


def default_format(animated: bool) -> ThumbnailFormat:
    """The format a rendered message points at for a still or an animated image."""
    return next(f for f in THUMBNAIL_FORMATS if f.animated == animated)


def formats_for(
    frames: int, content_type: str = "image/png", width: int = 1, height: int = 1
) -> tuple[ThumbnailFormat, ...]:
    """The formats made for an image of `frames` frames (animated ones only for animations),
    plus the transcoded full picture for a type browsers do not show (Zulip's
    missing_thumbnails)."""
    made = tuple(f for f in THUMBNAIL_FORMATS if frames > 1 or not f.animated)
    if content_type in BROWSER_IMAGE_TYPES:
        return made
    big = TRANSCODED_FORMAT
    if height > width:
        big = ThumbnailFormat(big.extension, big.max_height, big.max_width, big.animated)
    return (*made, big)


def transcoded_name(content_type: str, names: tuple[str, ...]) -> str | None:
    """The format name of the transcoded full picture among an image's stored thumbnails
    (Zulip's get_transcoded_format: the largest one made), or None for browser types."""
    if content_type in BROWSER_IMAGE_TYPES:
        return None
    stored = [f for f in map(ThumbnailFormat.parse, names) if f is not None]
    return max(stored, key=lambda f: f.max_width * f.max_height).name if stored else None


@dataclass(frozen=True)
class ImageInfo:
    """What an image's header says: its type, size as shown (after EXIF rotation), frames."""

    content_type: str
    width: int
    height: int
    frames: int


@dataclass(frozen=True)
class Thumbnail:
    format: ThumbnailFormat
    content_type: str
    width: int
    height: int
    data: bytes


class BadImageError(Exception):
    """The bytes are not an image teamchat thumbnails, or one too large to decode."""


@functools.cache
def _register_heif_opener() -> None:
    # libheif keeps its own limits on image size and memory (security limits, left on); it
    # applies a HEIC's rotation itself and reports orientation 1, so probe() never turns it twice.
    pillow_heif.register_heif_opener()


def _open(data: bytes) -> Image.Image:
    _register_heif_opener()
    try:
        return Image.open(io.BytesIO(data), formats=_DECODERS)
    except (PIL.UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError) as error:
        raise BadImageError(str(error)) from None
    # Pillow's own bomb check (above 89 million pixels: a warning, above twice that: an
    # error) runs first; probe() then refuses every image over MAX_PIXELS from its header.
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        # the warning is raised where warnings are errors
        raise BadImageError(str(error)) from None


def probe(data: bytes) -> ImageInfo:
    """Read only the header of `data`: an ImageInfo, or BadImageError (not an image we decode,
    or more pixels than MAX_PIXELS)."""
    content_type = sniff_image_type(data[:16]) or sniff_heic(data[:HEIF_SNIFF_BYTES])
    if content_type is None:
        raise BadImageError("not a PNG, GIF, JPEG, WebP or HEIC image")
    with _open(data) as image:
        width, height = image.size
        if width < 1 or height < 1 or width * height > MAX_PIXELS:
            raise BadImageError(f"{width}x{height} pixels is more than teamchat decodes")
        try:
            frames = int(getattr(image, "n_frames", 1))
            orientation = image.getexif().get(0x0112, 1)
        except (OSError, ValueError, SyntaxError, EOFError) as error:
            raise BadImageError(str(error)) from None
    if orientation in (5, 6, 7, 8):
        width, height = height, width
    return ImageInfo(content_type=content_type, width=width, height=height, frames=frames)


def make_thumbnails(data: bytes, info: ImageInfo) -> list[Thumbnail]:
    """Every thumbnail `formats_for(info.frames)` lists; BadImageError if decoding fails
    (truncated or corrupt data)."""
    try:
        formats = formats_for(info.frames, info.content_type, info.width, info.height)
        return [_make(data, info, fmt) for fmt in formats]
    except (OSError, ValueError, SyntaxError, EOFError) as error:
        raise BadImageError(str(error)) from None


def _make(data: bytes, info: ImageInfo, fmt: ThumbnailFormat) -> Thumbnail:
    out = io.BytesIO()
    with _open(data) as image:
        if fmt.animated:
            frames, durations = _animation_frames(image, info, fmt)
            first = frames[0]
            first.save(
                out, "WEBP", save_all=True, append_images=frames[1:], duration=durations,
                loop=int(image.info.get("loop", 0)), quality=WEBP_QUALITY,
            )  # fmt: skip
        else:
            # A JPEG decodes at the smallest scale that still covers the thumbnail (draft).
            image.draft("RGB", (fmt.max_width, fmt.max_height))
            first = _fit(ImageOps.exif_transpose(image), fmt)
            first.save(out, "WEBP", quality=WEBP_QUALITY)
    return Thumbnail(
        format=fmt,
        content_type="image/webp",
        width=first.width,
        height=first.height,
        data=out.getvalue(),
    )


def _fit(image: Image.Image, fmt: ThumbnailFormat) -> Image.Image:
    """A copy of `image` in RGB(A), shrunk to fit the format (never enlarged)."""
    has_alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
    converted = image.convert("RGBA" if has_alpha else "RGB")
    converted.thumbnail((fmt.max_width, fmt.max_height), Image.Resampling.LANCZOS)
    return converted


def _animation_frames(
    image: Image.Image, info: ImageInfo, fmt: ThumbnailFormat
) -> tuple[list[Image.Image], list[int]]:
    budget = max(1, ANIMATION_MAX_PIXELS // (info.width * info.height))
    frames: list[Image.Image] = []
    durations: list[int] = []
    for frame in ImageSequence.Iterator(image):
        if len(frames) >= min(budget, MAX_FRAMES):
            break
        durations.append(int(frame.info.get("duration", 100)) or 100)
        frames.append(_fit(frame, fmt))
    return frames, durations


__all__ = [
    "ANIMATION_MAX_PIXELS",
    "BROWSER_IMAGE_TYPES",
    "MAX_PIXELS",
    "THUMBNAIL_FORMATS",
    "TRANSCODED_FORMAT",
    "BadImageError",
    "ImageInfo",
    "Thumbnail",
    "ThumbnailFormat",
    "default_format",
    "formats_for",
    "make_thumbnails",
    "probe",
    "server_thumbnail_formats",
    "transcoded_name",
]

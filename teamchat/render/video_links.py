"""Links to videos on YouTube and Vimeo, as Zulip's server recognizes them.

A YouTube link gets Zulip's inline video preview right after its paragraph (the link itself
stays): `<div class="youtube-video message_inline_image"><a data-id=ID href=URL><img
src=(camo URL of https://i.ytimg.com/vi/ID/mqdefault.jpg)></a></div>`. Vimeo has no thumbnail
address that can be computed from the link, so, as in Zulip, a Vimeo preview needs the
video's oEmbed data and is added by the URL-preview action (`embed_video_html` here); the
renderer only recognizes the link (`vimeo_id`). Pure functions: no I/O.
"""

from __future__ import annotations

import re
from html import escape
from typing import Final
from urllib.parse import parse_qs, urlsplit

# zulip-compat: InlineInterestingLinkProcessor.youtube_id's hosts and URL shapes.
_YOUTUBE_HOSTS: Final = frozenset(
    {
        *("m.youtube.com", "www.youtube.com", "youtube.com"),
        *("www.youtube-nocookie.com", "youtube-nocookie.com"),
    }
)
_VIDEO_ID_RE: Final = re.compile(r"[0-9A-Za-z_-]+")
# zulip-compat: InlineInterestingLinkProcessor.vimeo_id's pattern (the id is the 5th group).
_VIMEO_RE: Final = re.compile(
    r"^((http|https)?:\/\/(www\.)?vimeo.com\/"
    r"(?:channels\/(?:\w+\/)?|groups\/([^\/]*)\/videos\/|)(\d+)(?:|\/\?))$"
)
YOUTUBE_PREVIEW_CLASS: Final = "youtube-video message_inline_image"
EMBED_VIDEO_CLASS: Final = "embed-video message_inline_image"


def youtube_id(url: str) -> str | None:
    """The video id of a YouTube link (watch?v=, watch_videos, embed/, shorts/, v/, youtu.be/),
    or None. Playlists without a video and channel pages have none."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme not in ("http", "https"):
        return None
    found: str | None = None
    if host in _YOUTUBE_HOSTS:
        query = parse_qs(parts.query)
        if parts.path in ("/watch", "/watch_popup") and "v" in query:
            found = query["v"][0]
        elif parts.path == "/watch_videos" and "video_ids" in query:
            found = query["video_ids"][0].split(",", 1)[0]
        elif parts.path.startswith(("/embed/", "/shorts/", "/v/")):
            found = parts.path.split("/", 3)[2]
    elif host == "youtu.be" and parts.path.startswith("/"):
        found = parts.path.removeprefix("/")
    return found if found is not None and _VIDEO_ID_RE.fullmatch(found) else None


def youtube_thumbnail(video_id: str) -> str:
    """The address of a YouTube video's small still image (proxied through camo when shown)."""
    # zulip-compat: current Zulip shows the 320x180 still (mqdefault; older servers 120x90).
    return f"https://i.ytimg.com/vi/{video_id}/mqdefault.jpg"


def vimeo_id(url: str) -> str | None:
    """The numeric id of a Vimeo video page link, or None."""
    match = _VIMEO_RE.match(url)
    return None if match is None else match.group(5)


def oembed_title(provider: str, title: str | None) -> str | None:
    """The text Zulip puts in place of a bare video link once it knows the title."""
    return None if title is None else f"{provider} - {title}"


def embed_video_html(url: str, image_src: str, title: str | None, player_html: str) -> str:
    """Zulip's oEmbed video preview (add_oembed_data, type "video"): the still image
    (`image_src`, our camo URL) linked to the page, with the provider's player markup in
    `data-id` (clients that play it in place sandbox it; ours opens the page instead)."""
    attrs = {"data-id": player_html, "href": url}
    if title is not None:
        attrs["title"] = title
    pairs = sorted(attrs.items())
    link = " ".join(f'{name}="{escape(value, quote=True)}"' for name, value in pairs)
    return (
        f'<div class="{EMBED_VIDEO_CLASS}"><a {link}>'
        f'<img src="{escape(image_src, quote=True)}"></a></div>'
    )


__all__ = [
    "EMBED_VIDEO_CLASS",
    "YOUTUBE_PREVIEW_CLASS",
    "embed_video_html",
    "oembed_title",
    "vimeo_id",
    "youtube_id",
    "youtube_thumbnail",
]

"""oEmbed (https://oembed.com) for the video sites Zulip previews: which endpoint describes a
link, and what its JSON answer says. Pure functions; the URL-preview action fetches.

Zulip asks the provider named in the oEmbed provider list for any link that matches one of
its URL schemes (`maxwidth=640`, `maxheight=480`); a "video" answer with a player and a
thumbnail becomes Zulip's `embed-video` preview, a "photo" answer an inline image, anything
else only lends its title. teamchat knows the two video providers whose links Zulip treats
specially, YouTube and Vimeo, with their schemes from that list.
"""

from __future__ import annotations

import json
import re
from typing import Final
from urllib.parse import urlencode, urlsplit

import msgspec

MAX_PLAYER_HTML_CHARS: Final = 2000
MAX_TITLE_CHARS: Final = 300
MAX_URL_CHARS: Final = 2000
# Provider list schemes, with `*` as any text, `://*.` as "with or without a subdomain",
# and http or https either way (as Zulip's scheme_to_regex reads them).
_YOUTUBE_SCHEMES: Final = (
    *("://*.youtube.com/watch*", "://*.youtube.com/v/*", "://youtu.be/*"),
    *("://*.youtube.com/playlist?list=*", "://*.youtube.com/shorts*"),
    *("://*.youtube.com/embed/*", "://*.youtube.com/live*"),
)
_VIMEO_SCHEMES: Final = (
    *("://vimeo.com/*", "://vimeo.com/album/*/video/*", "://vimeo.com/channels/*/*"),
    *("://vimeo.com/groups/*/videos/*", "://vimeo.com/ondemand/*/*"),
    "://player.vimeo.com/video/*",
)


def _scheme_re(schemes: tuple[str, ...]) -> re.Pattern[str]:
    variants = []
    for scheme in schemes:
        hosts = [scheme, scheme.replace("://*.", "://", 1)] if "://*." in scheme else [scheme]
        for host in hosts:
            pattern = re.escape(host).replace(r"\*", ".*")
            variants.append(pattern if host.endswith("*") else pattern + "$")
    return re.compile(r"https?(?:" + "|".join(variants) + ")")


PROVIDERS: Final = (
    ("YouTube", _scheme_re(_YOUTUBE_SCHEMES), "https://www.youtube.com/oembed"),
    ("Vimeo", _scheme_re(_VIMEO_SCHEMES), "https://vimeo.com/api/oembed.json"),
)


class OEmbed(msgspec.Struct, frozen=True, kw_only=True):
    """What a provider said about a link: `kind` "video" (with `player_html` and `image`, the
    thumbnail), "photo" (with `image`), or "link" (a title at most)."""

    kind: str
    title: str | None = None
    image: str = ""
    player_html: str = ""


def provider_of(url: str) -> tuple[str, str] | None:
    """(provider name, oEmbed request URL) for a link a known provider describes, or None."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    # zulip-compat: the scheme and host match in any case, the rest as written.
    normalized = parts._replace(scheme=parts.scheme.lower(), netloc=parts.netloc.lower())
    for name, scheme_re, endpoint in PROVIDERS:
        if scheme_re.match(normalized.geturl()):
            query = urlencode({"url": url, "maxwidth": 640, "maxheight": 480})
            return name, f"{endpoint}?{query}"
    return None


def _text(value: object, limit: int) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _web_url(value: object) -> str:
    if not isinstance(value, str) or len(value) > MAX_URL_CHARS:
        return ""
    return value if urlsplit(value).scheme in ("http", "https") else ""


def parse_oembed(body: bytes) -> OEmbed | None:
    """Read a provider's JSON answer (None if it is not an oEmbed object)."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    kind = data.get("type")
    title = _text(data.get("title"), MAX_TITLE_CHARS)
    image = _web_url(data.get("url", data.get("image")))
    thumbnail = _web_url(data.get("thumbnail_url"))
    player = data.get("html")
    if kind == "photo" and image:
        return OEmbed(kind="photo", title=title, image=image)
    if kind == "video" and isinstance(player, str) and player and thumbnail:
        # zulip-compat: strip_cdata, for providers that wrap the player in CDATA.
        if player.startswith("<![CDATA[") and player.endswith("]]>"):
            player = player[9:-3]
        if len(player) <= MAX_PLAYER_HTML_CHARS:
            return OEmbed(kind="video", title=title, image=thumbnail, player_html=player)
    return OEmbed(kind="link", title=title)


__all__ = ["PROVIDERS", "OEmbed", "parse_oembed", "provider_of"]

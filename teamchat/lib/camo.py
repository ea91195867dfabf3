"""Zulip's camo URLs: images from other sites are shown through our own origin, at
`/external_content/<HMAC-SHA1 hex digest of the URL>/<the URL's UTF-8 bytes in hex>`.

The digest is keyed by a server secret, so only URLs that the server itself put into a
rendered message can be fetched through it (no open proxy). Pure functions.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import Final

CAMO_PREFIX: Final = "/external_content/"
_HEX_RE = re.compile(r"[0-9a-f]+")
MAX_URL_CHARS: Final = 2000


def _digest(key: bytes, url: str) -> str:
    return hmac.new(key, url.encode(), hashlib.sha1).hexdigest()


def camo_url(key: bytes, url: str) -> str:
    """The path on our origin that shows the image at `url`."""
    # zulip-compat: zerver/lib/camo.py generate_camo_url: HMAC-SHA1 digest, then hex of the URL.
    return f"{CAMO_PREFIX}{_digest(key, url)}/{url.encode().hex()}"


def verified_url(key: bytes, digest: str, hex_url: str) -> str | None:
    """The URL a camo path names, if its digest is ours; None for anything else."""
    if not key or len(hex_url) > 2 * MAX_URL_CHARS * 4:
        return None
    if not _HEX_RE.fullmatch(digest) or not _HEX_RE.fullmatch(hex_url) or len(hex_url) % 2:
        return None
    try:
        url = bytes.fromhex(hex_url).decode()
    except (ValueError, UnicodeDecodeError):
        return None
    if not hmac.compare_digest(_digest(key, url), digest):
        return None
    return url


__all__ = ["CAMO_PREFIX", "camo_url", "verified_url"]

"""The web client's static files (teamchat/web/static), read once, under one version.

The version is a hash of every file's name and bytes; assets are served under
/static/<version>/..., so relative module imports stay cache-busted and can be cached for a year.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

STATIC_DIR = Path(__file__).resolve().parent.parent / "web" / "static"
# Module scripts must be served as JavaScript, whatever the system's mime.types says.
_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".woff2": "font/woff2",
}


@dataclass(frozen=True)
class Asset:
    content: bytes
    content_type: str
    gzipped: bytes  # made once at start-up: text compresses to about a third


@dataclass(frozen=True)
class Assets:
    version: str
    files: dict[str, Asset]

    def url(self, name: str) -> str:
        return f"/static/{self.version}/{name}"


def _content_type(path: Path) -> str:
    return (
        _TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    )


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an Accept-Encoding header allows gzip: named (or `*`) without `q=0`.

    No brotli: Python's standard library has no brotli encoder, and for this client (text,
    about 100 KB) gzip level 9 already sends under half of it."""
    weights: dict[str, float] = {}
    for item in accept_encoding.lower().split(","):
        coding, _, params = item.strip().partition(";")
        weight = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        weights[coding.strip()] = weight
    for coding in ("gzip", "x-gzip", "*"):
        if coding in weights:
            return weights[coding] > 0
    return False


@functools.cache
def web_assets() -> Assets:
    """Every static file by its path relative to the static folder, and their version."""
    digest = hashlib.sha256()
    files: dict[str, Asset] = {}
    for path in sorted(STATIC_DIR.rglob("*")):
        if not path.is_file():
            continue
        name = path.relative_to(STATIC_DIR).as_posix()
        content = path.read_bytes()
        digest.update(name.encode() + b"\0" + hashlib.sha256(content).digest())
        files[name] = Asset(content, _content_type(path), gzip.compress(content, 9, mtime=0))
    return Assets(version=digest.hexdigest()[:16], files=files)

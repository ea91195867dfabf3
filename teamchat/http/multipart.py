"""Streaming multipart/form-data: files spool to temporary files as they arrive.

Litestar's own form parsing holds the whole body in memory; uploads can be large, so the
upload endpoints read the request stream through python-multipart instead.
"""

from __future__ import annotations

import re
import tempfile
import urllib.parse
from dataclasses import dataclass, field
from typing import IO, Any

from litestar import Request
from litestar.exceptions.http_exceptions import RequestEntityTooLarge
from python_multipart.multipart import MultipartParser, parse_options_header

from teamchat.errors import ZulipError

SPOOL_MEMORY_BYTES = 1024 * 1024
# filename*=charset'language'percent-encoded (RFC 5987 / 8187); only UTF-8 and Latin-1 exist.
_FILENAME_STAR_RE = re.compile(
    rb"""(?:^|;)\s*filename\*\s*=\s*(?P<charset>utf-8|iso-8859-1)'[^']*'(?P<value>[^;\s]*)""",
    re.IGNORECASE,
)
_ANY_FILENAME_STAR_RE = re.compile(rb"(?:^|;)\s*filename\*\s*=", re.IGNORECASE)


@dataclass
class ReceivedFile:
    field_name: str
    file_name: str
    content_type: str
    data: IO[bytes]
    size: int = 0


@dataclass
class _Part:
    # Raw header values: names in them may be UTF-8 (RFC 7578) and must not be decoded early.
    headers: dict[str, bytes] = field(default_factory=dict)
    header_name: bytes = b""
    header_value: bytes = b""
    field_name: str = ""
    file: ReceivedFile | None = None
    value: bytearray = field(default_factory=bytearray)


def _decode_name(raw: bytes) -> str:
    """A name sent as raw bytes: UTF-8 (RFC 7578), else Latin-1 (what old clients send)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _file_name(raw_disposition: bytes, disposition: dict[bytes, bytes]) -> str | None:
    """The part's file name, None for a plain field; `filename*` (RFC 5987) wins."""
    extended = _FILENAME_STAR_RE.search(raw_disposition)
    if extended is not None:
        charset, encoded = extended["charset"].decode("ascii").lower(), extended["value"]
        try:
            return urllib.parse.unquote_to_bytes(encoded).decode(charset)
        except (LookupError, UnicodeDecodeError):
            pass  # a broken filename* falls back to the plain parameter
    if b"filename" in disposition:
        return _decode_name(disposition[b"filename"])
    if _ANY_FILENAME_STAR_RE.search(raw_disposition):
        return ""  # a file whose name cannot be read is still a file
    return None


class UploadTooLargeError(ZulipError):
    def __init__(self, max_mib: int) -> None:
        super().__init__(f"Uploaded file is larger than the allowed limit of {max_mib} MiB")


class _Collector:
    """python-multipart callbacks that collect fields and spool files."""

    def __init__(self, max_file_bytes: int, max_mib: int) -> None:
        self.max_file_bytes = max_file_bytes
        self.max_mib = max_mib
        self.files: list[ReceivedFile] = []
        self.fields: dict[str, str] = {}
        self.part = _Part()

    def callbacks(self) -> dict[str, Any]:
        names = (
            "part_begin",
            "header_field",
            "header_value",
            "header_end",
            "headers_finished",
            "part_data",
            "part_end",
        )
        return {f"on_{name}": getattr(self, f"on_{name}") for name in names}

    def on_part_begin(self) -> None:
        self.part = _Part()

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self.part.header_name += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self.part.header_value += data[start:end]

    def on_header_end(self) -> None:
        part = self.part
        name = part.header_name.decode("latin-1").lower()
        part.headers[name] = part.header_value
        part.header_name, part.header_value = b"", b""

    def on_headers_finished(self) -> None:
        part = self.part
        raw_disposition = part.headers.get("content-disposition", b"")
        _, disposition = parse_options_header(raw_disposition)
        part.field_name = _decode_name(disposition.get(b"name", b""))
        file_name = _file_name(raw_disposition, disposition)
        if file_name is not None:
            spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY_BYTES)  # noqa: SIM115
            declared = part.headers.get("content-type", b"").decode("latin-1")
            content = declared or "application/octet-stream"
            part.file = ReceivedFile(part.field_name, file_name, content, spool)
            self.files.append(part.file)

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        received = self.part.file
        if received is None:
            self.part.value += data[start:end]
            return
        received.size += end - start
        if received.size > self.max_file_bytes:
            raise UploadTooLargeError(self.max_mib)
        received.data.write(data[start:end])

    def on_part_end(self) -> None:
        if self.part.file is not None:
            self.part.file.data.seek(0)
        else:
            self.fields[self.part.field_name] = self.part.value.decode("utf-8", "replace")


async def receive_multipart(
    request: Request[Any, Any, Any], max_file_bytes: int, max_mib: int
) -> tuple[list[ReceivedFile], dict[str, str]]:
    """The files (spooled) and plain fields of a multipart body; too-large files are refused."""
    content_type, options = parse_options_header(request.headers.get("content-type", ""))
    boundary = options.get(b"boundary")
    if content_type != b"multipart/form-data" or not boundary:
        return [], {}
    collector = _Collector(max_file_bytes, max_mib)
    parser = MultipartParser(boundary, collector.callbacks())  # type: ignore[arg-type]
    try:
        async for chunk in request.stream():
            parser.write(chunk)
        parser.finalize()
    except ZulipError:
        close_all(collector.files)
        raise
    except RequestEntityTooLarge:
        # The whole body is over the limit (Content-Length or bytes received): say why.
        close_all(collector.files)
        raise UploadTooLargeError(max_mib) from None
    except Exception:
        close_all(collector.files)
        raise ZulipError("Malformed multipart body") from None
    return collector.files, collector.fields


def close_all(files: list[ReceivedFile]) -> None:
    for received in files:
        received.data.close()

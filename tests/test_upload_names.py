"""Uploads named in any language keep readable names (RFC 7578 UTF-8 `filename=` and RFC 5987
`filename*=`); an upload over the limit says so."""

from __future__ import annotations

import io
import urllib.parse

import httpx
import pytest
import zulip

from tests.support.api import Api, assert_error, assert_success
from tests.support.server import ServerProcess

NAMES = ["\u65e5\u672c\u8a9e.pdf", "\U0001f600.txt", "\u00e9.txt", "r\u00e9sum\u00e9 final.txt"]
STORED = ["\u65e5\u672c\u8a9e.pdf", "\U0001f600.txt", "\u00e9.txt", "r\u00e9sum\u00e9-final.txt"]


def raw_upload(api: Api, disposition: bytes, data: bytes = b"hello") -> httpx.Response:
    """POST a multipart body whose Content-Disposition parameters are exactly `disposition`."""
    boundary = b"teamchatboundary"
    body = (
        b"--"
        + boundary
        + b'\r\nContent-Disposition: form-data; name="file"; '
        + disposition
        + b"\r\nContent-Type: application/octet-stream\r\n\r\n"
        + data
        + b"\r\n--"
        + boundary
        + b"--\r\n"
    )
    headers = {"Content-Type": "multipart/form-data; boundary=" + boundary.decode()}
    return api.http.post("/user_uploads", content=body, headers=headers)


def check_download(server: ServerProcess, api: Api, url: str, stored: str) -> None:
    assert url.endswith("/" + urllib.parse.quote(stored)) or url.endswith("/" + stored)
    response = httpx.get(server.url + url, auth=(api.email, api.api_key))
    assert response.status_code == 200, response.text
    disposition = response.headers["content-disposition"]
    assert disposition.endswith("filename*=UTF-8''" + urllib.parse.quote(stored, safe=""))
    assert disposition.isascii()
    temp = api.ok("GET", url)["url"]
    assert httpx.get(server.url + temp).status_code == 200


@pytest.mark.parametrize(("name", "stored"), list(zip(NAMES, STORED, strict=True)))
def test_utf8_filename_as_browsers_and_httpx_send_it(
    server: ServerProcess, make_user, name: str, stored: str
) -> None:  # type: ignore[no-untyped-def]
    user = make_user()
    response = raw_upload(user, b'filename="' + name.encode() + b'"')
    body = assert_success(response)
    assert body["filename"] == stored
    check_download(server, user, body["url"], stored)
    [attachment] = user.ok("GET", "/attachments")["attachments"]
    assert attachment["name"] == stored


def test_rfc_5987_filename_star_wins_over_the_ascii_fallback(
    server: ServerProcess, make_user
) -> None:  # type: ignore[no-untyped-def]
    user = make_user()
    name = "\u65e5\u672c\u8a9e.pdf"
    star = b"filename*=UTF-8''" + urllib.parse.quote(name).encode()
    for disposition in (b'filename="fallback.pdf"; ' + star, star, star.lower()):
        body = assert_success(raw_upload(user, disposition))
        assert body["filename"] == name
    latin1 = b"filename*=iso-8859-1'fr'%E9t%E9.txt"
    assert assert_success(raw_upload(user, latin1))["filename"] == "\u00e9t\u00e9.txt"
    # A filename* we cannot decode falls back to the plain name, or to a generic one.
    bad = b"filename=\"plain.txt\"; filename*=UTF-8''%FF%FE.txt"
    assert assert_success(raw_upload(user, bad))["filename"] == "plain.txt"
    assert assert_success(raw_upload(user, b"filename*=UTF-8''%FF"))["filename"] == "uploaded-file"


def test_latin1_filename_bytes_still_upload(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user()
    body = assert_success(raw_upload(user, b'filename="caf\xe9.txt"'))
    assert body["filename"] == "caf\u00e9.txt"


def test_httpx_and_official_client_upload_non_ascii_names(server: ServerProcess, make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user()
    for name, stored in zip(NAMES, STORED, strict=True):
        response = user.http.post("/user_uploads", files={"file": (name, b"x", "text/plain")})
        assert assert_success(response)["filename"] == stored
    client = zulip.Client(email=user.email, api_key=user.api_key, site=server.url)
    for name, stored in zip(NAMES, STORED, strict=True):
        handle = io.BytesIO(b"from the python client")
        handle.name = name
        result = client.upload_file(handle)
        assert result["result"] == "success", result
        assert result["filename"] == stored
        check_download(server, user, result["url"], stored)


def test_upload_far_over_the_limit_gets_the_size_error(start_server) -> None:  # type: ignore[no-untyped-def]
    proc = start_server(env={"TEAMCHAT_MAX_FILE_UPLOAD_SIZE_MIB": "1"})
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        for size in (1024 * 1024 + 1, 3 * 1024 * 1024):
            response = owner.http.post("/user_uploads", files={"f": ("big.bin", b"x" * size)})
            assert_error(response, "Uploaded file is larger than the allowed limit of 1 MiB")
        assert owner.ok("GET", "/attachments")["attachments"] == []

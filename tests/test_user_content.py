"""User content is served as what its bytes are: no script ever runs on our origin.

Every route serving uploaded bytes (authenticated upload, temporary URL, avatar, custom emoji)
goes through one helper; these tests attack each route with an SVG carrying a script.
"""

from __future__ import annotations

import ast
from pathlib import Path

import httpx

from teamchat.lib.user_content import content_disposition, sniff_content_type
from tests.support import rawdb
from tests.support.api import Api, assert_error, assert_success
from tests.support.realm_emoji import PNG
from tests.support.server import ServerProcess

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(document.cookie)"></svg>'
PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"


def assert_never_active(response: httpx.Response) -> None:
    """The response cannot render as a document that runs script from our origin."""
    assert response.status_code == 200, response.text
    content_type = response.headers["content-type"]
    assert "svg" not in content_type and "html" not in content_type and "xml" not in content_type
    assert not content_type.startswith("image/")
    assert response.headers["content-disposition"].startswith("attachment")
    assert_security_headers(response)


def assert_security_headers(response: httpx.Response) -> None:
    assert response.headers["x-content-type-options"] == "nosniff"
    policy = [d.strip() for d in response.headers["content-security-policy"].split(";")]
    assert "default-src 'none'" in policy and "sandbox" in policy


def upload_svg_as_png(api: Api) -> str:
    response = api.http.post("/user_uploads", files={"file": ("x.png", SVG, "image/svg+xml")})
    return str(assert_success(response)["url"])


def test_svg_named_png_is_a_download_when_fetched_with_credentials(
    server: ServerProcess, make_user
) -> None:  # type: ignore[no-untyped-def]
    user = make_user()
    url = upload_svg_as_png(user)
    response = httpx.get(server.url + url, auth=(user.email, user.api_key))
    assert_never_active(response)
    assert response.content == SVG


def test_svg_named_png_is_a_download_through_the_temporary_url(
    server: ServerProcess, make_user
) -> None:  # type: ignore[no-untyped-def]
    user = make_user()
    url = upload_svg_as_png(user)
    temp = user.ok("GET", url)["url"]
    response = httpx.get(server.url + temp)  # no credentials
    assert_never_active(response)
    assert response.content == SVG


def test_svg_avatar_is_refused_whatever_it_claims(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user()
    for declared in ("image/svg+xml", "image/png"):
        response = user.http.post("/users/me/avatar", files={"file": ("x.png", SVG, declared)})
        assert_error(response, "Invalid image format")
    assert "user_avatars" not in str(user.ok("GET", "/users/me")["avatar_url"])


def test_stored_svg_avatar_is_served_as_a_download(server: ServerProcess, make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user()
    # An avatar stored before the bytes were checked (or by any other path) is still harmless.
    rawdb.query(
        server.db,
        "INSERT INTO user_avatar (user_id, content_type, data) VALUES (?, 'image/svg+xml', ?)",
        (user.user_id, SVG),
    )
    assert_never_active(httpx.get(f"{server.url}/user_avatars/{user.user_id}"))


def test_svg_emoji_is_refused_and_a_stored_one_is_a_download(
    server: ServerProcess, owner: Api
) -> None:
    response = owner.http.post(
        "/realm/emoji/svgattack", files={"file": ("x.png", SVG, "image/svg+xml")}
    )
    assert_error(response, "Invalid image format", "BAD_IMAGE")
    response = owner.http.post(
        "/realm/emoji/svgattack", files={"file": ("x.png", SVG, "image/png")}
    )
    assert_error(response, "Could not decode image; did you upload an image file?", "BAD_IMAGE")
    emoji_id = rawdb.value(
        server.db,
        "INSERT INTO realm_emoji (name, file_name, content_type, author_id, date_created)"
        " VALUES ('legacy_svg', 'legacy.png', 'image/svg+xml', ?, 0) RETURNING id",
        (owner.ok("GET", "/users/me")["user_id"],),
    )
    rawdb.query(
        server.db,
        "INSERT INTO realm_emoji_image (emoji_id, data, still) VALUES (?, ?, ?)",
        (emoji_id, SVG, SVG),
    )
    for path in ("images", "images/still"):
        url = f"{server.url}/user_avatars/1/emoji/{path}/legacy.png"
        assert_never_active(httpx.get(url))


def test_images_and_pdf_are_inline_with_the_type_of_their_bytes(
    server: ServerProcess, make_user
) -> None:  # type: ignore[no-untyped-def]
    user = make_user()
    cases = [
        ("photo.bin", PNG, "text/html", "image/png"),
        ("paper.txt", PDF, "image/svg+xml", "application/pdf"),
    ]
    for name, data, declared, served in cases:
        url = assert_success(user.http.post("/user_uploads", files={"f": (name, data, declared)}))
        response = httpx.get(server.url + url["url"], auth=(user.email, user.api_key))
        assert response.headers["content-type"] == served
        assert response.headers["content-disposition"] == f'inline; filename="{name}"'
        assert_security_headers(response)
    avatar = user.http.post("/users/me/avatar", files={"file": ("me.png", PNG, "image/png")})
    served = httpx.get(server.url + assert_success(avatar)["avatar_url"])
    assert served.headers["content-type"] == "image/png" and served.content == PNG
    assert served.headers["content-disposition"] == "inline"
    assert_security_headers(served)


def test_text_and_unknown_bytes_are_downloads(server: ServerProcess, make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user()
    for name, data, served in [
        ("page.html", b"<html><script>alert(1)</script></html>", "text/plain; charset=utf-8"),
        ("notes.txt", "caf\u00e9 \u65e5\u672c\n".encode(), "text/plain; charset=utf-8"),
        ("blob.dat", b"\x00\x01\x02\xff" * 100, "application/octet-stream"),
    ]:
        url = assert_success(
            user.http.post("/user_uploads", files={"f": (name, data, "text/html")})
        )
        response = httpx.get(server.url + url["url"], auth=(user.email, user.api_key))
        assert response.headers["content-type"] == served
        assert response.headers["content-disposition"].startswith("attachment")
        assert response.content == data
        assert_security_headers(response)


def test_sniffing_looks_at_magic_numbers_only() -> None:
    assert sniff_content_type(b"\xff\xd8\xff\xe0rest") == "image/jpeg"
    assert sniff_content_type(b"GIF89a...") == "image/gif"
    assert sniff_content_type(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert sniff_content_type(b"%PDF-1.7") == "application/pdf"
    assert sniff_content_type(b"") == "text/plain"
    assert sniff_content_type(b"ok \x1b[31m") == "application/octet-stream"
    cut_in_a_character = "\u00e9".encode() * 3 + b"\xc3"
    assert sniff_content_type(cut_in_a_character, complete=False) == "text/plain"
    assert sniff_content_type(cut_in_a_character) == "application/octet-stream"
    assert sniff_content_type(b"caf\xe9") == "application/octet-stream"  # Latin-1
    assert sniff_content_type(b"x" * 5000 + b"\xff") == "text/plain"  # only the start counts


def test_content_disposition_names_follow_rfc_6266() -> None:
    assert content_disposition(True, "a.png") == 'inline; filename="a.png"'
    assert content_disposition(False, None) == "attachment"
    assert content_disposition(False, "\u65e5\u672c\u8a9e.pdf") == (
        "attachment; filename=\"___.pdf\"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%E8%AA%9E.pdf"
    )
    header = content_disposition(False, 'a"b\\c\r\nd.txt')
    assert "\r" not in header and "\n" not in header
    assert header.startswith("attachment; filename=\"a_b_c__d.txt\"; filename*=UTF-8''a%22b")


def test_only_the_helper_builds_responses_from_user_bytes() -> None:
    """A route serving stored bytes must go through http/user_content.py, not build its own."""
    http_dir = Path(__file__).parent.parent / "teamchat" / "http"
    builders = {
        path.name
        for path in http_dir.glob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in {"Stream", "File", "ASGIStreamingResponse"}
    }
    assert builders == {"user_content.py"}

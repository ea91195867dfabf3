"""Images from other sites: previewed through /external_content/ (Zulip's camo), fetched with
the SSRF guard, size limit and image check, never from the server's own network by default."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from teamchat.lib.camo import camo_url, verified_url
from tests.support import images
from tests.support.api import Api
from tests.support.channels import stream_id, subscribe, unique_name
from tests.support.server import ServerProcess

CAT = images.png(30, 20)
CAMO_SRC_RE = re.compile(r'<img src="(/external_content/[0-9a-f]+/[0-9a-f]+)">')


class ImageSite:
    def __init__(self) -> None:
        self.hits: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                site.hits.append(self.path)
                body, kind = {
                    "/cat.png": (CAT, "image/png"),
                    "/fake.png": (b"<html>not an image</html>", "image/png"),
                    "/huge.png": (CAT + b"\0" * (11 * 1024 * 1024), "image/png"),
                }.get(self.path, (b"", "text/plain"))
                if self.path == "/moved.png":
                    self.send_response(302)
                    self.send_header("Location", "/cat.png")
                    self.end_headers()
                    return
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def site() -> Iterator[ImageSite]:
    running = ImageSite()
    yield running
    running.server.shutdown()


def test_camo_urls_are_zulips_and_verified() -> None:
    url = "https://example.com/a.png"
    path = camo_url(b"secret", url)
    digest, hex_url = path.removeprefix("/external_content/").split("/")
    assert len(digest) == 40 and bytes.fromhex(hex_url).decode() == url
    assert verified_url(b"secret", digest, hex_url) == url
    assert verified_url(b"other", digest, hex_url) is None
    assert verified_url(b"secret", digest, "68" + hex_url) is None
    assert verified_url(b"secret", digest, "zz") is None
    assert verified_url(b"", digest, hex_url) is None


def _preview_src(api: Api, content: str) -> str:
    name = unique_name("links")
    subscribe(api, name)
    sid = stream_id(api, name)
    message_id = api.ok("POST", "/messages", type="stream", to=sid, topic="t", content=content)
    html = api.ok("GET", f"/messages/{message_id['id']}")["message"]["content"]
    found = CAMO_SRC_RE.search(html)
    assert found is not None, html
    return found.group(1)


def test_linked_image_is_shown_through_the_proxy(
    start_server: Callable[..., ServerProcess], site: ImageSite
) -> None:
    server = start_server({"TEAMCHAT_URL_PREVIEW_ALLOW_PRIVATE": "1"})
    owner = Api(server.url, server.owner_email, server.owner_key)
    src = _preview_src(owner, f"{site.url}/cat.png")
    assert site.hits == []  # sending fetches nothing
    response = httpx.get(server.url + src)  # no credentials needed, like Zulip's camo
    assert response.status_code == 200 and response.content == CAT
    assert response.headers["content-type"] == "image/png"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert site.hits == ["/cat.png"]
    # Redirects are followed (each hop checked); a named link previews the same way.
    moved = _preview_src(owner, f"[a cat]({site.url}/moved.png)")
    assert httpx.get(server.url + moved).content == CAT
    # Not an image, or too large: refused with Zulip's error, nothing served.
    for path in ("/fake.png", "/huge.png", "/missing.png"):
        refused = httpx.get(server.url + _preview_src(owner, f"{site.url}{path}"))
        assert refused.status_code == 400 and refused.json()["msg"] == "File not found", path
    # A URL we did not sign is not fetched: no open proxy.
    digest, hex_url = src.removeprefix("/external_content/").split("/")
    other = f"{site.url}/cat.png?x".encode().hex()
    hits = len(site.hits)
    assert httpx.get(f"{server.url}/external_content/{digest}/{other}").status_code == 400
    assert httpx.get(f"{server.url}/external_content/{'0' * 40}/{hex_url}").status_code == 400
    assert len(site.hits) == hits


def test_the_proxy_refuses_the_servers_own_network_by_default(
    start_server: Callable[..., ServerProcess], site: ImageSite
) -> None:
    # The shared test server allows private targets (its tests reach their own listeners).
    server = start_server({"TEAMCHAT_OUTBOUND_ALLOW_PRIVATE": "0"})
    user = Api(server.url, server.owner_email, server.owner_key)
    for url in (f"{site.url}/cat.png", "http://169.254.169.254/latest/meta-data/x.png"):
        src = _preview_src(user, url)
        refused = httpx.get(server.url + src)
        assert refused.status_code == 400 and refused.json()["msg"] == "File not found"
    assert site.hits == []

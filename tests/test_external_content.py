"""Images from other sites: previewed through /external_content/ (Zulip's camo), fetched with
the SSRF guard, size limit and image check, never from the server's own network by default."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import httpx
import pytest

from teamchat.lib.camo import camo_url, verified_url
from tests.support import images
from tests.support.api import Api
from tests.support.channels import stream_id, subscribe, unique_name
from tests.support.listeners import Site
from tests.support.server import ServerProcess

CAT = images.png(30, 20)
CAMO_SRC_RE = re.compile(r'<img src="(/external_content/[0-9a-f]+/[0-9a-f]+)">')


@pytest.fixture
def site() -> Iterator[Site]:
    pages = {
        "/cat.png": ("image/png", CAT),
        "/fake.png": ("image/png", b"<html>not an image</html>"),
        "/huge.png": ("image/png", CAT + b"\0" * (11 * 1024 * 1024)),
    }
    with Site(pages, redirects={"/moved.png": "/cat.png"}) as running:
        yield running


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
    start_server: Callable[..., ServerProcess], site: Site
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
    start_server: Callable[..., ServerProcess], site: Site
) -> None:
    # The shared test server allows private targets (its tests reach their own listeners).
    server = start_server({"TEAMCHAT_OUTBOUND_ALLOW_PRIVATE": "0"})
    user = Api(server.url, server.owner_email, server.owner_key)
    for url in (f"{site.url}/cat.png", "http://169.254.169.254/latest/meta-data/x.png"):
        src = _preview_src(user, url)
        refused = httpx.get(server.url + src)
        assert refused.status_code == 400 and refused.json()["msg"] == "File not found"
    assert site.hits == []

"""URL previews: Open Graph data of linked pages added under messages, and never a fetch
into the server's own network (SSRF)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator

import pytest

from teamchat.lib.camo import camo_url
from teamchat.lib.url_preview import embed_html, parse_preview
from tests.support.api import Api
from tests.support.channels import Queue, stream_id, subscribe
from tests.support.listeners import Site
from tests.support.server import ServerProcess

PAGE = b"""<html><head><title>Fallback</title>
<meta property="og:title" content="Release &lt;script&gt;alert(1)&lt;/script&gt; notes">
<meta property="og:description" content="What changed in 2.0">
<meta property="og:image" content="/banner.png">
</head><body>hello</body></html>"""


@pytest.fixture
def site() -> Iterator[Site]:
    page = ("text/html; charset=utf-8", PAGE)
    with Site(
        dict.fromkeys(["/page", "/p", "/bot"], page), redirects={"/moved": "/page"}
    ) as running:
        yield running


def test_parse_and_embed() -> None:
    preview = parse_preview("https://example.com/x", PAGE.decode())
    assert preview is not None
    assert preview.title == "Release <script>alert(1)</script> notes"
    assert preview.description == "What changed in 2.0"
    assert preview.image == "https://example.com/banner.png"
    camo = camo_url(b"key", preview.image)
    html = embed_html(preview, camo)
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert html.startswith(
        '<div class="message_embed"><a class="message_embed_image" href="https://example.com/x"'
        f' style="background-image: url(&quot;{camo}&quot;)"></a><div class="data-container">'
        '<div class="message_embed_title"><a href="https://example.com/x" title="Release'
    )
    assert html.endswith(
        '<div class="message_embed_description">What changed in 2.0</div></div></div>'
    )
    # zulip-compat: a page without an image gets no embed (Zulip's add_embed).
    assert parse_preview("u", "<title>Only a title</title>").image == ""  # type: ignore[union-attr]
    assert parse_preview("u", "<title> Only a title </title>").title == "Only a title"  # type: ignore[union-attr]
    assert parse_preview("u", "<p>no title</p>") is None


def _channel(owner: Api) -> int:
    subscribe(owner, "previews")
    return stream_id(owner, "previews")


def test_previews_are_added_under_messages(
    start_server: Callable[..., ServerProcess], site: Site
) -> None:
    server = start_server({"TEAMCHAT_OUTBOUND_ALLOW_PRIVATE": "1"})
    owner = Api(server.url, server.owner_email, server.owner_key)
    owner.ok("PATCH", "/realm", inline_url_embed_preview="true")
    sid = _channel(owner)
    queue = Queue(owner, event_types=["update_message"])
    sent = owner.ok(
        "POST", "/messages", type="stream", to=sid, topic="t", content=f"see {site.url}/page"
    )["id"]
    deadline, events = time.monotonic() + 15, []
    while not events and time.monotonic() < deadline:
        events = queue.events()
        time.sleep(0.1)
    [event] = events
    assert event["rendering_only"] is True and event["message_id"] == sent
    assert '<div class="message_embed"><a class="message_embed_image"' in event["rendered_content"]
    assert 'style="background-image: url(&quot;/external_content/' in event["rendered_content"]
    assert "&lt;script&gt;" in event["rendered_content"]
    assert "<script>" not in event["rendered_content"]
    stored = owner.ok("GET", f"/messages/{sent}")["message"]["content"]
    assert stored == event["rendered_content"]


def test_no_fetch_into_the_servers_network(
    start_server: Callable[..., ServerProcess], site: Site
) -> None:
    server = start_server({"TEAMCHAT_OUTBOUND_ALLOW_PRIVATE": "0"})
    owner = Api(server.url, server.owner_email, server.owner_key)
    owner.ok("PATCH", "/realm", inline_url_embed_preview="true")
    sid = _channel(owner)
    queue = Queue(owner, event_types=["update_message"])
    owner.ok(
        "POST",
        "/messages",
        type="stream",
        to=sid,
        topic="t",
        content=f"metadata at http://169.254.169.254/latest and {site.url}/page",
    )
    time.sleep(2)
    assert site.hits == [] and queue.events() == []
    assert json.dumps(site.hits) == "[]"


def test_bots_messages_get_no_previews(
    start_server: Callable[..., ServerProcess], site: Site
) -> None:
    server = start_server({"TEAMCHAT_OUTBOUND_ALLOW_PRIVATE": "1"})
    owner = Api(server.url, server.owner_email, server.owner_key)
    owner.ok("PATCH", "/realm", inline_url_embed_preview="true")
    sid = _channel(owner)
    bot = owner.ok("POST", "/bots", full_name="Link Bot", short_name="linkbot")
    bot_email = owner.ok("GET", f"/users/{bot['user_id']}")["user"]["email"]
    bot_api = Api(server.url, bot_email, bot["api_key"])
    queue = Queue(owner, event_types=["update_message"])
    bot_api.ok("POST", "/messages", type="stream", to=sid, topic="t", content=f"{site.url}/bot")
    sent = owner.ok("POST", "/messages", type="stream", to=sid, topic="t", content=f"{site.url}/p")
    deadline, events = time.monotonic() + 15, []
    while not events and time.monotonic() < deadline:
        events = queue.events()
        time.sleep(0.1)
    # zulip-compat: only the person's message was fetched and previewed (sent_by_bot).
    assert [e["message_id"] for e in events] == [sent["id"]]
    assert site.hits == ["/p"]

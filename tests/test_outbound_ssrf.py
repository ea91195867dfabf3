"""No request into the server's own network: outgoing webhooks and URL previews refuse every
internal address form, and redirects to them, unless the operator allows private targets.

"Public" is simulated honestly: the server allows exactly one extra address, 127.0.0.2
(`TEAMCHAT_OUTBOUND_ALLOWED_NETWORKS`), where a listener redirects to the internal listener
on 127.0.0.1. The refusal must come from the guard (its message), not from a failed connection.
"""

from __future__ import annotations

import json
import time
import urllib.parse
import uuid
from collections.abc import Callable, Iterator

import pytest

from tests.support.api import Api
from tests.support.channels import Queue, stream_id, subscribe
from tests.support.listeners import Listener
from tests.support.people import create_member
from tests.support.server import ServerProcess

GUARDED = {
    "TEAMCHAT_OUTBOUND_ALLOW_PRIVATE": "0",
    "TEAMCHAT_OUTBOUND_ALLOWED_NETWORKS": "127.0.0.2",
}
NOTIFICATION_BOT = "notification-bot@teamchat.local"
REFUSED = "is not on the public internet; requests to it are not allowed"


def internal_forms(port: int) -> list[str]:
    """The internal listener (127.0.0.1:port) and the rest of the internal network, spelled
    every way a URL can spell them."""
    here = [
        "127.0.0.1", "localhost", "[::1]", "2130706433", "0177.0.0.1", "0x7f.0.0.1",
        "0x7f000001", "127.1", "017700000001", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]",
        "[64:ff9b::7f00:1]", "[::127.0.0.1]", "[2002:7f00:1::]", "0.0.0.0",
    ]  # fmt: skip
    elsewhere = [
        "169.254.169.254", "10.0.0.1", "172.16.0.1", "192.168.1.1", "100.64.0.1",
        "[fd00::1]", "[fe80::1]", "224.0.0.1", "[ff02::1]",
    ]  # fmt: skip
    return [f"http://{host}:{port}/hook" for host in here] + [
        f"http://{host}/latest/meta-data/" for host in elsewhere
    ]


def via(public: Listener, target: str) -> str:
    return f"{public.url}/redirect?to={urllib.parse.quote(target, safe='')}"


@pytest.fixture
def listeners() -> Iterator[tuple[Listener, Listener]]:
    with Listener("127.0.0.1") as internal, Listener("127.0.0.2") as public:
        yield internal, public


def _notices(member: Api) -> list[str]:
    found = member.ok(
        "GET", "/messages", anchor="newest", num_before=200, num_after=0,
        narrow=json.dumps([{"operator": "sender", "operand": NOTIFICATION_BOT}]),
        apply_markdown="false",
    )["messages"]  # fmt: skip
    return [str(m["content"]) for m in found]


def _add_bot(member: Api, url: str) -> int:
    created = member.ok(
        "POST", "/users/me/bots", full_name=f"Probe {uuid.uuid4().hex[:8]}",
        short_name=f"p{uuid.uuid4().hex[:8]}", bot_type=3, payload_url=json.dumps(url),
    )  # fmt: skip
    return int(created["user_id"])


def test_webhooks_refuse_internal_targets_and_redirects_to_them(
    start_server: Callable[..., ServerProcess], listeners: tuple[Listener, Listener]
) -> None:
    internal, public = listeners
    server = start_server(GUARDED)
    owner = Api(server.url, server.owner_email, server.owner_key)
    member = create_member(server.url, owner, "Curious Member")
    direct = internal_forms(internal.port)
    redirected = [
        via(public, target)
        for target in (
            f"{internal.url}/hook", f"http://localhost:{internal.port}/hook",
            f"http://[::ffff:127.0.0.1]:{internal.port}/hook", "http://169.254.169.254/latest/",
            via(public, f"http://2130706433:{internal.port}/hook"),
        )
    ]  # fmt: skip
    bots = {_add_bot(member, url): url for url in direct + redirected}
    control = _add_bot(member, f"{public.url}/hook")
    for bot_id in [*bots, control]:
        member.ok("POST", "/messages", type="direct", to=json.dumps([bot_id]), content="hi")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(_notices(member)) < len(bots):
        time.sleep(0.2)
    notices = _notices(member)
    for bot_id, url in bots.items():
        [notice] = [n for n in notices if f"|{bot_id}**" in n]
        assert REFUSED in notice, (url, notice)
    assert internal.hits == []
    # The allowed address was reached: directly (the control bot answered) and at the
    # first hop of every redirect (one redirect chains through it twice).
    reply = member.ok(
        "GET", "/messages", anchor="newest", num_before=1, num_after=0,
        narrow=json.dumps([{"operator": "sender", "operand": control}]),
    )["messages"]  # fmt: skip
    assert reply and reply[0]["content"] == "<p>reached</p>"
    assert len([h for h in public.hits if h.startswith("/redirect")]) == len(redirected) + 1
    assert not any(f"|{control}**" in n for n in notices)


def test_previews_refuse_internal_targets_and_redirects_to_them(
    start_server: Callable[..., ServerProcess], listeners: tuple[Listener, Listener]
) -> None:
    internal, public = listeners
    server = start_server(GUARDED)
    owner = Api(server.url, server.owner_email, server.owner_key)
    owner.ok("PATCH", "/realm", inline_url_embed_preview="true")
    member = create_member(server.url, owner, "Link Poster")
    subscribe(member, "links")
    sid = stream_id(member, "links")
    queue = Queue(member, event_types=["update_message"])
    links = [
        *internal_forms(internal.port),
        via(public, f"{internal.url}/page"),
        via(public, f"http://localhost:{internal.port}/"),
    ]
    for start in range(0, len(links), 5):  # at most 5 previews a message
        content = "\n".join(f"* {link}" for link in links[start : start + 5])
        member.ok("POST", "/messages", type="stream", to=sid, topic="t", content=content)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and len(public.hits) < 2:
        time.sleep(0.1)
    time.sleep(1)
    assert internal.hits == [] and len(public.hits) == 2
    assert queue.events() == []
    # The allowed address itself is previewed: the guard is not refusing everything.
    member.ok("POST", "/messages", type="stream", to=sid, topic="t", content=f"{public.url}/page")
    deadline, events = time.monotonic() + 15, []
    while not events and time.monotonic() < deadline:
        events = queue.events()
        time.sleep(0.1)
    assert events and "Internal page" in events[0]["rendered_content"]

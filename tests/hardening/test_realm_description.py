"""Issue 9, defect 3: the organization description is stored as Markdown, served as safe HTML."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import httpx

from teamchat.store.migrations import MIGRATIONS
from tests.support.api import Api
from tests.support.org import Watcher, user_with_role
from tests.support.server import ServerProcess
from tests.test_events import check_event_schema

PAYLOAD = "**Welcome** <img src=x onerror=alert(1)> [site](javascript:alert(2))"


def test_realm_description_is_rendered_and_sanitized_everywhere(
    server: ServerProcess, make_user: Callable[..., Api]
) -> None:
    admin = user_with_role(server, "admin")
    watcher = Watcher(make_user(), ["realm"])
    admin.ok("PATCH", "/realm", description=PAYLOAD)
    public = httpx.get(f"{server.url}/api/v1/server_settings").json()["realm_description"]
    state = admin.ok("POST", "/register", fetch_event_types=["realm"])["realm_description"]
    assert public == state
    assert "<strong>Welcome</strong>" in public
    assert "<img" not in public and "&lt;img src=x onerror=alert(1)&gt;" in public
    assert 'href="javascript:' not in public
    events = watcher.events()
    assert [(e["op"], e["property"], e["value"]) for e in events] == [
        ("update", "description", public)
    ]
    for event in events:
        check_event_schema(event)
    watcher.check(events, ["realm_description"])
    admin.ok("PATCH", "/realm", description="")
    assert admin.ok("POST", "/register", fetch_event_types=["realm"])["realm_description"] == ""


def test_migration_escapes_an_existing_description() -> None:
    conn = sqlite3.connect(":memory:")
    for number, sql in MIGRATIONS.items():
        if number >= 300:
            break
        conn.executescript(sql)
    conn.execute(
        "INSERT INTO realm (name, description, host, date_created) VALUES (?, ?, ?, ?)",
        ("Org", "<img src=x onerror=\"alert('1')\"> & more", "example.com", 0),
    )
    conn.executescript(MIGRATIONS[300])
    (rendered,) = conn.execute("SELECT rendered_description FROM realm").fetchone()
    assert rendered == (
        "<p>&lt;img src=x onerror=&quot;alert(&#x27;1&#x27;)&quot;&gt; &amp; more</p>"
    )

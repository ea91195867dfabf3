"""`teamchat migrate --to`: a SQLite database moves into PostgreSQL and is served there (its
messages, flags, search, uploads; new ids continue after the copied ones), then moves back
into a new SQLite file whose answers equal the original's; refusals are one line."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx

from tests.ops.test_export import build_organization
from tests.support.api import Api
from tests.support.postgres import PostgresServer
from tests.support.server import ServerProcess, cli


def _general_id(api: Api) -> int:
    return int(api.ok("GET", "/get_stream_id", stream="general")["stream_id"])


def _add_drafts_and_schedules(owner: Api) -> None:
    general = _general_id(owner)
    draft = {"type": "stream", "to": [general], "topic": "later", "content": "a draft",
             "timestamp": 1700000000}  # fmt: skip
    owner.ok("POST", "/drafts", drafts=[draft])
    tomorrow = int(time.time()) + 86400
    owner.ok("POST", "/scheduled_messages", type="stream", to=general, topic="later",
             content="scheduled", scheduled_delivery_timestamp=tomorrow)  # fmt: skip


def _answers(server: ServerProcess, owner: Api, messages: int | None = None) -> dict[str, Any]:
    """Answers of a few GET endpoints, with this server's URL taken out."""
    found = {
        path: owner.ok("GET", path)
        for path in ("/users", "/streams", "/users/me/subscriptions", "/drafts",
                     "/scheduled_messages", "/realm/emoji", "/user_groups")
    }  # fmt: skip
    history = owner.ok("GET", "/messages", anchor="oldest", num_before=0,
                       num_after=messages or 1000, apply_markdown=True)  # fmt: skip
    found["/messages"] = history["messages"]
    return dict(json.loads(json.dumps(found, sort_keys=True).replace(server.url, "SERVER")))


def _serve(directory: Path, db: Path | str) -> ServerProcess:
    directory.mkdir(exist_ok=True)
    return ServerProcess(directory, database_url=db if isinstance(db, str) else None).start()


def test_sqlite_to_postgresql_and_back(tmp_path: Path, postgres: PostgresServer) -> None:
    source = _serve(tmp_path / "source", tmp_path / "source" / "teamchat.db")
    email, key = source.owner_email, source.owner_key
    with Api(source.url, email, key) as owner:
        made = build_organization(source, owner)
        _add_drafts_and_schedules(owner)
        before = _answers(source, owner)
        url = postgres.new_database("moved")
        busy = cli(source.db, "migrate", "--to", url, check=False)
        assert busy.returncode == 2 and "server is running" in busy.stderr, busy.stderr
    source.stop()

    moved = cli(source.db, "migrate", "--to", url)
    assert "Copied" in moved.stdout and "sampled messages" in moved.stdout, moved.stdout
    assert "message" in moved.stdout and "they were copied" in moved.stdout

    served = _serve(tmp_path / "pg", url)
    with Api(served.url, email, key) as owner:
        assert _answers(served, owner) == before
        starred = owner.ok("GET", "/messages", anchor="newest", num_before=10, num_after=0,
                           narrow=[{"operator": "is", "operand": "starred"}])  # fmt: skip
        assert starred["messages"] == []  # Hamlet starred it, not the owner
        found = owner.ok("GET", "/messages", anchor="newest", num_before=10, num_after=0,
                         narrow=[{"operator": "search", "operand": "notes"}])  # fmt: skip
        assert [m["id"] for m in found["messages"]] == [made["public"]]
        temporary = owner.ok("GET", made["upload"])["url"]
        assert httpx.get(served.url + temporary).content == b"hello export"
        newest = max(m["id"] for m in before["/messages"])
        sent = owner.ok("POST", "/messages", type="stream", to="general", topic="after",
                        content="sent on PostgreSQL")["id"]  # fmt: skip
        assert sent > newest
        general = _general_id(owner)
        draft = owner.ok("POST", "/drafts", drafts=[{"type": "stream", "to": [general],
                         "topic": "t", "content": "d", "timestamp": 1700000001}])  # fmt: skip
        assert draft["ids"][0] > max(d["id"] for d in before["/drafts"]["drafts"])
    served.stop()

    back = tmp_path / "back" / "teamchat.db"
    back.parent.mkdir()
    returned = cli(url, "migrate", "--to", str(back))
    assert "Copied" in returned.stdout, returned.stdout
    again = _serve(tmp_path / "back", back)
    with Api(again.url, email, key) as owner:
        after = _answers(again, owner, messages=len(before["/messages"]))
        for path in ("/users", "/streams", "/users/me/subscriptions", "/scheduled_messages",
                     "/realm/emoji", "/user_groups", "/messages"):  # fmt: skip
            assert after[path] == before[path], path
        history = owner.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)
        assert history["messages"][0]["id"] == sent
    again.stop()


def test_migrate_refuses_what_it_cannot_do(tmp_path: Path, postgres: PostgresServer) -> None:
    source = _serve(tmp_path / "source", tmp_path / "source" / "teamchat.db")
    source.stop()
    url = postgres.new_database("refused")
    cli(source.db, "migrate", "--to", url)
    for target, message in (
        (url, "is not empty"),
        ("postgresql://nobody@127.0.0.1:1/none", "cannot"),
        ("postgresql://nobody@127.0.0.1:port/none", "cannot"),
        (str(tmp_path / "absent" / "x.db"), "does not exist"),
        (str(source.db), "is the database being copied"),
    ):
        result = cli(source.db, "migrate", "--to", target, check=False)
        assert result.returncode == 2, (target, result.stdout, result.stderr)
        assert message in result.stderr and "Traceback" not in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    missing = cli(tmp_path / "none.db", "migrate", "--to", str(tmp_path / "x.db"), check=False)
    assert missing.returncode == 2 and "no database at" in missing.stderr
    assert not (tmp_path / "x.db").exists()

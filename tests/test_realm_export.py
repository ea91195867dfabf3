"""POST/GET /export/realm, DELETE /export/realm/{id}, GET /export/realm/consents, the
realm_export and realm_export_consent events, and the tarball's download: the same file
`teamchat export` writes."""

from __future__ import annotations

import asyncio
import io
import json
import sqlite3
import tarfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from tests.ops.test_export import check_export
from tests.support import openapi
from tests.support.api import Api, assert_error
from tests.support.people import create_member, events, register
from tests.support.server import ServerProcess, cli
from tests.test_events import check_event_schema

PASSWORD = "a-Long-and-unusual-password-42"
ADMIN_CODE = "UNAUTHORIZED_PRINCIPAL"


def _member(server: ServerProcess, owner: Api, name: str) -> Api:
    email = f"{name.lower()}@example.com"
    return create_member(server.url, owner, name, email=email, password=PASSWORD)


def _wait_done(owner: Api, export_id: int) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = owner.ok("GET", "/export/realm")["exports"]
        entry = next(e for e in found if e["id"] == export_id)
        if not entry["pending"]:
            return dict(entry)
        time.sleep(0.2)
    raise AssertionError("export did not finish")


def _tarball_tables(data: bytes, tmp: Any) -> tuple[dict[str, Any], list[Any]]:
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(tmp, filter="data")
    [top] = list(tmp.iterdir())
    realm, messages, _ = check_export(top)
    return realm, messages


def test_export_through_the_api_matches_the_cli(
    start_server: Callable[..., ServerProcess], tmp_path: Any
) -> None:
    proc = start_server()
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        hamlet = _member(proc, owner, "Hamlet")
        hamlet.ok("POST", "/messages", type="private", to=[owner.email], content="secret dm")
        owner.ok("POST", "/messages", type="stream", to="general", topic="t", content="hello all")
        queue = register(owner, event_types=json.dumps(["realm_export", "message"]))
        hamlet_queue = register(hamlet)
        created = owner.ok("POST", "/export/realm", export_type=1)
        openapi.check_response("/export/realm", "post", created)
        entry = _wait_done(owner, created["id"])
        owner_id = owner.ok("GET", "/users/me")["user_id"]
        assert entry["export_type"] == 1 and entry["acting_user_id"] == owner_id
        assert entry["failed_timestamp"] is None and entry["deleted_timestamp"] is None
        listed = owner.ok("GET", "/export/realm")
        openapi.check_response("/export/realm", "get", listed)
        # Events: pending at request, then finished with its URL; nothing for members.
        got = events(owner, queue, type="realm_export")
        for event in got:
            check_event_schema(event)
        assert got[0]["exports"][0]["pending"] is True
        assert got[-1]["exports"][0] == entry
        notice = events(owner, queue, type="message")[-1]["message"]
        assert "Your data export is complete" in notice["content"]
        assert events(hamlet, hamlet_queue, type="realm_export") == []
        # The download is public by its secret URL, and is a Zulip export.
        url = entry["export_url"]
        assert url.startswith(proc.url + "/user_avatars/exports/") and url.endswith(".tar.gz")
        response = httpx.get(url)
        assert response.status_code == 200 and response.headers["x-content-type-options"]
        realm, messages = _tarball_tables(response.content, tmp_path / "api")
        contents = {m["content"] for m in messages}
        assert "hello all" in contents and "secret dm" not in contents  # a public export
        assert httpx.get(url.replace(".tar.gz", ".zip")).status_code == 404
        # The CLI writes the same organization with the same writer.
        cli(proc.db, "export", str(tmp_path / "cli"), "--type", "public")
        cli_realm, cli_messages, _ = check_export(tmp_path / "cli")
        assert cli_realm.keys() == realm.keys()
        assert [m["id"] for m in cli_messages] == [m["id"] for m in messages]
        for cli_user, api_user in zip(
            cli_realm["zerver_userprofile"], realm["zerver_userprofile"], strict=True
        ):
            # Personal recipients are numbered after teamchat's own recipients, and the
            # Notification Bot's message to the requester added one in between.
            assert {k for k, v in cli_user.items() if api_user.get(k) != v} <= {"recipient"}
        # Delete: the file goes, the entry stays with deleted_timestamp; twice is an error.
        assert_error(hamlet.delete(f"/export/realm/{entry['id']}"),
                     "Must be an organization administrator", ADMIN_CODE)  # fmt: skip
        owner.ok("DELETE", f"/export/realm/{entry['id']}")
        deleted = owner.ok("GET", "/export/realm")["exports"][0]
        assert deleted["deleted_timestamp"] is not None and deleted["export_url"] is None
        assert events(owner, queue, type="realm_export")[-1]["exports"][0] == deleted
        assert httpx.get(url).status_code == 404
        assert_error(owner.delete(f"/export/realm/{entry['id']}"), "Export already deleted")
        assert_error(owner.delete("/export/realm/999"), "Invalid data export ID")
        hamlet.close()


def test_export_requests_are_checked(start_server: Callable[..., ServerProcess]) -> None:
    proc = start_server()
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        hamlet = _member(proc, owner, "Hamlet")
        for bad in ("3", "0", "public"):
            response = owner.post("/export/realm", export_type=bad)
            assert response.status_code == 400, response.text
        assert_error(owner.post("/export/realm", export_type="3"), "Invalid export_type")
        assert_error(
            hamlet.post("/export/realm"), "Must be an organization administrator", ADMIN_CODE
        )
        assert_error(
            hamlet.get("/export/realm"), "Must be an organization administrator", ADMIN_CODE
        )
        assert_error(
            hamlet.get("/export/realm/consents"),
            "Must be an organization administrator",
            ADMIN_CODE,
        )
        # The imported organization needs an owner who can log in.
        assert_error(
            owner.post("/export/realm", export_type=2),
            "Make sure at least one Organization Owner is consenting to the export "
            "or contact noreply@teamchat.local for help.",
        )
        owner.ok("PATCH", "/settings", email_address_visibility=4)
        assert_error(
            owner.post("/export/realm", export_type=1),
            "Make sure at least one Organization Owner allows other Administrators to see "
            "their email address or contact noreply@teamchat.local for help",
        )
        assert owner.ok("GET", "/export/realm")["exports"] == []  # nothing was recorded
        owner.ok("PATCH", "/settings", allow_private_data_export=True)
        ids = [owner.ok("POST", "/export/realm", export_type=2)["id"] for _ in range(5)]
        assert_error(owner.post("/export/realm"), "Exceeded rate limit.")
        assert [e["id"] for e in owner.ok("GET", "/export/realm")["exports"]] == ids
        hamlet.close()


def test_consents_list_and_events(start_server: Callable[..., ServerProcess]) -> None:
    proc = start_server()
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        hamlet = _member(proc, owner, "Hamlet")
        consents = owner.ok("GET", "/export/realm/consents")
        openapi.check_response("/export/realm/consents", "get", consents)
        by_user = {c["user_id"]: c["consented"] for c in consents["export_consents"]}
        assert by_user[hamlet.user_id] is False  # type: ignore[attr-defined]
        queue = register(owner, event_types=json.dumps(["realm_export_consent"]))
        hamlet_queue = register(hamlet, event_types=json.dumps(["realm_export_consent"]))
        hamlet.ok("PATCH", "/settings", allow_private_data_export=True)
        [event] = events(owner, queue, type="realm_export_consent")
        check_event_schema(event)
        assert event["user_id"] == hamlet.user_id and event["consented"] is True  # type: ignore[attr-defined]
        assert events(hamlet, hamlet_queue) == []
        consents = owner.ok("GET", "/export/realm/consents")["export_consents"]
        assert {"user_id": hamlet.user_id, "consented": True} in consents  # type: ignore[attr-defined]
        hamlet.close()


def _run_sql(db: Path | str, sql: str) -> None:
    """Run one statement on the stopped server's database (a SQLite file or PostgreSQL)."""
    if isinstance(db, str):
        import asyncpg  # type: ignore[import-untyped]

        async def run() -> None:
            conn = await asyncpg.connect(db)
            try:
                await conn.execute(sql)
            finally:
                await conn.close()

        asyncio.run(run())
        return
    with sqlite3.connect(db) as conn:
        conn.execute(sql)


def test_exports_a_stopped_server_left_unfinished_are_failed_at_start(
    start_server: Callable[..., ServerProcess],
) -> None:
    proc = start_server()
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        owner_id = owner.ok("GET", "/users/me")["user_id"]
    proc.stop()
    # As if the server died while exporting:
    _run_sql(
        proc.db,
        "INSERT INTO realm_export (acting_user_id, export_type, status, date_requested,"
        f" realm_url, secret) VALUES ({int(owner_id)}, 2, 2, 1700000000, '{proc.url}', 'abc')",
    )
    proc.start()
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        [entry] = owner.ok("GET", "/export/realm")["exports"]
        assert entry["pending"] is False and entry["failed_timestamp"] is not None
        assert entry["export_url"] is None and entry["export_time"] == 1700000000
        assert_error(
            owner.delete(f"/export/realm/{entry['id']}"), "Export failed, nothing to delete"
        )

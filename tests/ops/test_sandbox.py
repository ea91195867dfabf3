"""`teamchat sandbox`: Zulip's development organization, served for client and bot developers.

Each sandbox is a real `teamchat sandbox` (or `serve --dev`) subprocess, checked over HTTP
and with the official `zulip` client.
"""

from __future__ import annotations

import re
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import zulip

from tests.support.api import Api, assert_error
from tests.support.server import ServerProcess, cli

pytestmark = pytest.mark.timeout(180)

ROLES = {
    "desdemona@zulip.com": 100,
    "iago@zulip.com": 200,
    "shiva@zulip.com": 300,
    "hamlet@zulip.com": 400,
    "cordelia@zulip.com": 400,
    "othello@zulip.com": 400,
    "prospero@zulip.com": 400,
    "AARON@zulip.com": 400,
    "ZOE@zulip.com": 400,
    "polonius@zulip.com": 600,
}
BOTS = {"error-bot@zulip.com", "default-bot@zulip.com", "webhook-bot@zulip.com"}
CHANNELS = {"Verona", "Denmark", "Scotland", "Venice", "Rome", "core team"}
# Topics the tests post to (not part of what the sandbox seeds).
TEST_TOPICS = {"sandbox test", "events"}


def start_sandbox(directory: Path, *command: str) -> ServerProcess:
    directory.mkdir(exist_ok=True)
    return ServerProcess(directory, command=list(command)).start(timeout_secs=60)


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("sandbox")
    rc = directory / "rc"
    proc = start_sandbox(
        directory, "--db", str(directory / "dev.db"), "sandbox", "--zuliprc-dir", str(rc)
    )
    yield proc
    proc.stop()


def rc_path(proc: ServerProcess, name: str) -> Path:
    return proc.directory / "rc" / f"{name}.zuliprc"


def credentials(proc: ServerProcess, email: str) -> tuple[str, str]:
    """(password, API key) of `email` from the table the sandbox printed."""
    for line in proc.first_output.splitlines():
        cells = [cell.strip() for cell in line.split("│")]
        if email in cells:
            return cells[5], cells[6]
    raise AssertionError(f"{email} is not in the printed table:\n{proc.first_output}")


def as_user(proc: ServerProcess, email: str) -> Api:
    return Api(proc.url, email, credentials(proc, email)[1])


def channel_messages(api: Api, stream_id: int) -> list[dict[str, object]]:
    narrow = [{"operator": "channel", "operand": stream_id}]
    body = api.ok("GET", "/messages", anchor="oldest", num_before=0, num_after=1000, narrow=narrow)
    assert body["found_newest"] is True
    return body["messages"]  # type: ignore[no-any-return]


def test_sandbox_has_zulips_development_users_and_bots(sandbox: ServerProcess) -> None:
    with as_user(sandbox, "iago@zulip.com") as iago:
        members = iago.ok("GET", "/users")["members"]
    people = {m["email"]: m for m in members if not m["is_bot"]}
    bots = {m["email"]: m for m in members if m["is_bot"]}
    assert {email: people[email]["role"] for email in ROLES} == ROLES
    assert people["hamlet@zulip.com"]["full_name"] == "King Hamlet"
    assert people["iago@zulip.com"]["timezone"] == "US/Eastern"
    assert set(bots) >= BOTS
    assert bots["webhook-bot@zulip.com"]["bot_type"] == 2
    desdemona = people["desdemona@zulip.com"]["user_id"]
    assert bots["default-bot@zulip.com"]["bot_owner_id"] == desdemona
    assert "INSECURE" in sandbox.first_output
    assert re.search(r"Seeded the sandbox in [0-9.]+ s", sandbox.first_output)


def test_sandbox_channels_subscriptions_messages_and_reactions(sandbox: ServerProcess) -> None:
    with as_user(sandbox, "hamlet@zulip.com") as hamlet, as_user(sandbox, "iago@zulip.com") as iago:
        mine = hamlet.ok("GET", "/users/me/subscriptions")["subscriptions"]
        subscribed = {s["name"]: s for s in mine}
        assert {"Verona", "Denmark", "core team"} <= set(subscribed)
        assert not {"Scotland", "Venice", "Rome"} & set(subscribed)
        assert subscribed["core team"]["invite_only"] is True
        streams = {s["name"]: s for s in iago.ok("GET", "/streams")["streams"]}
        assert set(streams) >= CHANNELS
        messages = {
            name: [
                m
                for m in channel_messages(iago, streams[name]["stream_id"])
                if m["subject"] not in TEST_TOPICS
            ]
            for name in CHANNELS
        }
        assert sum(len(found) for found in messages.values()) == 300
        for name, found in messages.items():
            assert len({m["subject"] for m in found}) >= 2, name
        every = [m for found in messages.values() for m in found]
        assert sum(1 for m in every if m["reactions"]) >= 30
        assert any("user-mention" in str(m["content"]) for m in every)
        mentions = hamlet.ok(
            "GET", "/messages", anchor="newest", num_before=100, num_after=0,
            narrow=[{"operator": "is", "operand": "mentioned"}],
        )["messages"]  # fmt: skip
        assert mentions and all("mentioned" in m["flags"] for m in mentions)
        dms = hamlet.ok(
            "GET", "/messages", anchor="newest", num_before=100, num_after=0,
            narrow=[{"operator": "is", "operand": "dm"}],
        )["messages"]  # fmt: skip
        assert {len(m["display_recipient"]) for m in dms} >= {2, 3}
        # Guests see only what they are subscribed to.
        with as_user(sandbox, "polonius@zulip.com") as polonius:
            theirs = polonius.ok("GET", "/users/me/subscriptions")["subscriptions"]
            names = {s["name"] for s in theirs}
            assert "Verona" in names and "core team" not in names


def test_zuliprc_files_work_with_the_official_client(sandbox: ServerProcess) -> None:
    folder = sandbox.directory / "rc"
    names = {path.name for path in folder.iterdir()}
    assert {"iago.zuliprc", "hamlet.zuliprc", "zoe.zuliprc", "default-bot.zuliprc"} <= names
    for path in folder.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    client = zulip.Client(config_file=str(rc_path(sandbox, "hamlet")))
    profile = client.get_profile()
    assert profile["result"] == "success" and profile["email"] == "hamlet@zulip.com"
    streams = {s["name"] for s in client.get_streams()["streams"]}
    assert CHANNELS - {"core team"} <= streams
    assert set(ROLES) | BOTS <= {m["email"] for m in client.get_members()["members"]}
    queue = client.register(event_types=["message"])
    iago = zulip.Client(config_file=str(rc_path(sandbox, "iago")))
    to_verona = {"type": "stream", "to": "Verona", "topic": "events", "content": "ping"}
    assert iago.send_message(to_verona)["result"] == "success"
    events = client.get_events(queue_id=queue["queue_id"], last_event_id=-1, dont_block=True)
    [event] = [e for e in events["events"] if e["type"] == "message"]
    assert event["message"]["sender_email"] == "iago@zulip.com"
    assert event["message"]["content"] == "ping"  # register's apply_markdown is false
    message = {"type": "stream", "to": "Denmark", "topic": "sandbox test", "content": "hi"}
    sent = client.send_message(message)
    assert sent["result"] == "success"
    bot = zulip.Client(config_file=str(rc_path(sandbox, "default-bot")))
    assert bot.get_profile()["email"] == "default-bot@zulip.com"
    zoe = zulip.Client(config_file=str(rc_path(sandbox, "zoe")))
    seen = zoe.get_messages({"anchor": sent["id"], "num_before": 0, "num_after": 0, "narrow": []})
    assert [m["content"] for m in seen["messages"]] == ["<p>hi</p>"]


def test_dev_login_and_printed_passwords(sandbox: ServerProcess) -> None:
    password, api_key = credentials(sandbox, "cordelia@zulip.com")
    with Api(sandbox.url) as anonymous:
        listed = anonymous.ok("GET", "/dev_list_users")
        emails = {u["email"] for u in listed["direct_admins"] + listed["direct_users"]}
        assert set(ROLES) <= emails
        fetched = anonymous.ok("POST", "/dev_fetch_api_key", username="cordelia@zulip.com")
        assert fetched["api_key"] == api_key
        # Relaxed log-in limits: more failures than production's 5 do not lock the account.
        for _ in range(8):
            assert_error(
                anonymous.post("/fetch_api_key", username="cordelia@zulip.com", password="nope"),
                None,
                "AUTHENTICATION_FAILED",
                status=401,
            )
        logged_in = anonymous.ok(
            "POST", "/fetch_api_key", username="cordelia@zulip.com", password=password
        )
        assert logged_in["api_key"] == api_key
    with sqlite3.connect(f"file:{sandbox.directory / 'dev.db'}?mode=ro", uri=True) as conn:
        hashes = [row[0] for row in conn.execute("SELECT password_hash FROM users")]
    assert all(h.startswith("$argon2id$v=19$m=8,t=1,p=1$") for h in hashes if h)


def test_api_rate_limit_is_off(sandbox: ServerProcess) -> None:
    with as_user(sandbox, "othello@zulip.com") as othello:
        statuses = {othello.get("/users/me").status_code for _ in range(260)}
    assert statuses == {200}


def test_two_sandboxes_are_identical(sandbox: ServerProcess, tmp_path: Path) -> None:
    """`serve --dev` in a temporary database gives the same ids, keys and messages."""
    other = start_sandbox(tmp_path / "dev", "serve", "--dev")
    try:
        database = re.search(r"database (\S+)", other.first_output)
        assert database is not None
        for email in ("iago@zulip.com", "polonius@zulip.com", "webhook-bot@zulip.com"):
            assert credentials(other, email) == credentials(sandbox, email)
        with as_user(sandbox, "iago@zulip.com") as a, as_user(other, "iago@zulip.com") as b:
            users = [(u["user_id"], u["email"]) for u in a.ok("GET", "/users")["members"]]
            assert users == [(u["user_id"], u["email"]) for u in b.ok("GET", "/users")["members"]]
            streams_a = {s["name"]: s["stream_id"] for s in a.ok("GET", "/streams")["streams"]}
            streams_b = {s["name"]: s["stream_id"] for s in b.ok("GET", "/streams")["streams"]}
            assert streams_a == streams_b
            for name in ("Verona", "core team"):
                seen = [
                    [
                        (m["id"], m["sender_id"], m["subject"], m["content"], m["reactions"])
                        for m in channel_messages(api, streams_a[name])
                        if m["subject"] not in TEST_TOPICS
                    ]
                    for api in (a, b)
                ]
                assert seen[0] == seen[1] and seen[0]
    finally:
        assert other.stop() == 0
    assert not Path(database[1]).exists(), "the temporary database outlived the sandbox"


def test_sandbox_refuses_a_real_organization(tmp_path: Path) -> None:
    db = tmp_path / "real.db"
    cli(db, "admin", "create-realm", "--name", "Acme", "--owner-email", "boss@acme.example",
        "--owner-name", "Boss", "--owner-password", "correct horse battery")  # fmt: skip
    before = cli(db, "admin", "list-users", "--json").stdout
    result = cli(db, "sandbox", "--port", "1", check=False)
    assert result.returncode == 1
    assert "not a sandbox" in result.stderr and "Traceback" not in result.stderr
    assert cli(db, "admin", "list-users", "--json").stdout == before


def test_sandbox_zuliprc_dir_that_is_a_file_is_one_line_of_error(tmp_path: Path) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("")
    db = tmp_path / "dev.db"
    result = cli(db, "sandbox", "--zuliprc-dir", str(blocker), "--port", "1", check=False)
    assert result.returncode == 1
    assert "cannot create" in result.stderr and "Traceback" not in result.stderr
    assert not db.exists(), "a refused sandbox created its database"


def test_named_sandbox_reopens_with_the_same_credentials(tmp_path: Path) -> None:
    first = start_sandbox(tmp_path, "--db", str(tmp_path / "keep.db"), "sandbox")
    key = credentials(first, "hamlet@zulip.com")
    with as_user(first, "desdemona@zulip.com") as owner:  # renaming keeps it a sandbox
        owner.ok("PATCH", "/realm", name="Renamed Dev")
    first.stop()
    started = time.monotonic()
    again = ServerProcess(tmp_path, command=["--db", str(tmp_path / "keep.db"), "sandbox"])
    again.log_path = tmp_path / "second.log"
    again.start(timeout_secs=60)
    try:
        assert time.monotonic() - started < 30
        assert "Reopened the sandbox" in again.first_output
        assert credentials(again, "hamlet@zulip.com") == key
        zuliprc = tmp_path / "keep-zuliprc" / "hamlet.zuliprc"
        assert f"key={key[1]}" in zuliprc.read_text()
        result = subprocess.run(
            [str(Path(sys.executable).parent / "zulip-send"), "--config-file", str(zuliprc),
             "-s", "Verona", "-S", "reopened", "-m", "still here"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert result.returncode == 0, result.stdout + result.stderr
    finally:
        again.stop()
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"{again.url}/api/v1/server_settings", timeout=1)


def test_sandbox_logs_every_email_and_lists_them(sandbox: ServerProcess) -> None:
    folder = sandbox.directory / "dev-emails"
    assert f"emails it sends: {folder}" in sandbox.first_output.replace("\n", "")
    with Api(sandbox.url, "iago@zulip.com", iago_key(sandbox)) as iago:
        body = iago.ok("POST", "/invites", invitee_emails="newcomer@example.com", stream_ids=[])
        assert "invite_links" not in body  # logged counts as sent
    deadline = time.monotonic() + 15
    while not list(folder.glob("*.eml")) and time.monotonic() < deadline:
        time.sleep(0.1)
    [saved] = folder.glob("*.eml")
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    page = httpx.get(f"{sandbox.url}/emails/", timeout=30)
    assert page.status_code == 200 and "newcomer@example.com" in page.text
    assert re.search(r'<a href="http://[^"]+/join/[a-z0-9]+/">', page.text)
    assert "email to newcomer@example.com" in sandbox.log()


def iago_key(sandbox: ServerProcess) -> str:
    with Api(sandbox.url) as anonymous:
        return str(anonymous.ok("POST", "/dev_fetch_api_key", username="iago@zulip.com")["api_key"])

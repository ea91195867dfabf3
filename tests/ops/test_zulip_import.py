"""`teamchat import` of a Zulip export (tests/fixtures/zulip_export, built from Zulip's
documented format) through the CLI, then checked over HTTP against a real server."""

from __future__ import annotations

import json
import sqlite3
import tarfile
from pathlib import Path

import pytest

from tests.conftest import database_url
from tests.support import rawdb
from tests.support.api import Api, assert_success
from tests.support.server import ServerProcess, cli

FIXTURE = Path(__file__).parent.parent / "fixtures" / "zulip_export"
PASSWORD = "Verona-balcony-1597"
HAMLET, IAGO, OTHELLO = "hamlet@zulip.example", "iago@zulip.example", "othello@zulip.example"


def _log_in(url: str, email: str) -> Api:
    with Api(url) as anonymous:
        body = assert_success(anonymous.post("/fetch_api_key", username=email, password=PASSWORD))
    return Api(url, email, str(body["api_key"]))


def _messages(api: Api) -> dict[int, dict[str, object]]:
    body = api.ok("GET", "/messages", anchor="oldest", num_before=0, num_after=100,
                  apply_markdown=True)  # fmt: skip
    return {int(m["id"]): m for m in body["messages"]}


@pytest.fixture(scope="module")
def imported(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> ServerProcess:
    directory = tmp_path_factory.mktemp("imported")
    proc = ServerProcess(directory, database_url=database_url(request))
    result = cli(proc.db, "import", str(FIXTURE))
    assert "Imported 'Zephyr Corp'" in result.stdout, result.stdout
    assert "9 messages" in result.stdout and "admin set-password" in result.stdout
    for email in (HAMLET, IAGO, OTHELLO):
        cli(proc.db, "admin", "set-password", email, "--password", PASSWORD)
    proc.start()
    yield proc
    proc.stop()


def test_people_keep_ids_roles_and_settings(imported: ServerProcess) -> None:
    with _log_in(imported.url, HAMLET) as hamlet:
        assert hamlet.ok("GET", "/users/me")["user_id"] == 11
        users = {u["email"]: u for u in hamlet.ok("GET", "/users")["members"]}
        assert users[IAGO]["user_id"] == 10 and users[IAGO]["role"] == 200
        assert users[OTHELLO]["role"] == 100 and users["cordelia@zulip.example"]["role"] == 600
        bot = users["helper-bot@zulip.example"]
        assert bot["is_bot"] and bot["bot_owner_id"] == 10
        assert not users["polonius@zulip.example"]["is_active"]
        me = hamlet.ok("GET", "/users/11", include_custom_profile_fields=True)["user"]
        assert {v["value"] for v in me["profile_data"].values()} == {"+45 1234", "he/him"}
        linkifiers = hamlet.ok("GET", "/realm/linkifiers")["linkifiers"]
        state = hamlet.ok("POST", "/register", fetch_event_types=json.dumps(
            ["realm", "realm_user_groups", "realm_playgrounds", "default_streams",
             "alert_words", "muted_users", "user_topic", "user_settings"]))  # fmt: skip
    assert state["user_settings"]["enter_sends"] is True
    assert state["realm_description"] == "<p>A test <strong>organization</strong></p>"
    assert state["realm_name"] == "Zephyr Corp" and state["realm_waiting_period_threshold"] == 3
    assert state["realm_new_stream_announcements_stream_id"] == 20
    groups = {g["name"]: g for g in state["realm_user_groups"]}
    assert sorted(groups["leadership"]["members"]) == [10, 13]
    assert groups["role:administrators"]["is_system_group"]
    assert state["realm_default_streams"] == [20]
    assert linkifiers[0]["pattern"] == "#(?P<id>[0-9]+)"
    assert state["realm_playgrounds"][0]["name"] == "Python playground"
    assert state["alert_words"] == ["denmark"]
    assert state["user_topics"][0]["topic_name"] == "welcome"


def test_channels_and_subscriptions(imported: ServerProcess) -> None:
    with _log_in(imported.url, HAMLET) as hamlet:
        subs = {s["name"]: s for s in hamlet.ok("GET", "/users/me/subscriptions")["subscriptions"]}
        assert set(subs) == {"Denmark", "Verona"}  # Old archive: archived and unsubscribed
        assert subs["Verona"]["invite_only"] and subs["Verona"]["is_muted"]
        assert subs["Denmark"]["color"] == "#76ce90"
    with _log_in(imported.url, IAGO) as iago:
        verona = {s["name"]: s for s in iago.ok("GET", "/users/me/subscriptions")["subscriptions"]}
        assert verona["Verona"]["pin_to_top"]


def test_messages_with_flags_reactions_history_and_dms(imported: ServerProcess) -> None:
    with _log_in(imported.url, HAMLET) as hamlet:
        messages = _messages(hamlet)
        assert sorted(messages) == [100, 101, 102, 103, 104, 105, 106, 107]
        assert "starred" in messages[101]["flags"] and "read" in messages[101]["flags"]
        assert "read" not in messages[106]["flags"] and messages[106]["type"] == "private"
        assert messages[101]["subject"] == "welcome"
        # Never rendered by Zulip: rendered on import, as its sender wrote it.
        assert messages[107]["content"] == "<p>mirrored <strong>from</strong> irc</p>"
        reactions = {(r["emoji_name"], r["user_id"]) for r in messages[100]["reactions"]}
        assert reactions == {("+1", 11), ("green_tick", 10)}
        assert [u["id"] for u in messages[104]["display_recipient"]] == [10, 11, 13]
        assert [u["id"] for u in messages[105]["display_recipient"]] == [11]
        history = hamlet.ok("GET", "/messages/101/history")["message_history"]
        assert [h.get("prev_content") for h in history] == [None, "Hi all", None]
        assert history[-1]["prev_topic"] == "greetings"
    with _log_in(imported.url, IAGO) as iago:
        messages = _messages(iago)
        assert "mentioned" in messages[100]["flags"] and "read" not in messages[100]["flags"]
        assert messages[103]["content"] == "<p>Hi Iago, a private word</p>"
        # The search index was built (and merged into one segment) after the bulk load.
        found = iago.ok("GET", "/messages", anchor="newest", num_before=10, num_after=0,
                        narrow='[{"operator": "search", "operand": "private word"}]')  # fmt: skip
        assert [m["id"] for m in found["messages"]] == [103]
        assert 108 not in messages  # in a channel iago never subscribed to
        unread = iago.ok("POST", "/register", fetch_event_types='["message"]')
        assert unread["max_message_id"] == 107
    with _log_in(imported.url, OTHELLO) as othello:
        mentions = othello.ok("GET", "/messages", anchor="newest", num_before=10, num_after=0,
                              narrow='[{"operator": "is", "operand": "starred"}]')  # fmt: skip
        assert [m["id"] for m in mentions["messages"]] == [100, 104]


def test_script_in_rendered_content_is_dropped(imported: ServerProcess) -> None:
    rendered = rawdb.value(imported.db, "SELECT rendered_content FROM message WHERE id = 108")
    assert "<script" not in rendered and "Old news" in rendered


def test_emoji_uploads_and_avatars_are_served(imported: ServerProcess) -> None:
    with _log_in(imported.url, HAMLET) as hamlet:
        emoji = hamlet.ok("GET", "/realm/emoji")["emoji"]
        (green,) = [e for e in emoji.values() if e["name"] == "green_tick"]
        image = hamlet.http.get(imported.url + green["source_url"])
        assert image.status_code == 200 and image.content.startswith(b"\x89PNG")
        upload = hamlet.http.get(imported.url + "/user_uploads/2/ab/xyzsecret/notes.txt")
        assert upload.status_code == 200 and upload.content == b"Plans for Verona: be careful."
        avatar = hamlet.http.get(imported.url + "/avatar/11", follow_redirects=True)
        assert avatar.status_code == 200 and avatar.content.startswith(b"\x89PNG")
    with _log_in(imported.url, IAGO) as iago:  # not a recipient of the message using it
        other = iago.http.get(imported.url + "/user_uploads/2/ab/xyzsecret/notes.txt")
        assert other.status_code == 200  # iago is subscribed to Verona and received it


def test_the_imported_organization_takes_new_messages_and_events(imported: ServerProcess) -> None:
    with _log_in(imported.url, IAGO) as iago, _log_in(imported.url, HAMLET) as hamlet:
        queue = iago.ok("POST", "/register", event_types='["message"]')
        sent = hamlet.ok("POST", "/messages", type="stream", to="Denmark", topic="after import",
                         content="Still here")  # fmt: skip
        assert sent["id"] > 108
        events = iago.ok("GET", "/events", queue_id=queue["queue_id"],
                         last_event_id=queue["last_event_id"])["events"]  # fmt: skip
        assert [e["message"]["id"] for e in events if e["type"] == "message"] == [sent["id"]]


def test_import_is_refused_on_a_non_empty_database(imported: ServerProcess) -> None:
    refused = cli(imported.db, "import", str(FIXTURE), check=False)
    assert refused.returncode == 1 and "server is running" in refused.stderr


def test_tarball_import_and_refusals(tmp_path: Path) -> None:
    tarball = tmp_path / "zulip-export-zephyr.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(FIXTURE, arcname="zulip-export-zephyr")
    db = tmp_path / "t.db"
    assert "Imported" in cli(db, "import", str(tarball)).stdout
    before = sqlite3.connect(db).execute("SELECT count(*) FROM message").fetchone()
    again = cli(db, "import", str(tarball), check=False)
    assert again.returncode == 1 and "not empty" in again.stderr
    assert sqlite3.connect(db).execute("SELECT count(*) FROM message").fetchone() == before


def test_a_broken_export_leaves_no_database(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    db = tmp_path / "new.db"
    missing = cli(db, "import", str(broken), check=False)
    assert missing.returncode == 1 and "no realm.json" in missing.stderr
    assert not db.exists()
    for name in ("realm.json", "attachment.json"):
        (broken / name).write_text((FIXTURE / name).read_text())
    bad = json.loads((FIXTURE / "messages-000001.json").read_text())
    bad["zerver_message"][0]["sender"] = 999  # no such user: the foreign key fails at COMMIT
    (broken / "messages-000001.json").write_text(json.dumps(bad))
    failed = cli(db, "import", str(broken), check=False)
    assert failed.returncode == 1 and "Traceback" not in failed.stderr, failed.stderr
    assert "export is inconsistent" in failed.stderr and not db.exists()
    del bad["zerver_message"][0]["sender"]  # a row without a required field
    (broken / "messages-000001.json").write_text(json.dumps(bad))
    malformed = cli(db, "import", str(broken), check=False)
    assert malformed.returncode == 1 and "export is malformed" in malformed.stderr
    assert "Traceback" not in malformed.stderr and not db.exists()
    (broken / "realm.json").write_text("[1, 2")
    garbled = cli(db, "import", str(broken), check=False)
    assert garbled.returncode == 1 and "cannot read realm.json" in garbled.stderr
    assert not db.exists()


def test_folders_bots_status_presence_and_scheduled_messages(imported: ServerProcess) -> None:
    with _log_in(imported.url, HAMLET) as hamlet:
        state = hamlet.ok("POST", "/register", fetch_event_types=json.dumps(
            ["channel_folders", "scheduled_messages", "user_status",
             "subscription"]))  # fmt: skip
    assert [f["name"] for f in state["channel_folders"]] == ["Kingdoms"]
    denmark = next(s for s in state["subscriptions"] if s["name"] == "Denmark")
    assert denmark["folder_id"] == state["channel_folders"][0]["id"]
    scheduled = {m["scheduled_message_id"]: m for m in state["scheduled_messages"]}
    assert set(scheduled) == {1, 2}  # the delivered one is a message already
    assert scheduled[1]["to"] == 20 and scheduled[2]["to"] == [10]
    assert state["user_status"]["11"]["status_text"] == "To be or not to be"
    # Presence from 2023 is too old to be listed (Zulip's 14 days): the round trip covers it.
    with _log_in(imported.url, OTHELLO) as othello:
        bots = othello.ok("POST", "/register", fetch_event_types='["realm_bot"]')["realm_bots"]
    hook = next(b for b in bots if b["email"] == "hook-bot@zulip.example")
    assert hook["services"][0]["base_url"] == "https://hooks.example/zulip"
    helper = "helper-bot@zulip.example"
    key = cli(imported.db, "admin", "zuliprc", helper).stdout.split("key=")[1].split()[0]
    with Api(imported.url, helper, key) as bot:
        assert bot.ok("GET", "/bot_storage")["storage"] == {"counter": "42"}

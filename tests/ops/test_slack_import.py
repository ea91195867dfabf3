"""`teamchat import` of a Slack workspace export (tests/fixtures/slack_export, written from
Slack's documented export format) through the CLI, then checked over HTTP on a real server:
people, channels, threads as topics, reactions, mentions and links, pins, edits, files,
direct messages; the .zip Slack's export tool makes, and the same refusals as a Zulip import.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import zipfile
from pathlib import Path

import pytest

from tests.conftest import database_url
from tests.support.api import Api, assert_success
from tests.support.server import ServerProcess, cli

FIXTURE = Path(__file__).parent.parent / "fixtures" / "slack_export"
PASSWORD = "Analytical-engine-1843"
ADA, CHARLES, GRACE = (
    "ada@analytical.example",
    "charles@analytical.example",
    "grace@analytical.example",
)
# Named from the first message, as text, cut at 60 characters (with " (2)" for a second).
REVIEW_TOPIC = "2024-01-15 Who is reviewing @Grace Hopper's design? See the…"
ENGINE_TOPIC = "2024-01-15 Engine tolerances: let's discuss the long story …"
ENGINE_TOPIC_2 = "2024-01-15 Engine tolerances: let's discuss the long st… (2)"


def zip_export(source: Path, archive: Path) -> Path:
    """The export as Slack delivers it: a .zip of the files, no top folder."""
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(source.rglob("*")):
            if path.is_file():
                zf.write(path, path.relative_to(source).as_posix())
    return archive


def log_in(url: str, email: str) -> Api:
    with Api(url) as anonymous:
        body = assert_success(anonymous.post("/fetch_api_key", username=email, password=PASSWORD))
    return Api(url, email, str(body["api_key"]))


def all_messages(api: Api) -> list[dict[str, object]]:
    body = api.ok("GET", "/messages", anchor="oldest", num_before=0, num_after=200,
                  apply_markdown=True)  # fmt: skip
    return list(body["messages"])


def by_content(messages: list[dict[str, object]], needle: str) -> dict[str, object]:
    (found,) = [m for m in messages if needle in str(m["content"])]
    return found


@pytest.fixture(scope="module")
def imported(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> ServerProcess:
    directory = tmp_path_factory.mktemp("slack")
    archive = zip_export(FIXTURE, directory / "Analytical Engines Slack export Jan 15 2024.zip")
    proc = ServerProcess(directory, database_url=database_url(request))
    result = cli(proc.db, "import", str(archive))
    out = " ".join(result.stdout.split())
    assert "Imported 'Analytical Engines'" in out, out
    for count in ("9 users", "5 channels", "23 messages", "4 reactions", "1 uploads"):
        assert count in out, out
    assert "Slack exports carry no passwords" in out and "admin set-password" in out
    for email in (ADA, CHARLES, GRACE):
        cli(proc.db, "admin", "set-password", email, "--password", PASSWORD)
    proc.start()
    yield proc
    proc.stop()


def test_people_roles_bots_and_deactivated(imported: ServerProcess) -> None:
    with log_in(imported.url, GRACE) as grace:
        users = {u["full_name"]: u for u in grace.ok("GET", "/users")["members"]}
    assert users["Ada Lovelace"]["role"] == 100 and users["Ada Lovelace"]["user_id"] == 1
    assert users["Charles Babbage"]["role"] == 200
    assert users["Grace Hopper"]["role"] == 400 and users["Gwen Guest"]["role"] == 600
    assert users["Grace Hopper"]["timezone"] == "America/New_York"
    assert not users["Alan Turing"]["is_active"] and not users["Eve External"]["is_active"]
    assert users["Deploy Bot"]["is_bot"] and users["CI"]["is_bot"] and users["Slackbot"]["is_bot"]
    assert "Charles B." not in users  # same email as Charles: one person, as Zulip merges them
    assert users["Deploy Bot"]["email"] == "deploy-bot@teamchat.local"


def test_channels_members_descriptions_and_defaults(imported: ServerProcess) -> None:
    with log_in(imported.url, ADA) as ada:
        mine = ada.ok("GET", "/users/me/subscriptions", include_subscribers=True)
        subs = {s["name"]: s for s in mine["subscriptions"]}
        streams = {s["name"]: s for s in ada.ok("GET", "/streams", include_all=True)["streams"]}
        state = ada.ok("POST", "/register", fetch_event_types='["default_streams", "realm"]')
    assert set(streams) >= {"general", "random", "engineering", "secret-plans"}
    assert streams["general"]["description"] == "Company-wide announcements and work-based matters"
    assert streams["random"]["description"] == "Anything goes"  # no purpose: its topic
    assert streams["secret-plans"]["invite_only"] and not streams["general"]["invite_only"]
    assert (
        len(subs["general"]["subscribers"]) == 4 and len(subs["secret-plans"]["subscribers"]) == 2
    )
    defaults = {streams["general"]["stream_id"], streams["random"]["stream_id"]}
    assert set(state["realm_default_streams"]) == defaults
    assert state["realm_new_stream_announcements_stream_id"] == streams["general"]["stream_id"]
    with log_in(imported.url, CHARLES) as charles:
        archived = charles.ok("GET", "/streams", include_all=True, exclude_archived=False)
    assert any(s["name"] == "old-project" and s["is_archived"] for s in archived["streams"])


def test_threads_become_topics_named_from_their_first_message(imported: ServerProcess) -> None:
    with log_in(imported.url, GRACE) as grace:
        streams = {s["name"]: s["stream_id"] for s in grace.ok("GET", "/streams")["streams"]}
        general = grace.ok("GET", f"/users/me/{streams['general']}/topics")["topics"]
        engineering = grace.ok("GET", f"/users/me/{streams['engineering']}/topics")["topics"]
        messages = all_messages(grace)
    assert {t["name"] for t in general} == {"imported from Slack", REVIEW_TOPIC}
    assert {t["name"] for t in engineering} == {"imported from Slack", ENGINE_TOPIC, ENGINE_TOPIC_2}
    thread = [m for m in messages if m["subject"] == REVIEW_TOPIC]
    # The parent and both replies, the last posted a day later, in order.
    assert [m["sender_full_name"] for m in thread] == ["Charles Babbage", "Grace Hopper",
                                                      "Ada Lovelace"]  # fmt: skip
    assert [m["id"] for m in thread] == sorted(m["id"] for m in thread)


def test_mentions_links_and_formatting_are_converted(imported: ServerProcess) -> None:
    with log_in(imported.url, GRACE) as grace:
        messages = all_messages(grace)
        raw = grace.ok("GET", "/messages", anchor="oldest", num_before=0, num_after=200,
                       apply_markdown=False)["messages"]  # fmt: skip
    welcome = by_content(messages, "Welcome everyone")
    html = str(welcome["content"])
    assert "<strong>the rules</strong>" in html and "<em>be kind</em>" in html
    assert "<del>no spam</del>" in html and "&amp; no bots &lt;3" in html
    assert '<span class="user-mention channel-wildcard-mention" data-user-id="*">@channel' in html
    assert "stream_wildcard_mentioned" in welcome["flags"]
    review = by_content(messages, "Who is reviewing")
    assert 'data-user-id="3"' in str(review["content"]) and "mentioned" in review["flags"]
    assert '<a href="https://example.com/design"' in str(review["content"])
    links = by_content(messages, "or mail")
    assert 'class="stream"' in str(links["content"]) and "#engineering" in str(links["content"])
    source = {m["id"]: m["content"] for m in raw}
    assert source[links["id"]].startswith("See #**engineering** and #**general**")
    standup = by_content(raw, "standup in 5")
    assert standup["content"] == "@**channel** standup in 5, @**all** welcome"
    code = by_content(raw, "rm -rf")
    assert "```\n*not bold* <@U01ADA> _x_\n```" in str(code["content"])
    with log_in(imported.url, ADA) as ada:
        theirs = ada.ok("GET", "/messages", anchor="newest", num_before=50, num_after=0,
                        apply_markdown=False)  # fmt: skip
        secret = by_content(theirs["messages"], "Secret:")
    assert secret["content"] == "Secret: <b>not html</b> & more"
    assert by_content(raw, "waves at everyone")["content"] == "/me waves at everyone"


def test_reactions_pins_and_edits(imported: ServerProcess) -> None:
    with log_in(imported.url, CHARLES) as charles:
        messages = all_messages(charles)
    welcome = by_content(messages, "Welcome everyone")
    reactions = sorted((r["emoji_name"], r["user_id"]) for r in welcome["reactions"])
    # +1 and thumbsup (skin tone dropped) are one emoji; the custom partyparrot is skipped.
    assert reactions == [("+1", 2), ("+1", 3), ("+1", 5)]
    assert "starred" in welcome["flags"]  # Charles pinned it
    assert "read" in welcome["flags"]
    edited = by_content(messages, "I am,")
    assert edited["last_edit_timestamp"] == 1705316600
    with log_in(imported.url, ADA) as ada:
        welcome_for_ada = by_content(all_messages(ada), "Welcome everyone")
    assert "starred" not in welcome_for_ada["flags"]


def test_files_in_the_export_are_uploads_and_others_stay_links(imported: ServerProcess) -> None:
    with log_in(imported.url, GRACE) as grace:
        raw = grace.ok("GET", "/messages", anchor="oldest", num_before=0, num_after=200,
                       apply_markdown=False)  # fmt: skip
        messages = raw["messages"]
        diagram = by_content(messages, "Design diagram")
        path = str(diagram["content"]).split("](", 1)[1].rstrip(")")
        assert path.startswith("/user_uploads/1/") and path.endswith("/diagram.png")
        upload = grace.http.get(imported.url + path)
        assert upload.status_code == 200
        assert upload.content == (FIXTURE / "__uploads/F01DIAGRAM/diagram.png").read_bytes()
        notes = by_content(messages, "Meeting notes")
        assert "https://files.slack.com/files-pri/T0ANALYTIC-F02NOTES/notes.pdf" in str(
            notes["content"]
        )
        bot = by_content(messages, "All 1,204 tests passed")
        assert bot["sender_full_name"] == "CI"
        comment = by_content(messages, "Looks right to me")  # Slack's older file comments
        assert comment["sender_full_name"] == "Charles Babbage"


def test_direct_and_group_direct_messages(imported: ServerProcess) -> None:
    with log_in(imported.url, ADA) as ada:
        messages = all_messages(ada)
    hi = by_content(messages, "Hi Ada")
    assert hi["type"] == "private" and {u["id"] for u in hi["display_recipient"]} == {1, 3}
    assert [r["emoji_name"] for r in hi["reactions"]] == ["heart"]
    lunch = by_content(messages, "Lunch?")
    assert {u["id"] for u in lunch["display_recipient"]} == {1, 2, 3}
    assert any("Secret" in str(m["content"]) for m in messages)  # Ada is a member
    with log_in(imported.url, GRACE) as grace:
        assert all("Secret" not in str(m["content"]) for m in all_messages(grace))


def test_an_unpacked_folder_imports_the_same(tmp_path: Path) -> None:
    db = tmp_path / "folder.db"
    out = " ".join(cli(db, "import", str(FIXTURE)).stdout.split())
    assert "Imported 'Imported from Slack'" in out and "23 messages" in out
    refused = cli(db, "import", str(FIXTURE), check=False)
    assert refused.returncode == 1 and "not empty" in refused.stderr


def refused(db: Path, source: Path, message: str) -> None:
    result = cli(db, "import", str(source), check=False)
    text = " ".join(result.stderr.split())
    assert result.returncode == 1, result.stdout + result.stderr
    assert message in text, text
    assert "Traceback" not in result.stderr + result.stdout
    assert [p.name for p in db.parent.iterdir() if p.name.startswith(db.name)] == []


def test_a_zip_with_a_link_or_a_path_outside_is_refused(tmp_path: Path) -> None:
    linked = tmp_path / "linked.zip"
    with zipfile.ZipFile(linked, "w") as zf:
        zf.write(FIXTURE / "users.json", "users.json")
        info = zipfile.ZipInfo("channels.json")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, "/etc/passwd")
    refused(tmp_path / "a.db", linked, "is a link or a special file")
    climbing = tmp_path / "climbing.zip"
    with zipfile.ZipFile(climbing, "w") as zf:
        zf.writestr("../escaped.json", "[]")
    refused(tmp_path / "b.db", climbing, "outside the archive's folder")
    assert not (tmp_path / "escaped.json").exists()


def test_a_damaged_export_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    export = tmp_path / "export"
    shutil.copytree(FIXTURE, export)
    (export / "general" / "2024-01-16.json").write_text('[{"type": "message", ')
    refused(tmp_path / "c.db", export, "cannot read general/2024-01-16.json")
    (export / "general" / "2024-01-16.json").write_text(json.dumps({"not": "a list"}))
    refused(tmp_path / "d.db", export, "is not a list of messages")
    os.remove(export / "general" / "2024-01-16.json")
    (export / "channels.json").write_text(json.dumps([{"name": "../etc", "members": []}]))
    refused(tmp_path / "e.db", export, "is not a folder name")
    refused(tmp_path / "f.db", tmp_path / "missing.zip", "does not exist")
    truncated = zip_export(FIXTURE, tmp_path / "whole.zip").read_bytes()
    (tmp_path / "cut.zip").write_bytes(truncated[: len(truncated) // 2])
    refused(tmp_path / "g.db", tmp_path / "cut.zip", "cannot unpack")

"""`teamchat export` while a server runs: the output is what Zulip's importer reads.

The organization is built through the API, exported through the CLI, and every file is
checked against tests/ops/zulip_import_expectations.py (keys and types Zulip's importer
reads) plus the cross-references the importer follows.
"""

from __future__ import annotations

import json
import re
import tarfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.ops import zulip_import_expectations as expect
from tests.support.api import Api, assert_success
from tests.support.server import ServerProcess, cli

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
PASSWORD = "a-Long-and-unusual-password-42"
Tables = dict[str, list[dict[str, Any]]]
Organization = tuple[ServerProcess, dict[str, Any]]


def _type_ok(value: object, kind: str) -> bool:
    checks = {
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "str": lambda v: isinstance(v, str),
        "bool": lambda v: isinstance(v, bool),
        "list": lambda v: isinstance(v, list),
        "float": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "None": lambda v: v is None,
    }
    return any(checks[part](value) for part in kind.split("|"))


def check_tables(data: Tables, spec: dict[str, dict[str, str]], required: bool, where: str) -> None:
    for table, fields in spec.items():
        if table not in data:
            assert not required, f"{where}: missing table {table}"
            continue
        assert isinstance(data[table], list), f"{where}: {table} is not a list"
        for row in data[table]:
            for key, kind in fields.items():
                assert key in row, f"{where}: {table} row lacks {key}: {row}"
                assert _type_ok(row[key], kind), f"{where}: {table}.{key}={row[key]!r} not {kind}"


def _user(server: ServerProcess, owner: Api, name: str) -> Api:
    email = f"{name.lower()}@example.com"
    assert_success(owner.post("/users", email=email, password=PASSWORD, full_name=name))
    with Api(server.url) as anonymous:
        key = anonymous.ok("POST", "/fetch_api_key", username=email, password=PASSWORD)
    api = Api(server.url, email, key["api_key"])
    api.user_id = key["user_id"]  # type: ignore[attr-defined]
    return api


def build_organization(server: ServerProcess, owner: Api) -> dict[str, Any]:
    """Channels, direct messages, a group DM, a reaction, a star, an upload, custom emoji,
    a linkifier, a profile field and a user group, made through the API."""
    hamlet, cordelia = _user(server, owner, "Hamlet"), _user(server, owner, "Cordelia")
    ids = {"hamlet": hamlet.user_id, "cordelia": cordelia.user_id}  # type: ignore[attr-defined]
    owner.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": "secret"}],
             invite_only=True, principals=[owner.email, hamlet.email])  # fmt: skip
    upload = owner.http.post("/user_uploads", files={"file": ("notes.txt", b"hello export")})
    url = assert_success(upload)["url"]
    public = owner.ok("POST", "/messages", type="stream", to="general", topic="plans",
                      content=f"see [notes]({url}) @**Hamlet**")["id"]  # fmt: skip
    owner.ok("PATCH", f"/messages/{public}", content=f"see [the notes]({url}) @**Hamlet**")
    owner.ok("POST", "/messages", type="stream", to="secret", topic="s", content="private")
    poll = owner.ok("POST", "/messages", type="stream", to="general", topic="lunch",
                    content="/poll Lunch?\nPizza\nSushi")["id"]  # fmt: skip
    owner.ok("POST", "/saved_snippets", title="greeting", content="hello there")
    assert_success(hamlet.http.post("/users/me/avatar", files={"f": ("me.png", PNG, "image/png")}))
    dm = hamlet.ok("POST", "/messages", type="private", to=[ids["cordelia"]], content="psst")["id"]
    group = owner.ok("POST", "/messages", type="private",
                     to=[ids["hamlet"], ids["cordelia"]], content="all three")["id"]  # fmt: skip
    files = {"f": ("party.png", PNG, "image/png")}
    assert_success(owner.http.post("/realm/emoji/party", files=files))
    owner.ok("POST", f"/messages/{public}/reactions", emoji_name="party")
    hamlet.ok("POST", f"/messages/{public}/reactions", emoji_name="smile")
    hamlet.ok("POST", "/messages/flags", messages=[public], op="add", flag="starred")
    owner.ok("POST", "/realm/filters", pattern=r"#(?P<id>[0-9]+)",
             url_template="https://tracker.example/{id}")  # fmt: skip
    owner.ok("POST", "/realm/profile_fields", name="Team", field_type=1, hint="")
    owner.ok("POST", "/user_groups/create", name="crew", description="the crew",
             members=[ids["hamlet"]])  # fmt: skip
    hamlet.close()
    cordelia.close()
    return {**ids, "public": public, "dm": dm, "group": group, "upload": url, "poll": poll}


def load_dir(root: Path) -> tuple[Tables, list[Tables], Tables]:
    realm = json.loads((root / "realm.json").read_text())
    messages = []
    number = 1
    while (root / f"messages-{number:06}.json").exists():
        messages.append(json.loads((root / f"messages-{number:06}.json").read_text()))
        number += 1
    return realm, messages, json.loads((root / "attachment.json").read_text())


def check_export(root: Path) -> tuple[Tables, list[dict[str, Any]], list[dict[str, Any]]]:
    """Every importer expectation and cross-reference; return realm.json and all messages."""
    realm, message_files, attachments = load_dir(root)
    check_tables(realm, expect.REALM_JSON, True, "realm.json")
    check_tables(realm, expect.REALM_JSON_OPTIONAL, False, "realm.json")
    check_tables(attachments, expect.ATTACHMENT_FILE, True, "attachment.json")
    messages, user_messages = [], []
    for n, data in enumerate(message_files, 1):
        check_tables(data, expect.MESSAGE_FILE, True, f"messages-{n:06}.json")
        ids = {m["id"] for m in data["zerver_message"]}
        assert all(um["message"] in ids for um in data["zerver_usermessage"])  # importer asserts
        messages += data["zerver_message"]
        user_messages += data["zerver_usermessage"]
    assert len(realm["zerver_realm"]) == 1
    people = {u["id"] for u in realm["zerver_userprofile"]}
    cross = {u["id"] for u in realm["zerver_userprofile_crossrealm"]}
    assert {u["email"] for u in realm["zerver_userprofile_crossrealm"]} <= expect.CROSS_REALM_EMAILS
    for user in realm["zerver_userprofile"]:
        assert re.fullmatch(r"[^@\s]+@[^@\s]+", user["email"]), user["email"]
    recipients = {r["id"]: r for r in realm["zerver_recipient"]}
    recipients.update(
        {c["recipient_id"]: {"type": 1} for c in realm["zerver_userprofile_crossrealm"]}
    )
    for sub in realm["zerver_subscription"]:
        assert sub["recipient"] in recipients and sub["user_profile"] in people | cross
    for huddle in realm["zerver_huddle"]:
        assert any(r["type"] == 3 and r["type_id"] == huddle["id"] for r in recipients.values())
    for message in messages:
        assert message["sender"] in people | cross and message["recipient"] in recipients
    group_ids = {g["id"] for g in realm.get("zerver_usergroup", [])}
    for name, value in realm["zerver_realm"][0].items():
        if name.endswith("_group"):
            assert value in group_ids, name
    emoji = {str(e["id"]): e["name"] for e in realm["zerver_realmemoji"]}
    for reaction in realm["zerver_reaction"]:
        if reaction["reaction_type"] == "realm_emoji":
            assert emoji[reaction["emoji_code"]] == reaction["emoji_name"]
    check_files(root, attachments)
    return realm, messages, user_messages


def check_files(root: Path, attachments: Tables) -> None:
    """records.json entries point at files, and every attachment has its upload record."""
    uploads = json.loads((root / "uploads" / "records.json").read_text())
    for record in uploads:
        assert all(_type_ok(record[k], t) for k, t in expect.UPLOAD_RECORD.items()), record
        assert (root / "uploads" / record["path"]).is_file()
    by_path = {r["s3_path"] for r in uploads}
    for attachment in attachments["zerver_attachment"]:
        assert attachment["path_id"] in by_path  # the importer looks each one up
    for record in json.loads((root / "emoji" / "records.json").read_text()):
        assert all(_type_ok(record[k], t) for k, t in expect.EMOJI_RECORD.items()), record
        assert (root / "emoji" / record["path"]).is_file()


@pytest.fixture
def organization(start_server: Callable[..., ServerProcess]) -> Organization:
    proc = start_server()
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        return proc, build_organization(proc, owner)


def test_full_export_has_what_zulips_importer_reads(
    organization: Organization, tmp_path: Path
) -> None:
    proc, made = organization
    result = cli(proc.db, "export", str(tmp_path / "out"))  # the server keeps running
    assert "Exported" in result.stdout and "to the directory" in result.stdout
    realm, messages, user_messages = check_export(tmp_path / "out")
    by_id = {m["id"]: m for m in messages}
    assert {made["public"], made["dm"], made["group"]} <= set(by_id)
    assert "private" in {m["content"] for m in messages}
    # A two-person DM goes to the other person's personal recipient; three people: a huddle.
    recipients = {r["id"]: r for r in realm["zerver_recipient"]}
    assert recipients[by_id[made["dm"]]["recipient"]] == {
        "id": by_id[made["dm"]]["recipient"], "type": 1, "type_id": made["cordelia"]
    }  # fmt: skip
    assert recipients[by_id[made["group"]]["recipient"]]["type"] == 3
    flags = {(um["user_profile"], um["message"]): um["flags_mask"] for um in user_messages}
    assert flags[(made["hamlet"], made["public"])] & expect.FLAG_BITS["starred"]
    assert flags[(made["hamlet"], made["public"])] & expect.FLAG_BITS["mentioned"]
    assert flags[(made["cordelia"], made["dm"])] & expect.FLAG_BITS["is_private"]
    assert not flags[(made["cordelia"], made["dm"])] & expect.FLAG_BITS["read"]
    reactions = {(r["user_profile"], r["emoji_name"]) for r in realm["zerver_reaction"]}
    assert (made["hamlet"], "smile") in reactions
    assert [f["pattern"] for f in realm["zerver_realmfilter"]] == ["#(?P<id>[0-9]+)"]
    assert "Team" in {f["name"] for f in realm["zerver_customprofilefield"]}
    crew = next(g for g in realm["zerver_namedusergroup"] if g["name"] == "crew")
    members = realm["zerver_usergroupmembership"]
    assert {"user_group": crew["usergroup_ptr"], "user_profile": made["hamlet"]} in [
        {"user_group": m["user_group"], "user_profile": m["user_profile"]} for m in members
    ]
    # System groups hold their members explicitly, as Zulip's importer expects.
    owners = next(g for g in realm["zerver_namedusergroup"] if g["name"] == "role:owners")
    assert any(m["user_group"] == owners["usergroup_ptr"] for m in members)
    assert not any("password" in u or "api_key" in u for u in realm["zerver_userprofile"])
    # Edit history: a JSON string, newest entry first, as Zulip stores it.
    [edit] = json.loads(by_id[made["public"]]["edit_history"])
    assert edit["prev_content"].startswith("see [notes]") and "prev_rendered_content" in edit
    assert by_id[made["public"]]["last_edit_time"] >= by_id[made["public"]]["date_sent"]
    assert {s["message"] for s in realm["zerver_submessage"]} == {made["poll"]}
    assert [s["title"] for s in realm["zerver_savedsnippet"]] == ["greeting"]
    avatars = json.loads((tmp_path / "out" / "avatars" / "records.json").read_text())
    assert {(a["user_profile_id"], a["path"].rpartition(".")[2]) for a in avatars} == {
        (made["hamlet"], "original"), (made["hamlet"], "png")
    }  # fmt: skip
    for record in avatars:
        assert (tmp_path / "out" / "avatars" / record["path"]).read_bytes() == PNG
        assert all(_type_ok(record[k], t) for k, t in expect.UPLOAD_RECORD.items())
    upload_path = made["upload"].removeprefix("/user_uploads/")
    assert (tmp_path / "out" / "uploads" / upload_path).read_bytes() == b"hello export"


def test_public_export_to_a_tarball_holds_only_public_channels(
    organization, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    proc, made = organization
    tarball = tmp_path / "org.tar.gz"
    cli(proc.db, "export", str(tarball), "--type", "public")
    with tarfile.open(tarball) as tar:
        tar.extractall(tmp_path / "x", filter="data")
    assert [p.name for p in (tmp_path / "x").iterdir()] == ["org"]
    _, messages, _ = check_export(tmp_path / "x" / "org")
    ids = {m["id"] for m in messages}
    assert made["public"] in ids and made["dm"] not in ids and made["group"] not in ids
    assert "private" not in {m["content"] for m in messages}


def test_export_refuses_an_existing_path_and_a_missing_folder(
    organization: Organization, tmp_path: Path
) -> None:
    proc, _ = organization
    (tmp_path / "taken").mkdir()
    taken = cli(proc.db, "export", str(tmp_path / "taken"), check=False)
    assert taken.returncode == 1 and "exists" in taken.stderr
    missing = cli(proc.db, "export", str(tmp_path / "nope" / "out"), check=False)
    assert missing.returncode == 1 and "does not exist" in missing.stderr
    bad_type = cli(proc.db, "export", str(tmp_path / "o"), "--type", "everything", check=False)
    assert bad_type.returncode == 1 and "everything" in bad_type.stderr
    assert not (tmp_path / "o").exists()
    assert httpx.get(proc.url + "/health").status_code == 200


def test_hidden_addresses_stay_hidden_unless_the_export_is_full(
    organization: Organization, tmp_path: Path
) -> None:
    proc, made = organization
    with Api(proc.url) as anonymous:
        key = anonymous.ok("POST", "/fetch_api_key", username="hamlet@example.com",
                           password=PASSWORD)["api_key"]  # fmt: skip
    with Api(proc.url, "hamlet@example.com", key) as hamlet:
        hamlet.ok("PATCH", "/settings", email_address_visibility=4)  # nobody
    addresses = {}
    for kind in ("public", "full"):
        cli(proc.db, "export", str(tmp_path / kind), "--type", kind)
        realm, _, _ = check_export(tmp_path / kind)
        [row] = [u for u in realm["zerver_userprofile"] if u["id"] == made["hamlet"]]
        assert row["email"] == f"user{made['hamlet']}@example.com"
        addresses[kind] = row["delivery_email"]
    assert addresses == {"public": row["email"], "full": "hamlet@example.com"}


def test_consent_export_holds_what_consenting_people_received(
    organization: Organization, tmp_path: Path
) -> None:
    proc, made = organization
    cli(proc.db, "export", str(tmp_path / "none"), "--type", "consent")
    _, messages, _ = check_export(tmp_path / "none")
    ids = {m["id"] for m in messages}
    assert made["public"] in ids and made["dm"] not in ids and made["group"] not in ids
    with Api(proc.url) as anonymous:
        key = anonymous.ok("POST", "/fetch_api_key", username="hamlet@example.com",
                           password=PASSWORD)["api_key"]  # fmt: skip
    with Api(proc.url, "hamlet@example.com", key) as hamlet:
        hamlet.ok("PATCH", "/settings", allow_private_data_export=True)
    cli(proc.db, "export", str(tmp_path / "hamlet"), "--type", "consent")
    _, messages, user_messages = check_export(tmp_path / "hamlet")
    ids = {m["id"] for m in messages}
    assert {made["public"], made["dm"], made["group"]} <= ids
    assert "private" in {m["content"] for m in messages}  # hamlet is in the private channel
    assert {um["user_profile"] for um in user_messages} == {made["hamlet"]}


def test_export_is_one_consistent_snapshot_while_messages_arrive(
    organization: Organization, tmp_path: Path
) -> None:
    proc, _ = organization
    stop = threading.Event()
    sent: list[int] = []

    def keep_sending() -> None:
        with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
            while not stop.is_set():
                mid = owner.ok("POST", "/messages", type="stream", to="general",
                               topic="busy", content=f"busy {len(sent)}")["id"]  # fmt: skip
                owner.ok("POST", f"/messages/{mid}/reactions", emoji_name="smile")
                sent.append(mid)

    sender = threading.Thread(target=keep_sending)
    sender.start()
    try:
        while len(sent) < 5:
            time.sleep(0.05)
        cli(proc.db, "export", str(tmp_path / "busy"))
    finally:
        stop.set()
        sender.join()
    realm, messages, user_messages = check_export(tmp_path / "busy")
    exported = {m["id"] for m in messages}
    busy = sorted(m["id"] for m in messages if m["subject"] == "busy")
    assert busy and busy == sent[: len(busy)]  # a prefix of what was sent, no gaps
    assert {r["message"] for r in realm["zerver_reaction"]} <= exported
    with_flags = {um["message"] for um in user_messages}
    assert with_flags <= exported and set(busy) <= with_flags


def test_export_of_the_sandbox_organization(tmp_path: Path) -> None:
    """Zulip's development organization (bots, many channels, reactions, mentions, group
    DMs) exports into what Zulip's importer reads."""
    proc = ServerProcess(tmp_path, command=["--db", str(tmp_path / "dev.db"), "sandbox"])
    proc.start(timeout_secs=60)
    try:
        cli(tmp_path / "dev.db", "export", str(tmp_path / "dev-export.tar.gz"))
    finally:
        proc.stop()
    with tarfile.open(tmp_path / "dev-export.tar.gz") as tar:
        tar.extractall(tmp_path / "x", filter="data")
    realm, messages, user_messages = check_export(tmp_path / "x" / "dev-export")
    assert len(messages) >= 300 and user_messages
    names = {u["full_name"] for u in realm["zerver_userprofile"]}
    assert {"Iago", "King Hamlet", "Cordelia, Lear's daughter"} <= names
    assert realm["zerver_huddle"] and realm["zerver_reaction"]
    assert any(u["is_bot"] for u in realm["zerver_userprofile"])
